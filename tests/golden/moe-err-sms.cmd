predict -t topologies/gb200-nvl72.yaml -c dispatch --sms 1
