predict -t tests/data/topo/gb200-tray-dump.xml --set nodes=18 -c allreduce -b 1M -e 1G -f 32
