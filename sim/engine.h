/*
** sim/engine.h: run a schedule on a fabric.
**
** The loop: pop every event of the earliest time (ops becoming ready after
** their delay, flows finishing), apply them all (start flows, finish ops,
** release successors whose last dependency just completed), then let the
** flow solver recompute the components those changes touched, once per
** time.  Time is integer picoseconds and never goes back; ties follow the
** sequence of the pushes, so a run is reproducible to the byte.  The engine
** knows times, events and ops; capacities and routes are the fabric's,
** sharing is the flow solver's.
** A schedule whose ops never all complete (a dependency that can never be
** met) ends with CCS_EINPUT and "deadlock": the queue empties first.
*/
#ifndef CCS_ENGINE_H
#define CCS_ENGINE_H

#include "fabric.h"
#include "sched/sched.h"

struct ccs_sim_stats {
	double time_s;
	uint64_t events, ops, flows;
	uint32_t max_active;
	double bytes_sent, bytes_received;
};

/* Optional observers of a run (a trace writer). */
struct ccs_sim_hooks {
	void *ctx;
	void (*op_start)(void *ctx, uint64_t op, const struct ccs_op *o, ccs_time t);
	void (*op_end)(void *ctx, uint64_t op, ccs_time t);
	/* after the rates were recomputed at time t (ccs_flows_touched) */
	void (*rates)(void *ctx, const struct ccs_flows *fl, ccs_time t);
};

/* An op_end hook (ctx: struct ccs_part_ends) that keeps the last
 * completion of each part of a ccs_sched_concat schedule in end_s[part]
 * (seconds; the caller zeroes one per part): several jobs' or groups'
 * own times in one run. */
struct ccs_part_ends {
	const struct ccs_sched *s;
	double *end_s;
};
void ccs_part_ends_op_end(void *ctx, uint64_t op, ccs_time t);

/* As ccs_sim_run, calling the hooks (may be NULL) as ops start and end. */
int ccs_sim_run_hooked(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                       struct ccs_flows **flows, const struct ccs_sim_hooks *hooks, char *err, size_t errn);

/* Run s on fabric fab; the flow solver state (with per-resource statistics)
 * is left in *flows when flows is non-NULL (caller frees it).  err gets a
 * one-line reason on CCS_EINPUT. */
int ccs_sim_run(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                struct ccs_flows **flows, char *err, size_t errn);

#endif
