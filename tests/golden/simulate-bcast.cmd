simulate -t topologies/hgx-h100.yaml -c broadcast -b 64K -e 1G -f 16 -r 3
