topo import tests/data/topo/mi300x-dump.xml
