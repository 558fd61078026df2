predict -t topologies/hgx-h100.yaml -c sendrecv -b 64M -e 64M --set nodes=2
