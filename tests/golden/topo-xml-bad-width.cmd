topo check tests/data/topo/bad-width.xml
