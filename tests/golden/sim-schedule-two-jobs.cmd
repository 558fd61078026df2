simulate -t topologies/hgx-h100-cluster.yaml -n 16 --schedule scenarios/incast-2node.yaml --schedule scenarios/incast-2node.yaml
