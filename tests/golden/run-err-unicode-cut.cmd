run tests/data/scenarios/bad-unicode-cut.yaml --db :memory: --no-plots
