predict -t topologies/hgx-h100.yaml -c allreduce -a hier -b 1G -e 1G --set nodes=4
