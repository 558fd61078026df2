calibrate ingest tests/data/calib/bad-pf-iters.log --db :memory:
