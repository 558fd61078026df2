simulate -t topologies/hgx-h100.yaml -c allreduce -a collnet_chain
