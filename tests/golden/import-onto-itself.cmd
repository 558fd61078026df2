topo import tests/data/topo/hgx-h100-dump.xml -o tests/data/topo/hgx-h100-dump.xml
