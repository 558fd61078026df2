topo import tests/data/topo/nvlink-bridge-2gpu-dump.xml
