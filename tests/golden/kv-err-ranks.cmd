predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c kvcache --prefill 12 --decode 8
