run tests/data/scenarios/bad-topk.yaml --db :memory: --no-plots
