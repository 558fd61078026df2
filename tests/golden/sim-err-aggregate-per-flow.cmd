simulate -t topologies/hgx-h100.yaml -c allgather --fidelity aggregate --per-flow
