calibrate ingest --db /tmp/never-written.db
