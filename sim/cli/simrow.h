/*
** sim/cli/simrow.h: a row of predict's and simulate's output (one size),
** and the simulator's side of both commands (simrow.c): a row simulated
** (its time and bound; the run's flows kept for --links, a trace of the
** last when asked), and --schedule files run together.  me names the
** command in messages; spray_k > 0 sets the fabric's parts per transfer
** between groups (--spray).  A row returns 0, or -1 after its message;
** the schedules return the command's exit status.
*/
#ifndef CCS_SIMROW_H
#define CCS_SIMROW_H

#include "cli.h"

#include "../../model/cost.h"

#include <stdint.h>

struct ccs_fabric;
struct ccs_flows;

struct ccs_simrow_row {
	uint64_t bytes, count;
	int algo, proto, channels, bound;
	double time_s, algbw, busbw;
	double lat_s, sync_s, bw_s;     /* the closed form's three terms (struct ccs_cost) */
	int alt_algo, alt_proto;
	double alt_time;
	double cut_s;                   /* the cut bound (model/bound.h) */
	int cut_by;
	/* the simulator's run (simulate only; events 0: not simulated) */
	uint64_t events, flows, class_flows;
	uint32_t max_active, classes, restarts;
	int lumped;                     /* the classes were lumped (--fidelity aggregate) */
	uint32_t region_max;         /* the largest rate update's flows, and the mean (simrun.h) */
	double region_mean;
	const char *per_flow_why;       /* why it ran per flow; NULL: as classes */
};

/* How the runs below lump equivalent flows (CCS_CLASSES_*, sim/fabric.h):
 * every flow (--per-flow), exact classes (the default) or lumped ones
 * (--fidelity aggregate). */
void ccs_simrow_set_classes(int mode);
/* The level of detail of the runs' traces (enum ccs_trace_level, sim/trace.h;
 * the default is the step level). */
void ccs_simrow_set_trace_level(int level);
int ccs_simrow_run(const char *me, uint32_t spray_k, const struct ccs_comm *c, struct ccs_fabric **fab, int coll, int algo,
                   int proto, int channels, int copies, int flags, struct ccs_simrow_row *rw, struct ccs_flows **keep,
                   const char *trace_path);
/* Whether the topology's faults (t, loaded from topo with sets) leave every
 * row's closed form where the healthy hardware has it: the same algorithm,
 * protocol, channels and size priced on the topology loaded without its
 * `faults` sets, equal to 1e-9 at every row.  0 when t has no faults or
 * timed ones, or anything fails (no claim). */
int ccs_simrow_faults_idle(const struct ccs_topo *t, const char *topo, const struct ccs_args_sets *sets,
                           const struct ccs_comm *fc, int ppn, int coll, const struct ccs_simrow_row *rows, size_t n);
int ccs_simrow_schedules(const char *me, uint32_t spray_k, const char *topo, const struct ccs_args_sets *sets, int nranks,
                         int ppn, const char *const *paths, int npaths, double bytes, int links, const char *trace_path);

#endif
