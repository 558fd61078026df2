calibrate show --db tests/data/calib/no-such.db
