predict -t topologies/hgx-h100-cluster.yaml --set model.transport_costs.msg_latency=3 -c allreduce
