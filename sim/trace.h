/*
** sim/trace.h: Chrome trace event format (JSON) of a simulation, which
** Perfetto and chrome://tracing open: one process per rank ("rank N");
** times in us.  Each op runs from its start to its end, after the wait its
** schedule puts before it (the hop's latency, the step's synchronisation:
** the op's delay).  Three levels of detail:
**   chunk       every op a complete event ("ph": "X") on thread 2c of its
**               channel c, named by its peer, with its bytes; its wait on
**               thread 2c + 1 ("latency and sync"); a counter per link at
**               every change of its utilisation
**   step        per rank, the ops merged where they overlap or touch (the
**               channels of one step side by side) on thread 0, the waits
**               likewise on thread 1; link counters only when one moves by
**               5 points or to or from idle
**   collective  per rank, one span from the first op's start to the last
**               op's end, and the first wait (the collective's latency);
**               no link counters
** Keeps one start time per op, so it takes schedules of at most
** CCS_TRACE_MAX_OPS ops.
*/
#ifndef CCS_TRACE_H
#define CCS_TRACE_H

#include "sim.h"

#include <stdio.h>

#define CCS_TRACE_MAX_OPS 4000000u

/* the default first: a zeroed option is the step level */
enum ccs_trace_level { CCS_TRACE_STEP, CCS_TRACE_COLLECTIVE, CCS_TRACE_CHUNK, CCS_TRACE_LEVEL_N };
extern const char *const ccs_trace_level_name[CCS_TRACE_LEVEL_N];

struct ccs_trace;

/* Open path for a schedule of nops ops; CCS_EINPUT (with err) when too big
 * or the file cannot be written. */
int  ccs_trace_open(struct ccs_trace **out, const char *path, const struct ccs_sched *s, int nranks, int level,
                    const char *title, char *err, size_t errn);
/* Also write each link's utilisation (percent of capacity) as a counter
 * track of a process "links", whenever it changes. */
int  ccs_trace_links(struct ccs_trace *t, const struct ccs_fabric *fab);
/* Hooks to pass to ccs_sim_run_hooked. */
void ccs_trace_hooks(struct ccs_trace *t, struct ccs_sim_hooks *h);
/* Finish the file; CCS_EIO if writing failed.  Frees t. */
int  ccs_trace_close(struct ccs_trace *t);

/* Run s on fab (ccs_sim_run), writing its trace at level (enum
 * ccs_trace_level) with links to path when path is not NULL, and calling watch's tick (watch may be NULL; its other
 * hooks are not used) as the run goes.  On failure err has the reason,
 * *in_trace says whether the trace (opening or writing it) or the run
 * failed, and nothing is left in *flows; on success *flows is the caller's
 * to free. */
int  ccs_trace_run(struct ccs_fabric *fab, const struct ccs_sched *s, int nranks, const char *path, int level,
                   const char *title, const struct ccs_sim_hooks *watch, struct ccs_sim_stats *st,
                   struct ccs_flows **flows, int *in_trace, char *err, size_t errn);

#endif
