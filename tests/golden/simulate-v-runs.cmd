simulate -v -t topologies/hgx-h100-cluster.yaml --set nodes=4 -c allreduce -b 1M -e 1G -f 32
