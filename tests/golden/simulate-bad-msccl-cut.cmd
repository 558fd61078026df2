simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/bad-msccl-cut.xml -b 1G
