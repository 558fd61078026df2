simulate -t topologies/gb200-nvl72.yaml --set nodes=36 --isolation domains --job name=A,size=36,coll=allreduce,bytes=256M --job name=B,size=36,coll=allreduce,bytes=256M
