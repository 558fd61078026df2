predict -t topologies/hgx-h800.yaml -c dispatch --fidelity aggregate
