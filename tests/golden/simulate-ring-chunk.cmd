simulate -t topologies/hgx-h100-cluster.yaml --set nodes=4 -c allreduce -a ring -p Simple -b 1M -e 1G -f 32 --granularity chunk
