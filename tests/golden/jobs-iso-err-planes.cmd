simulate -t topologies/hgx-h100-cluster.yaml --set nodes=2 --isolation planes --job name=A,size=8,coll=allreduce,bytes=16M --job name=B,size=8,coll=allreduce,bytes=16M
