simulate -t topologies/hgx-h100-cluster.yaml --set nodes=16 --set scaleout.topology=fat-tree --set scaleout.radix=48 --set scaleout.oversubscription=2 -c alltoall -b 256M -e 256M --links
