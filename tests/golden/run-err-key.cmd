run tests/data/scenarios/bad-key.yaml
