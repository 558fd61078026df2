run tests/data/scenarios/bad-key.yaml --db :memory: --no-plots
