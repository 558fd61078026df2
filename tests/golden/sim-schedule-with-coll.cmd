simulate -t topologies/hgx-h100.yaml -c allreduce --schedule scenarios/ring4-allgather.yaml
