predict -t tests/data/topo/dgx-a100-dump.xml --set nodes=2 -c allreduce -b 1M -e 1G -f 32
