topo check topologies/cloudmatrix384.yaml
