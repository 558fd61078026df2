topo check tests/data/topo/bad-hwloc.xml
