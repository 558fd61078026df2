topo show topologies/hgx-b200.yaml
