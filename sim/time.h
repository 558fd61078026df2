/*
** sim/time.h: event time: integer picoseconds.
**
**   t [ps] = ceil(s x 1e12), saturating at CCS_TIME_MAX (about 106 days)
**   s      = t x 1e-12
** Integer time keeps the event order exact and runs reproducible; seconds
** become ticks only through ccs_time_from_s (rounds up, saturates).
*/
#ifndef CCS_TIME_H
#define CCS_TIME_H

#include <stdint.h>

typedef int64_t ccs_time;
#define CCS_TIME_MAX INT64_MAX

/* Seconds to ticks, rounding up, saturating; 0 for s <= 0 or NaN. */
ccs_time ccs_time_from_s(double s);

/* now + s seconds, saturating at CCS_TIME_MAX: the horizon, past which
 * nothing happens (the engine reports a run that needs it). */
static inline ccs_time ccs_time_after(ccs_time now, double s)
{
	ccs_time d = ccs_time_from_s(s);
	return d >= CCS_TIME_MAX - now ? CCS_TIME_MAX : now + d;
}

/* Ticks (or a tick difference) to seconds. */
static inline double ccs_time_to_s(ccs_time t)
{
	return (double)t * 1e-12;
}

/* Bytes a flow at rate_Bps moves in dt ticks: rate x dt x 1e-12, in that
 * order (the flow solver's bytes stay bit-identical). */
static inline double ccs_time_moved(double rate_Bps, ccs_time dt)
{
	return rate_Bps * (double)dt * 1e-12;
}

#endif
