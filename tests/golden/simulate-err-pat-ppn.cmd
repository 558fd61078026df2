simulate -t topologies/hgx-h100.yaml --set nodes=2 -c allgather -a pat -p Simple -b 1M -e 1M
