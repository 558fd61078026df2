run tests/data/scenarios/csv-names.yaml --db :memory: --no-plots --format csv
