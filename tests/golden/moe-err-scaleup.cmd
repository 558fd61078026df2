predict -t topologies/hgx-h800.yaml --set nodes=2 -c dispatch -a scaleup
