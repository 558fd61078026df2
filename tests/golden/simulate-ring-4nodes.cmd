simulate -t topologies/hgx-h100-cluster.yaml -c allreduce -a ring -p Simple --channels 8 -b 1G -e 1G --set nodes=4 --links
