simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/bad-msccl-offset.xml -b 1G
