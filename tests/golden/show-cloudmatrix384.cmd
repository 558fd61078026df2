topo show topologies/cloudmatrix384.yaml
