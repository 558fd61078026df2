simulate -t topologies/hgx-h100-cluster.yaml --set nodes=2 --job name=A,rails=0-3,coll=allreduce,bytes=256M,algo=ring --job name=B,rails=4-7,coll=allreduce,bytes=256M,algo=ring
