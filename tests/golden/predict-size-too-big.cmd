predict -t topologies/hgx-h100.yaml -c allreduce -b 99999999999999999999999 -e 1G
