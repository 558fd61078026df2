topo check tests/data/topo/vm-numa-h200-dump.xml
