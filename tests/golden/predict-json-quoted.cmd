predict -t tests/data/regress/quoted-name.yaml -c allreduce -b 1MiB -e 1MiB --format json
