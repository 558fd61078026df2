predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c allreduce -b 1G -e 1G
