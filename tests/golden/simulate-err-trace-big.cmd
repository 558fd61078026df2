simulate -t topologies/hgx-h100.yaml -c allreduce -a ring -b 1M -e 1M --set nodes=256 --channels 1 --trace /dev/null
