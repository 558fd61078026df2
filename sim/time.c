/* sim/time.c: seconds to event time (time.h). */
#include "time.h"

ccs_time ccs_time_from_s(double s)
{
	if (!(s > 0))
		return 0;
	double ps = s * 1e12;
	if (ps >= 9.2e18)
		return CCS_TIME_MAX;
	ccs_time t = (ccs_time)ps;   /* ceil without the libm call */
	return (double)t < ps ? t + 1 : t;
}
