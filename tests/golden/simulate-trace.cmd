simulate -t topologies/hgx-h100.yaml -c allreduce -b 1M -e 1M -a ring --trace /dev/null
