topo import tests/data/topo/form-empty-link-speed-dump.xml
