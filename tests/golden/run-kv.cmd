run tests/data/scenarios/kv.yaml
