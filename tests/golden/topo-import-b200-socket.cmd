topo check tests/data/topo/hgx-b200-socket-dump.xml
