simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/mscclpp-ring-allgather-4.json -b 64M
