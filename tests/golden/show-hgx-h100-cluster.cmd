topo show topologies/hgx-h100-cluster.yaml
