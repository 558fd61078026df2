topo show topologies/ascend-8npu-hccs.yaml
