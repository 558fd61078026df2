simulate -t topologies/hgx-h100-cluster.yaml --set nodes=8 --set scaleout.topology=fat-tree --set scaleout.radix=16 --set scaleout.spray=4 -c allreduce -a ring -b 256M -e 256M
