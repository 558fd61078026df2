simulate -t topologies/hgx-h800.yaml --set nodes=8 -c dispatch -a deepep_normal --tokens 512 --fidelity aggregate -v
