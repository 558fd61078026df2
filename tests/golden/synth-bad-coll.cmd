synth -t topologies/hgx-h100.yaml -c broadcast
