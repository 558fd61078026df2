calibrate check --bogus 3
