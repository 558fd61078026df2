predict -t topologies/gb200-nvl72.yaml -c reducescatter -b 64K -e 64M -f 32 -d bf16 --format json
