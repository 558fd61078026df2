run tests/data/scenarios/bad-bytes.yaml --db :memory: --no-plots
