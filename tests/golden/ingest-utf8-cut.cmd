calibrate ingest --db :memory: tests/data/calib/bad-pl-utf8.log
