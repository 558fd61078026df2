simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/allreduce-2-read.yaml
