predict -t topologies/hgx-h800.yaml -n 2 --ppn 2 -c alltoallv --matrix tests/data/moe/matrix-rows.csv
