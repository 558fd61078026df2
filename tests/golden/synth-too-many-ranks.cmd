synth -t topologies/hgx-h100-cluster.yaml -c allgather
