run tests/data/scenarios/bad-sweep-algo.yaml --db :memory: --no-plots
