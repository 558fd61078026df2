simulate -t topologies/hgx-h100-cluster.yaml --set nodes=8 --set scaleout.topology=fat-tree --set scaleout.radix=48 --set scaleout.oversubscription=1 --schedule scenarios/bisection-2to1.yaml --links
