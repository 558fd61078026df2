predict -t topologies/hgx-h100.yaml -c alltoall -n 16 --ppn 8 -b 1M -e 1G -f 32 --set nodes=2
