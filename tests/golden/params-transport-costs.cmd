params -t topologies/aws-p5.yaml --set model.transport_costs.chunk_cost=2us
