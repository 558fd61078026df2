run tests/data/scenarios/bad-kv-split.yaml
