topo show topologies/hgx-h100-cluster.yaml --set scaleout.topology=rail-only --set scaleout.planes=2
