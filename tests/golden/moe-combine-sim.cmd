simulate -t topologies/hgx-h800.yaml --set nodes=2 -c combine -a deepep_normal --tokens 256 --routing zipf --skew 1.1 --links
