topo show topologies/nonexistent.yaml
