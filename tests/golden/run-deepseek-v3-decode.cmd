run scenarios/deepseek-v3-decode.yaml
