run scenarios/default.yaml --check
