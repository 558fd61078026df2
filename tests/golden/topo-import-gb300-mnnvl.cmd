topo import tests/data/topo/gb300-2tray-mnnvl-dump.xml
