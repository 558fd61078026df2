topo show topologies/hgx-h100-cluster.yaml --set nodes=8 --set scaleout.topology=fat-tree --set scaleout.radix=16 --fault switch:spine0:down --fault pcie:node0/gpu3:x8
