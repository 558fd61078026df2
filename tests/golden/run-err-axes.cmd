run tests/data/scenarios/bad-axes.yaml --db :memory: --no-plots
