run tests/data/scenarios/kv.yaml --db :memory: --no-plots
