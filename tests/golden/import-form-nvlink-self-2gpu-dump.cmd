topo import tests/data/topo/form-nvlink-self-2gpu-dump.xml
