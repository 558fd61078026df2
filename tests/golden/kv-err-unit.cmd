predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c kvcache --layer-time 3
