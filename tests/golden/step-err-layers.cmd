step -t topologies/hgx-h100-cluster.yaml --tp 8 --pp 5 --dp 16 --layers 96 --hidden 12288 --seq 2048
