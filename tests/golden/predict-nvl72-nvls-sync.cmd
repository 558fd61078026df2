predict -t topologies/gb200-nvl72.yaml -n 16 -c allreduce -b 1MiB -e 1GiB -f 4 -a nvls --format json
