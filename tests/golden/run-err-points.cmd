run tests/data/scenarios/bad-points.yaml --db :memory: --no-plots
