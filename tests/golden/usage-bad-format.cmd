topo show topologies/hgx-h100.yaml --format xml
