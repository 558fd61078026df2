simulate -t topologies/hgx-h100-cluster.yaml --set nodes=2 -c kvcache --kv-dim 576 --kv-replicated --layers 61 --tokens 8192 --page-tokens 64 --links
