run tests/data/scenarios/size-too-big.yaml --db :memory: --no-plots
