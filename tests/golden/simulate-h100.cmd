simulate -t topologies/hgx-h100.yaml -c allreduce -b 1K -e 1G -f 32 --links
