simulate -t topologies/hgx-h100.yaml -c allreduce -a ring -p Simple -b 1G -e 1G --concurrent 2
