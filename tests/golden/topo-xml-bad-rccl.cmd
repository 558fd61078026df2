topo check tests/data/topo/bad-rccl.xml
