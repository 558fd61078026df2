run scenarios/deepseek-v3-decode.yaml --db :memory: --no-plots
