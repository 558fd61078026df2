topo show topologies/hgx-h100-cluster.yaml --set scaleout.spray=8
