predict -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c kvcache --prefill 8 --decode 4 --layer-time 0.3ms
