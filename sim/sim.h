/*
** sim/sim.h: run a schedule on a fabric: the event engine (engine.h) with
** the fabric's routes and the flow solver's max-min rates plugged in.
**
** An op that moves bytes becomes a flow over its route (XFER: the links
** from src to dst, with both ranks' copy ports for SM-driven copies and the
** sender's memory where a slow GPU's is timed; NVLS: src's scale-up ports;
** UP/DOWN: between src's GPU and its NIC's switch); it completes when its
** flow has moved its bytes.  A transfer between groups under sprayed
** routing (scaleout.spray = K) moves as K flows of bytes/K over K of the
** equal-cost paths and completes when all K have.  After every time the
** solver recomputes the rates of what that time's changes touched, and
** queues each changed flow's finish (stale finishes are skipped by version).
** A timed fault (model/fault.h, SPEC@TIME) strikes as an event: new
** capacities, and every flow over a dead resource moves to a live route
** with what it has left; with none, the run ends in a hang (CCS_EINPUT,
** "hang at T us: rank R cannot reach ...").
*/
#ifndef CCS_SIM_H
#define CCS_SIM_H

#include "simrun.h"

/* As ccs_sim_run, calling the hooks (may be NULL) as ops start and end. */
int ccs_sim_run_hooked(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                       struct ccs_flows **flows, const struct ccs_sim_hooks *hooks, char *err, size_t errn);

/* Run s on fabric fab; the flow solver state (with per-resource statistics)
 * is left in *flows when flows is non-NULL (caller frees it).  err gets a
 * one-line reason on CCS_EINPUT. */
int ccs_sim_run(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                struct ccs_flows **flows, char *err, size_t errn);

#endif
