predict -t topologies/hgx-h800.yaml --set nodes=4 -c dispatch --tokens 16 -a direct --routing zipf --skew 0.6 --expected
