predict -t topologies/hgx-h100.yaml -c allreduce -a tree -p LL --format xml
