run tests/data/scenarios/bad-kv.yaml
