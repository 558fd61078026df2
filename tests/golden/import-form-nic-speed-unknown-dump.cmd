topo import tests/data/topo/form-nic-speed-unknown-dump.xml
