predict -t topologies/dgx-a100.yaml -c allgather -b 1M -e 1G -f 32 --format csv
