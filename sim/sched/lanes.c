/* sim/sched/lanes.c: lane views (sched.h) that several schedule kinds
** share: a schedule of independent single ops (NVLS in one domain,
** SendRecv). */
#include "sched.h"

#include <string.h>

static uint64_t single_id(const struct ccs_sched *s, uint64_t t, uint32_t l)
{
	(void)s;
	(void)t;
	return l;
}

static uint32_t single_pred(const struct ccs_sched *s, int j, uint32_t l)
{
	(void)s;
	(void)j;
	(void)l;
	return UINT32_MAX;
}

static uint64_t single_key(const struct ccs_sched *s, uint32_t l)
{
	(void)s;
	(void)l;
	return 0;
}

int ccs_sched_lanes_single(uint64_t nops, struct ccs_sched_lanes *out)
{
	if (nops >= UINT32_MAX)
		return 0;
	memset(out, 0, sizeof *out);
	out->L = (uint32_t)nops;
	out->T = 1;
	out->id = single_id;
	out->pred = single_pred;
	out->key = single_key;
	return 1;
}
