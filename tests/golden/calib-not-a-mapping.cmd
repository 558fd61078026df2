predict -t topologies/hgx-h100.yaml --set calibration=tests/data/calib/not-a-map.yaml -c allreduce -b 1M -e 1M
