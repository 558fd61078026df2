run tests/data/scenarios/bad-topk.yaml
