simulate -t topologies/pcie-8gpu.yaml --set nodes=2 --job name=A,gpus=0-1+8-9,coll=allreduce,bytes=256M,algo=ring --job name=B,gpus=2-3+10-11,coll=allreduce,bytes=256M,algo=ring
