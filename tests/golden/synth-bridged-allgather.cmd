synth -t topologies/pcie-4gpu-nvbridge.yaml -c allgather -b 64MiB --sizes 4MiB,64MiB
