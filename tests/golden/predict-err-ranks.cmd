predict -t topologies/hgx-h100.yaml -c allreduce -n 64
