predict -t tests/data/topo/hint-8gpu-gen4.xml --set nodes=2 -c allreduce -b 1M -e 1G -f 32
