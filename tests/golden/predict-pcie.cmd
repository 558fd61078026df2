predict -t topologies/pcie-8gpu.yaml -c allreduce -b 1M -e 1G -f 1024
