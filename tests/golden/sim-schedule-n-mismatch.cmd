simulate -t topologies/hgx-h100.yaml -n 8 --schedule scenarios/ring4-allgather.yaml
