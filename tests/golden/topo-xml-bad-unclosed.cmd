topo check tests/data/topo/bad-unclosed.xml
