run tests/data/scenarios/bad-sweep-sizes.yaml --db :memory: --no-plots
