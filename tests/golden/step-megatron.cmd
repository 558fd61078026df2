step -t topologies/hgx-h100-cluster.yaml --tp 8 --pp 4 --dp 32 --layers 96 --hidden 12288 --seq 2048 --micro-batch 1 --micro-batches 16 --zero 1 --layer-time 1.2ms --engine both
