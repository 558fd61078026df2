simulate -t topologies/hgx-h100-cluster.yaml --set nodes=16 --set scaleout.radix=16 --set scaleout.oversubscription=2 -c alltoall -b 256M -e 256M --links
