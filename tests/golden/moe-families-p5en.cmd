predict -t topologies/aws-p5en.yaml --set nodes=2 -c dispatch
