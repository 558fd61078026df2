predict -t topologies/hgx-h100-cluster.yaml -c allreduce -b 1K -e 16G -f 16 --best
