predict -t topologies/hgx-h100.yaml -c broadcast -b 1M -e 1M -r 3
