topo import tests/data/topo/nopeermem-h100-dump.xml
