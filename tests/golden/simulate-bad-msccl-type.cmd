simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/bad-msccl-type.xml -b 1G
