topo dot topologies/pcie-8gpu.yaml
