run tests/data/scenarios/bad-sweep-fixed.yaml --db :memory: --no-plots
