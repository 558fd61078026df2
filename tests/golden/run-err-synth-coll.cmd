run tests/data/scenarios/bad-synth-coll.yaml --db :memory: --no-plots
