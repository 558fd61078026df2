topo import tests/data/topo/hint-8gpu-gen5.xml
