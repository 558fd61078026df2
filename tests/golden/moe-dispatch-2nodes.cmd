predict -t topologies/hgx-h800.yaml --set nodes=2 -c dispatch --tokens 512 --dtype fp8 --topk-groups 2
