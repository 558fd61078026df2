predict -t topologies/hgx-h100.yaml -c allreduce -a rhd -p Simple -n 16 -b 1G -e 1G --set nodes=2
