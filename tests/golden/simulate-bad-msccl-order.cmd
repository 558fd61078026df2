simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/bad-msccl-order.xml -b 1G
