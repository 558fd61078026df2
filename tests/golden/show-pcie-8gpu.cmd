topo show topologies/pcie-8gpu.yaml
