predict -t topologies/hgx-h100.yaml -n 1 -c allreduce -b 1M -e 1M --format csv
