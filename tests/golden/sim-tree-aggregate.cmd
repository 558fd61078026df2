simulate -t topologies/cluster-16k-3tier.yaml --set scaleout.radix=128 --set nodes=64 -c allreduce -a tree -p Simple -b 256M -e 256M --fidelity aggregate -v
