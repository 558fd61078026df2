predict -t topologies/dgx-a100.yaml -c allreduce -a nvls
