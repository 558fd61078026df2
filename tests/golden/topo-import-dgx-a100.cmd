topo import tests/data/topo/dgx-a100-dump.xml
