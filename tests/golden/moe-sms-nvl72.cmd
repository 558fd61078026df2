predict -t topologies/gb200-nvl72.yaml -c dispatch --tokens 1024 -a hybridep --sms 8
