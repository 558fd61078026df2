simulate -t topologies/hgx-h100-cluster.yaml --set nodes=16 --isolation rails --job name=A,size=48,coll=allreduce,bytes=256M --job name=B,size=96,coll=allreduce,bytes=256M
