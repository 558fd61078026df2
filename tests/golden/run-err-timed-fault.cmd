run tests/data/scenarios/bad-timed-fault.yaml --db :memory: --no-plots
