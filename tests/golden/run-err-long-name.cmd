run tests/data/scenarios/bad-long-name.yaml --db :memory: --no-plots
