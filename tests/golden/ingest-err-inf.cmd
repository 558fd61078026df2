calibrate ingest tests/data/calib/bad-nt-inf.log --db :memory:
