run tests/data/scenarios/bad-sweep-fault.yaml --db :memory: --no-plots
