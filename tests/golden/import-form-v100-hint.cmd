topo import tests/data/topo/form-v100-hint.xml
