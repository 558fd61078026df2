run tests/data/scenarios/bad-kv.yaml --db :memory: --no-plots
