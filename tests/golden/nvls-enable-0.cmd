predict -t topologies/hgx-h100.yaml -c allreduce -b 64M -e 1G -f 4
