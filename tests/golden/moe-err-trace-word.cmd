predict -t topologies/hgx-h800.yaml -n 2 --ppn 2 -c dispatch --tokens 2 --topk 2 --experts 4 --routing trace --routing-trace tests/data/moe/trace-word.txt
