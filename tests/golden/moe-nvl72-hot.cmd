predict -t topologies/gb200-nvl72.yaml -c dispatch --routing hot --hot 8 --hot-share 0.5 --replicas 3 --format csv
