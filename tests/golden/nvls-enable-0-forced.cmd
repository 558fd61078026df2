predict -t topologies/hgx-h100.yaml -c allreduce -a nvls
