simulate -t topologies/hgx-h100-cluster.yaml -c alltoall -b 1M -e 1M --fidelity aggregate --format json
