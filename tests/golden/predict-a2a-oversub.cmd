predict -t topologies/cluster-16k-3tier.yaml -c alltoall -a direct -b 1M -e 1G -f 1024 --set scaleout.oversubscription.spine=4
