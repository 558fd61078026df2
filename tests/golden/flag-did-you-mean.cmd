predict -t topologies/hgx-h100.yaml -c allreduce --chanels 4
