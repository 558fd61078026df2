predict -t topologies/hgx-h100.yaml --set nodes=4 -c allreduce -a ring -b 64M -e 1G -f 4 --fault nic:node1/nic0:50%@2ms
