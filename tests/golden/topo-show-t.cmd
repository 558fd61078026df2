topo show -t topologies/pcie-8gpu.yaml
