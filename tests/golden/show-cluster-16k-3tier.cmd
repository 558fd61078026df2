topo show topologies/cluster-16k-3tier.yaml
