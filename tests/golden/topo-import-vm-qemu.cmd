topo import tests/data/topo/vm-qemu-h100-dump.xml
