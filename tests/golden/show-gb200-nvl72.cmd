topo show topologies/gb200-nvl72.yaml
