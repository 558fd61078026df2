predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c kvcache --kv-dim 1000 --prefill 8 --decode 3
