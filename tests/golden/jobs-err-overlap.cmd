simulate -t topologies/hgx-h100-cluster.yaml --set nodes=2 --job name=A,gpus=0-8,coll=allreduce,bytes=1M --job name=B,gpus=8-15,coll=allreduce,bytes=1M
