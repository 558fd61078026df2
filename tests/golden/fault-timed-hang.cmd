simulate -t topologies/hgx-h100.yaml --set nodes=4 -c allreduce -a ring -b 1G -e 1G --fault nic:node1/nic0:down@3ms
