simulate -t topologies/hgx-h800.yaml -c combine --fidelity approx
