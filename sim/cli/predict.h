/*
** sim/cli/predict.h: a `ccsim predict` or `ccsim simulate` request, what
** cmd_predict.c resolves and times, and the printer of its rows in
** nccl-tests' table, CSV or JSON (predict_out.c).
*/
#ifndef CCS_PREDICT_H
#define CCS_PREDICT_H

#include "cli.h"
#include "simrow.h"

#include "../../model/bound.h"
#include "../../model/cost.h"
#include "../sim.h"

/* A predict or simulate request: the options, what they resolve to, and
 * the rows (one per size) being timed. */
struct predict_req {
	int sim;
	const char *topo, *coll_s, *algo_s, *proto_s, *format, *dtype_s, *op_s, *trace_path;
	uint64_t minb, maxb, stepb;
	double factor;
	int nranks, ppn, channels, best, root, links, concurrent, stepwise, per_flow, verbose, trace_level;
	int aggregate;               /* simulate --fidelity aggregate (CCS_SCHED_AGGREGATE) */
	struct ccs_cut cut1;        /* the cut bound of one byte */
	const char *sched_path[8];
	int nsched;
	struct ccs_args_sets sets;
	/* resolved */
	int coll, op, fixed_algo, sched_flags, minch, maxch, n;
	const struct ccs_dtype *dt;
	unsigned all_algo, all_proto, amask, pmask;
	struct ccs_topo *t;
	struct ccs_comm comm;
	struct ccs_selector sel;    /* comm's selection, precomputed (time_rows) */
	struct ccs_fabric *fab;
	struct ccs_flows *last_flows;
	struct ccs_simrow_row *rows;
	size_t nrows;
	double avg_bus;
};

/* rq's rows in its --format (table, csv or json), with -v's cut bounds and
 * the simulator's run figures and busiest links where asked. */
void ccs_predict_out_rows(const struct predict_req *rq);

#endif
