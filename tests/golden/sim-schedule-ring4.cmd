simulate -t topologies/hgx-h100.yaml --schedule scenarios/ring4-allgather.yaml
