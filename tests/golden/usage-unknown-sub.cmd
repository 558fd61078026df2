topo frobnicate topologies/hgx-h100.yaml
