calibrate ingest tests/data/calib/bad-nt-size64.log --db :memory:
