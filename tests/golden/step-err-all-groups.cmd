step -t topologies/hgx-h100-cluster.yaml --tp 8 --pp 4 --dp 32 --layers 96 --hidden 12288 --seq 2048 --all-groups
