topo check tests/data/regress/alias-bomb.yaml
