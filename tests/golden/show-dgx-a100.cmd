topo show topologies/dgx-a100.yaml
