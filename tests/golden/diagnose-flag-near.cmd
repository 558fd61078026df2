diagnose -t topologies/hgx-h100.yaml --tolerence 3% x.log
