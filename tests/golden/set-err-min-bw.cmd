simulate -t topologies/hgx-h100.yaml -c allreduce -b 1MiB -e 1MiB --set scaleup.lane_bandwidth=1e-30B/s
