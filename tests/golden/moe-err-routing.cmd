predict -t topologies/hgx-h800.yaml -c dispatch --routing zipfian
