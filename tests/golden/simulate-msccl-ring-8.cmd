simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/msccl-ring-allreduce-8.xml -b 1G
