run tests/data/scenarios/bad-kv-split.yaml --db :memory: --no-plots
