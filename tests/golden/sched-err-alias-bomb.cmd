simulate -t topologies/hgx-h100.yaml --schedule tests/data/regress/alias-bomb.yaml
