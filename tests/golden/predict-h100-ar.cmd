predict -t topologies/hgx-h100.yaml -c allreduce -b 8 -e 8G -f 4
