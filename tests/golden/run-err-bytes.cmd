run tests/data/scenarios/bad-bytes.yaml
