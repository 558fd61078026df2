topo check tests/data/topo/bad-gpu-no-sm.xml
