simulate -t topologies/gb200-nvl72.yaml -c allreduce -a twoshot -d bfloat16 -b 256K -e 4M -f 4
