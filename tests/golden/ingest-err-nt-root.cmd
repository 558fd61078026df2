calibrate ingest tests/data/calib/bad-nt-root.log --db :memory:
