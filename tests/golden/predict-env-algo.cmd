predict -t topologies/hgx-h100.yaml -c allreduce -b 1M -e 1G -f 32 --format csv
