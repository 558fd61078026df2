topo check tests/data/topo/vm-l40s-dump.xml
