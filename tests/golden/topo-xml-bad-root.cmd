topo check tests/data/topo/bad-root.xml
