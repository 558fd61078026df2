/*
** sim/trace.h: Chrome trace event format (JSON) of a simulation, which
** Perfetto and chrome://tracing open: one process per rank ("rank N"), one
** thread per channel, each op a complete event ("ph": "X") from its start
** (after its latency) to its end, named by its peer and bytes; times in us;
** with ccs_trace_links, a counter per link of its utilisation.
** Keeps one start time per op, so it takes schedules of at most
** CCS_TRACE_MAX_OPS ops.
*/
#ifndef CCS_TRACE_H
#define CCS_TRACE_H

#include "sim.h"

#include <stdio.h>

#define CCS_TRACE_MAX_OPS 4000000u

struct ccs_trace;

/* Open path for a schedule of nops ops; CCS_EINPUT (with err) when too big
 * or the file cannot be written. */
int  ccs_trace_open(struct ccs_trace **out, const char *path, const struct ccs_sched *s, int nranks,
                    const char *title, char *err, size_t errn);
/* Also write each link's utilisation (percent of capacity) as a counter
 * track of a process "links", whenever it changes. */
int  ccs_trace_links(struct ccs_trace *t, const struct ccs_fabric *fab);
/* Hooks to pass to ccs_sim_run_hooked. */
void ccs_trace_hooks(struct ccs_trace *t, struct ccs_sim_hooks *h);
/* Finish the file; CCS_EIO if writing failed.  Frees t. */
int  ccs_trace_close(struct ccs_trace *t);

/* Run s on fab (ccs_sim_run), writing its trace with links to path when
 * path is not NULL, and calling watch's tick (watch may be NULL; its other
 * hooks are not used) as the run goes.  On failure err has the reason,
 * *in_trace says whether the trace (opening or writing it) or the run
 * failed, and nothing is left in *flows; on success *flows is the caller's
 * to free. */
int  ccs_trace_run(struct ccs_fabric *fab, const struct ccs_sched *s, int nranks, const char *path,
                   const char *title, const struct ccs_sim_hooks *watch, struct ccs_sim_stats *st,
                   struct ccs_flows **flows, int *in_trace, char *err, size_t errn);

#endif
