predict -t topologies/hgx-h100.yaml -c allreduce --best -d bfloat16 -b 16K -e 16M -f 4
