simulate -t topologies/hgx-h100.yaml -c allreduce -b 8PiB -e 8PiB --set scaleup.lane_bandwidth=1kB/s
