predict -t tests/data/topo/mi300x-dump.xml -c allreduce -b 8 -e 8G -f 64
