simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/mscclpp-allreduce-2.json -b 64M
