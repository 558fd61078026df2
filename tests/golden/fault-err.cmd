predict -t topologies/hgx-h100.yaml -c allreduce --fault link:node0/gpu0-node0/gpu1:50%
