simulate -t topologies/aws-p5.yaml --set nodes=4 -c allreduce -a tree -b 64M -e 64M --fidelity aggregate
