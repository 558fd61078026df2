predict -t topologies/hgx-h800.yaml -c dispatch --topk 9 --experts 8
