run tests/data/scenarios/bad-sweep-nodes.yaml --db :memory: --no-plots
