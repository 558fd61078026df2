simulate -t topologies/hgx-h100-cluster.yaml --set nodes=2 --job name=A,gpus=0-7,coll=allreduce,size=1M
