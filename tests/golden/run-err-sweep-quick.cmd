run tests/data/scenarios/bad-sweep-quick.yaml --db :memory: --no-plots
