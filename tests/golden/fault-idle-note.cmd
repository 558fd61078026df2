predict -t topologies/hgx-h100-cluster.yaml --set nodes=64 -n 16 -c allreduce -b 1G -e 1G --fault switch:spine3:down
