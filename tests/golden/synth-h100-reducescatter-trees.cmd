synth -t topologies/hgx-h100.yaml -c reducescatter -b 256MiB --sizes 256MiB --trees --no-compare
