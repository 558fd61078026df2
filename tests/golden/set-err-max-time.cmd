simulate -t topologies/hgx-h100.yaml -c allreduce -b 1MiB -e 1MiB --fault straggler:node0/gpu1:2000s
