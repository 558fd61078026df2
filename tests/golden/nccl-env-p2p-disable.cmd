predict -t topologies/hgx-h100.yaml -c allreduce -b 1G -e 1G
