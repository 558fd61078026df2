predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c allreduce -a oneshot -b 1M
