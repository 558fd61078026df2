predict -t tests/data/topo/nvlink-bridge-2gpu-dump.xml -c allreduce -b 1M -e 1G -f 32
