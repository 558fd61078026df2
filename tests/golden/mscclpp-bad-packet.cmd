simulate -t topologies/hgx-h100.yaml --schedule tests/data/sched/bad-mscclpp-packet.json
