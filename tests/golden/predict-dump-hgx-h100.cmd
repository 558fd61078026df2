predict -t tests/data/topo/hgx-h100-dump.xml -c allreduce -b 8 -e 8G -f 64
