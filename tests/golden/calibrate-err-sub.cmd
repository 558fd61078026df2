calibrate fitt
