/*
** sim/cli/cmd_moe.c: `ccsim predict|simulate -c dispatch|combine|alltoallv`.
**
** Routes tokens (model/moe.h) or reads a byte matrix, plans the transfers
** of each algorithm asked for, and prints per algorithm: time, per-rank
** send and receive bytes (max, mean), imbalance (max / mean received), the
** bytes on scale-up links and on the network, DeepEP's bottleneck bandwidth
** and the bound.  simulate runs each plan on the fabric (sim/sched/expert.c).
*/
#include "cli.h"

#include "../../model/moe.h"
#include "../../model/topo_yaml.h"
#include "../sim.h"
#include "../sched/build.h"
#include "../report.h"
#include "moe_io.h"
#include "../trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim predict";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s -t TOPO -c dispatch|combine|alltoallv [options]\n"
	        "  -a ALGO             direct, scaleup, deepep_normal, deepep_ll, pplx, uccl_ep, hybridep,\n"
	        "                      all, auto (default: all that apply)\n"
	        "  -n N, --ppn P       ranks (default: every GPU), at most P per node\n"
	        "  --tokens T          tokens per rank (128)       --hidden H       hidden size (7168)\n"
	        "  --dtype bf16|fp8    bytes per token: 2H, or H + 4 per 128 (fp8 with scales) (bf16)\n"
	        "  --topk K            experts per token (8)       --experts E      routed experts (256)\n"
	        "  --routing uniform|zipf|hot|trace   with --skew S (zipf, 1), --hot H --hot-share F (hot),\n"
	        "                      --routing-trace FILE (trace: a line of K expert ids per token)\n"
	        "  --expert-groups G, --topk-groups g   group-limited routing (G: nodes by default)\n"
	        "  --placement contiguous|round-robin   --replicas R (copies of the --hot hottest experts)\n"
	        "  --seed S            routing seed (1)\n"
	        "  --expected          expected routing: every source of an EP group sends each rank the mean of\n"
	        "                      what the draw has the group's sources send it (the draw's imbalance\n"
	        "                      removed, its skew kept); predict also prints the draw's time beside it\n"
	        "  --sms S             SMs given to the EP kernel (default: the family's; deepep_normal 20, hybridep 24)\n"
	        "  --ep P              EP group size: N / P groups of P consecutive ranks run at once, each with\n"
	        "                      its own experts (default: every rank; at most the expert count)\n"
	        "  --matrix FILE       alltoallv: N lines of N byte counts (row = sender)\n"
	        "  --format table|csv|json   --set key.path=value\n"
	        "  simulate only: -v (the run: ops, events, flows, the largest and mean max-min region),\n"
	        "                      --links, --trace FILE.json, --trace-level collective|step|chunk,\n"
	        "                      --fidelity exact|aggregate (aggregate: the transfers across groups merged\n"
	        "                      by leaf pair, each NIC's and leaf's bytes kept; docs/simulator.md)\n",
	        me);
}

struct mrow {
	int algo;
	struct ccs_moe_cost mc;
	double sim_s;
	int sim_bound;
	double drawn_s;             /* --expected: the closed form under the draw itself; 0 not computed */
	struct ccs_sim_stats st;    /* simulate: the run (-v prints it) */
};

static int sim_plan(const struct ccs_comm *c, struct ccs_fabric **fab, const struct ccs_moe_plan *p, int flags,
                    struct mrow *rw, struct ccs_flows **keep, const char *trace_path, int trace_level)
{
	char err[256];
	if (!*fab && ccs_fabric_new(c, fab)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	/* the kernel's SM budget caps its copy ports (model/moe_family.h) */
	ccs_fabric_cap_copy(*fab, p->copy_Bps);
	struct ccs_sched s;
	const char *why = NULL;
	if (ccs_sched_expert_flags(c, p, flags, &s, &why)) {
		fprintf(stderr, "%s: %s: %s\n", me, ccs_moe_algo_name[p->algo], why);
		return -1;
	}
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	char title[160];
	int in_trace;
	snprintf(title, sizeof title, "MoE %s/%s on %d ranks", ccs_moe_op_name[p->op], ccs_moe_algo_name[p->algo], c->n);
	int rc = ccs_trace_run(*fab, &s, c->n, trace_path, trace_level, title, NULL, &st, &fl, &in_trace, err, sizeof err);
	ccs_sched_release(&s);
	if (rc) {
		fprintf(stderr, "%s: %s\n", me, err);
		return -1;
	}
	rw->sim_s = st.time_s;
	rw->st = st;
	rw->sim_bound = ccs_report_bound(c, *fab, fl, st.time_s);
	ccs_flows_free(*keep);
	*keep = fl;
	return 0;
}

static int want_name(const char *flag, const char *v, const char *const *names, int n, int *out)
{
	int k = ccs_moe_parse(names, n, v);
	if (k < 0) {
		fprintf(stderr, "%s: unknown %s '%s'; one of:", me, flag, v);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", names[i]);
		fprintf(stderr, "\n");
		return -1;
	}
	*out = k;
	return 0;
}

/* --seed: any whole number the generator takes */
static int take_seed(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	if (!*v || *end || *v == '-') {
		fprintf(stderr, "%s: '--seed' must be a whole number, got '%s'\n", me_, v);
		return -1;
	}
	*(uint64_t *)o->dest = x;
	return 0;
}

/* A request for MoE traffic: the options, what they resolve to, and one
 * row per algorithm timed. */
struct moe_req {
	int sim;
	const char *topo, *op_s, *algo_s, *format, *trace_in, *matrix_path, *trace_path;
	int nranks, ppn, links, trace_level, aggregate, verbose;
	struct ccs_moe_cfg cfg;
	struct ccs_args_sets sets;
	int op, pick_best, n;
	unsigned amask;
	struct ccs_topo *t;
	struct ccs_comm comm;
	struct ccs_moe_routing route;
	int32_t *trace_ids;
	double *matrix;
	struct ccs_fabric *fab;
	struct ccs_flows *last;
	struct mrow rows[CCS_MOE_ALGO_N];
	int nrows;
};

/* The options: 0, 1 after --help, -1 after a message. */
static int moe_parse(struct moe_req *q, int argc, char **argv)
{
	static const char *const dtypes[] = { "bf16", "fp8" };
	static const char *const fidelities[] = { "exact", "aggregate" };
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_STR, &q->topo, 0, 0, NULL, 0, NULL, NULL },
		{ "-c", CCS_ARGS_STR, &q->op_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-a", CCS_ARGS_STR, &q->algo_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-n", CCS_ARGS_INT, &q->nranks, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--ppn", CCS_ARGS_INT, &q->ppn, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--tokens", CCS_ARGS_INT, &q->cfg.tokens, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--hidden", CCS_ARGS_INT, &q->cfg.hidden, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--dtype", CCS_ARGS_NAME, &q->cfg.fp8, 0, 0, dtypes, 2, "dtype", NULL },
		{ "--topk", CCS_ARGS_INT, &q->cfg.topk, 1, 64, NULL, 0, NULL, NULL },
		{ "--experts", CCS_ARGS_INT, &q->cfg.experts, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--routing", CCS_ARGS_NAME, &q->cfg.dist, 0, 0, ccs_moe_dist_name, CCS_MOE_DIST_N, "routing", NULL },
		{ "--skew", CCS_ARGS_REAL, &q->cfg.skew, 1e-6, 10, NULL, 0, NULL, NULL },
		{ "--hot", CCS_ARGS_INT, &q->cfg.hot, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--hot-share", CCS_ARGS_REAL, &q->cfg.hot_share, 1e-9, 1 - 1e-9, NULL, 0, NULL, NULL },
		{ "--routing-trace", CCS_ARGS_STR, &q->trace_in, 0, 0, NULL, 0, NULL, NULL },
		{ "--expert-groups", CCS_ARGS_INT, &q->cfg.groups, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--topk-groups", CCS_ARGS_INT, &q->cfg.topk_groups, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--placement", CCS_ARGS_NAME, &q->cfg.place, 0, 0, ccs_moe_place_name, CCS_MOE_PLACE_N, "placement", NULL },
		{ "--replicas", CCS_ARGS_INT, &q->cfg.replicas, 0, 1 << 20, NULL, 0, NULL, NULL },
		{ "--sms", CCS_ARGS_INT, &q->cfg.sms, 2, 1024, NULL, 0, NULL, NULL },
		{ "--ep", CCS_ARGS_INT, &q->cfg.ep, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--seed", CCS_ARGS_FN, &q->cfg.seed, 0, 0, NULL, 0, NULL, take_seed },
		{ "--expected", CCS_ARGS_FLAG, &q->cfg.expected, 0, 0, NULL, 0, NULL, NULL },
		{ "--matrix", CCS_ARGS_STR, &q->matrix_path, 0, 0, NULL, 0, NULL, NULL },
		{ "--format", CCS_ARGS_STR, &q->format, 0, 0, NULL, 0, NULL, NULL },
		{ "--fidelity", CCS_ARGS_NAME, &q->aggregate, 0, 0, fidelities, 2, "fidelity", NULL },
		{ "--trace", CCS_ARGS_STR, &q->trace_path, 0, 0, NULL, 0, NULL, NULL },
		{ "--trace-level", CCS_ARGS_NAME, &q->trace_level, 0, 0, ccs_trace_level_name, CCS_TRACE_LEVEL_N, "level",
		  NULL },
	};

	for (int i = 1; i < argc; i++) {
		int r = ccs_args_shared(&q->sets, argc, argv, &i, usage);
		if (r == CCS_ARGS_TOOK)
			continue;
		if (r)
			return r < 0 ? -1 : 1;   /* an error, or help printed */
		const char *a = argv[i];
		if (q->sim && !strcmp(a, "--links")) {
			q->links = 1;
			continue;
		}
		if (q->sim && !strcmp(a, "-v")) {
			q->verbose = 1;
			continue;
		}
		char what[48];
		snprintf(what, sizeof what, "-c %s", q->op_s ? q->op_s : "dispatch");
		/* --fidelity, --trace and --trace-level (last) are simulate's */
		if (ccs_args_take(me, what, opts, sizeof opts / sizeof opts[0] - (q->sim ? 0 : 3), argc, argv, &i))
			return -1;
	}
	return 0;
}

/* Names, format and routing checked before anything loads: 0, or -1
 * after a message. */
static int moe_check(struct moe_req *q)
{
	if (!q->topo || !q->op_s) {
		fprintf(stderr, "%s: %s\n", me, !q->topo ? "missing -t TOPO" : "missing -c COLL");
		return -1;
	}
	q->op = 0;
	if (want_name("collective", q->op_s, ccs_moe_op_name, CCS_MOE_OP_N, &q->op))
		return -1;
	if (strcmp(q->format, "table") && strcmp(q->format, "csv") && strcmp(q->format, "json")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv, json\n", me, q->format);
		return -1;
	}
	q->amask = (1u << CCS_MOE_ALGO_N) - 1;
	q->pick_best = 0;
	if (!strcmp(q->algo_s, "auto"))
		q->pick_best = 1;
	else if (strcmp(q->algo_s, "all")) {
		int a = 0;
		if (want_name("algorithm", q->algo_s, ccs_moe_algo_name, CCS_MOE_ALGO_N, &a))
			return -1;
		q->amask = 1u << a;
	}
	if (q->op == CCS_MOE_ALLTOALLV) {
		q->amask &= (1u << CCS_MOE_DIRECT) | (1u << CCS_MOE_SCALEUP);
		if (!q->amask) {
			fprintf(stderr, "%s: alltoallv runs direct or scaleup\n", me);
			return -1;
		}
	}
	if (q->cfg.dist == CCS_MOE_TRACE && !q->trace_in) {
		fprintf(stderr, "%s: '--routing trace' needs --routing-trace FILE\n", me);
		return -1;
	}
	if (q->trace_in && q->cfg.dist != CCS_MOE_TRACE) {
		fprintf(stderr, "%s: --routing-trace goes with --routing trace\n", me);
		return -1;
	}
	return 0;
}

/* The topology, communicator and the routing (or the byte matrix):
 * 0, or -1 after a message. */
static int moe_setup(struct moe_req *q)
{
	if (ccs_args_topo(q->sim ? NULL : me, q->topo, &q->sets, &q->t) ||
	    ccs_args_comm(me, q->t, q->nranks, q->ppn, &q->comm))
		return -1;
	char err[256];
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	q->n = q->comm.n;
	if (q->op == CCS_MOE_ALLTOALLV && q->matrix_path) {
		if (ccs_moe_matrix_load(q->matrix_path, q->n, &q->matrix, &diag)) {
			fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: out of memory");
			return -1;
		}
	} else {
		if (ccs_moe_check(&q->cfg, q->n, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", me, err);
			return -1;
		}
		if (q->trace_in && ccs_moe_trace_load(q->trace_in, q->n, q->cfg.tokens, q->cfg.topk, q->cfg.experts, &q->trace_ids, &diag)) {
			fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: out of memory");
			return -1;
		}
		if (ccs_moe_route(&q->cfg, &q->comm, q->trace_ids, &q->route)) {
			fprintf(stderr, "%s: out of memory\n", me);
			return -1;
		}
		if (q->op == CCS_MOE_ALLTOALLV) {
			/* the direct dispatch's bytes per pair */
			struct ccs_moe_plan dp;
			if (ccs_moe_plan(&q->comm, &q->cfg, &q->route, NULL, CCS_MOE_DISPATCH, CCS_MOE_DIRECT, &dp, err, sizeof err)) {
				fprintf(stderr, "%s: %s\n", me, err);
				return -1;
			}
			q->matrix = ccs_calloc((size_t)q->n * (size_t)q->n + 1, sizeof *q->matrix);
			if (!q->matrix) {
				ccs_moe_plan_release(&dp);
				fprintf(stderr, "%s: out of memory\n", me);
				return -1;
			}
			for (size_t i = 0; i < dp.nx; i++)
				q->matrix[(size_t)dp.x[i].src * (size_t)q->n + (size_t)dp.x[i].dst] += dp.x[i].tokens * dp.tok_bytes;
			ccs_moe_plan_release(&dp);
		}
	}
	return 0;
}

/* --expected: algorithm a's closed form under the draw the expectation
 * was taken from (the cost of its imbalance beside it). */
static int drawn_time(const struct moe_req *q, int a, double *t)
{
	struct ccs_moe_cfg cfg = q->cfg;
	cfg.expected = 0;
	struct ccs_moe_plan p;
	struct ccs_moe_cost mc;
	char why[256];
	int rc = ccs_moe_plan(&q->comm, &cfg, &q->route, NULL, q->op, a, &p, why, sizeof why);
	if (rc)
		return rc;
	rc = ccs_moe_eval(&q->comm, &p, &mc);
	ccs_moe_plan_release(&p);
	*t = rc ? 0 : mc.time_s;
	return rc;
}

/* Each algorithm that applies, planned and timed (closed form, or
 * simulated); --best keeps the fastest. */
static int moe_time(struct moe_req *q)
{
	char whybuf[256];
	for (int a = 0; a < CCS_MOE_ALGO_N; a++) {
		if (!(q->amask & (1u << a)))
			continue;
		struct ccs_moe_plan p;
		int prc = ccs_moe_plan(&q->comm, &q->cfg, &q->route, q->matrix, q->op, a, &p, whybuf, sizeof whybuf);
		if (prc == CCS_ENOMEM) {
			fprintf(stderr, "%s: out of memory\n", me);
			return -1;
		}
		if (prc) {
			if (q->amask == (1u << a)) {
				fprintf(stderr, "%s: %s %s on %s: %s\n", me, ccs_moe_algo_name[a], ccs_moe_op_name[q->op], q->t->name,
				        whybuf);
				return -1;
			}
			continue;
		}
		struct mrow *rw = &q->rows[q->nrows];
		memset(rw, 0, sizeof *rw);
		rw->algo = a;
		int erc = ccs_moe_eval(&q->comm, &p, &rw->mc);
		if (!erc && q->cfg.expected && q->op != CCS_MOE_ALLTOALLV)
			erc = drawn_time(q, a, &rw->drawn_s);
		if (!erc && q->sim)
			erc = sim_plan(&q->comm, &q->fab, &p, q->aggregate ? CCS_SCHED_AGGREGATE : 0, rw, &q->last, q->trace_path,
			               q->trace_level) ? CCS_EINPUT : 0;
		ccs_moe_plan_release(&p);
		if (erc) {
			if (erc == CCS_ENOMEM)
				fprintf(stderr, "%s: out of memory\n", me);
			return -1;
		}
		q->nrows++;
	}
	if (!q->nrows) {
		fprintf(stderr, "%s: no algorithm applies to %s on %s\n", me, ccs_moe_op_name[q->op], q->t->name);
		return -1;
	}
	if (q->pick_best) {
		int b = 0;
		for (int i = 1; i < q->nrows; i++)
			if ((q->sim ? q->rows[i].sim_s : q->rows[i].mc.time_s) < (q->sim ? q->rows[b].sim_s : q->rows[b].mc.time_s))
				b = i;
		q->rows[0] = q->rows[b];
		q->nrows = 1;
	}
	return 0;
}

/* -v: each simulated row's run (docs/simulator.md, "Flows"): its ops, the
 * events, the flows, the most at once, the largest and the mean region a
 * rate update recomputed. */
static void print_runs(const struct moe_req *q)
{
	printf("# simulator runs%s\n# %-14s %12s %12s %12s %10s %10s %10s\n", q->aggregate ? " (aggregate)" : "", "algo",
	       "ops", "events", "flows", "max active", "region max", "mean");
	for (int i = 0; i < q->nrows; i++) {
		const struct ccs_sim_stats *st = &q->rows[i].st;
		printf("# %-14s %12llu %12llu %12llu %10u %10u %10.1f\n", ccs_moe_algo_name[q->rows[i].algo],
		       (unsigned long long)st->ops, (unsigned long long)st->events, (unsigned long long)st->flows,
		       st->max_active, st->region_max, st->region_mean);
	}
}

/* The rows as a table, csv or json. */
static int moe_print(struct moe_req *q)
{
	double tb = q->op == CCS_MOE_ALLTOALLV ? 0 : ccs_moe_tok_bytes(q->cfg.hidden, q->cfg.fp8);
	if (!strcmp(q->format, "csv")) {
		printf("collective,algo,ranks,groups,time_us,send_max_B,send_mean_B,recv_max_B,recv_mean_B,imbalance,"
		       "scaleup_B,network_B,bottleneck_GBps,bound\n");
	} else if (!strcmp(q->format, "json")) {
		char jn[1024];
		printf("{\n  \"collective\": \"%s\",\n  \"topology\": \"%s\",\n  \"ranks\": %d,\n  \"groups\": %d,\n"
		       "  \"engine\": \"%s\",\n  \"rows\": [", ccs_moe_op_name[q->op], ccs_escape_json(q->t->name, jn, sizeof jn), q->n, q->comm.G, q->sim ? "sim" : "model");
	} else {
		printf("# %s: %s on %s: %d ranks in %d group%s of %d\n", me, ccs_moe_op_name[q->op], q->t->name, q->n, q->comm.G,
		       q->comm.G == 1 ? "" : "s", q->comm.p);
		if (q->op != CCS_MOE_ALLTOALLV || !q->matrix_path)
			printf("# %d tokens/rank, hidden %d, %s (%.0f B/token), top-%d of %d experts, %s routing%s, %s placement, "
			       "seed %llu\n", q->cfg.tokens, q->cfg.hidden, q->cfg.fp8 ? "fp8" : "bf16", tb, q->cfg.topk, q->cfg.experts,
			       ccs_moe_dist_name[q->cfg.dist], q->cfg.topk_groups ? " (group-limited)" : q->cfg.expected ? " (expected)" : "",
			       ccs_moe_place_name[q->cfg.place], (unsigned long long)q->cfg.seed);
		else
			printf("# byte matrix %s\n", q->matrix_path);
		if (q->aggregate)
			printf("# fidelity aggregate: the transfers across groups merged by (sender's leaf, receiver's leaf), "
			       "each rank's and each leaf's network bytes kept, who pairs with whom not (docs/simulator.md)\n");
		if (q->cfg.ep > 0 && q->cfg.ep < q->n && (q->op != CCS_MOE_ALLTOALLV || !q->matrix_path))
			printf("# %d EP groups of %d ranks at once, each with its own %d experts\n", q->n / q->cfg.ep, q->cfg.ep,
			       q->cfg.experts);
		printf("#\n# %-14s %9s %9s %9s %9s %9s %6s %10s %10s %10s  %-8s\n", "algo", "time", "send max", "send mean",
		       "recv max", "recv mean", "imbal", "scale-up", "network", "bottleneck", "bound");
		printf("# %-14s %9s %9s %9s %9s %9s %6s %10s %10s %10s\n", "", "(us)", "(MB)", "(MB)", "(MB)", "(MB)", "",
		       "(MB)", "(MB)", "(GB/s)");
	}
	for (int i = 0; i < q->nrows; i++) {
		const struct mrow *rw = &q->rows[i];
		const struct ccs_moe_cost *m = &rw->mc;
		double T = q->sim ? rw->sim_s : m->time_s;
		int bound = q->sim ? rw->sim_bound : m->bound;
		double imb = m->recv_mean > 0 ? m->recv_max / m->recv_mean : 0;
		double bott = T > 0 ? m->logical_mean / T / 1e9 : 0;
		if (!strcmp(q->format, "csv"))
			printf("%s,%s,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", ccs_moe_op_name[q->op],
			       ccs_moe_algo_name[rw->algo], q->n, q->comm.G, T * 1e6, m->send_max, m->send_mean, m->recv_max,
			       m->recv_mean, imb, m->scaleup_bytes, m->net_bytes, bott, ccs_bound_name[bound]);
		else if (!strcmp(q->format, "json"))
			printf("%s\n    {\"algo\": \"%s\", \"time_us\": %.6g, \"send_max_B\": %.6g, \"send_mean_B\": %.6g, "
			       "\"recv_max_B\": %.6g, \"recv_mean_B\": %.6g, \"imbalance\": %.6g, \"scaleup_B\": %.6g, "
			       "\"network_B\": %.6g, \"bottleneck_GBps\": %.6g, \"bound\": \"%s\"}",
			       i ? "," : "", ccs_moe_algo_name[rw->algo], T * 1e6, m->send_max, m->send_mean, m->recv_max,
			       m->recv_mean, imb, m->scaleup_bytes, m->net_bytes, bott, ccs_bound_name[bound]);
		else
			printf("  %-14s %9.2f %9.3f %9.3f %9.3f %9.3f %6.3f %10.2f %10.2f %10.2f  %-8s\n",
			       ccs_moe_algo_name[rw->algo], T * 1e6, m->send_max / 1e6, m->send_mean / 1e6, m->recv_max / 1e6,
			       m->recv_mean / 1e6, imb, m->scaleup_bytes / 1e6, m->net_bytes / 1e6, bott, ccs_bound_name[bound]);
	}
	if (!strcmp(q->format, "json"))
		printf("\n  ]\n}\n");
	else if (!strcmp(q->format, "table")) {
		printf("#\n");
		for (int i = 0; i < q->nrows && q->cfg.expected; i++)
			if (q->rows[i].drawn_s > 0 && q->rows[i].mc.time_s > 0)
				printf("# %s under the draw (seed %llu): %.2f us (closed form), %+.1f%% against the expectation's "
				       "%.2f: what this draw's imbalance across sources costs\n", ccs_moe_algo_name[q->rows[i].algo],
				       (unsigned long long)q->cfg.seed, q->rows[i].drawn_s * 1e6,
				       100 * (q->rows[i].drawn_s / q->rows[i].mc.time_s - 1), q->rows[i].mc.time_s * 1e6);
		if (q->verbose && q->sim)
			print_runs(q);
	}
	return 0;
}

int ccs_cmd_moe(int argc, char **argv, int sim)
{
	me = sim ? "ccsim simulate" : "ccsim predict";
	struct moe_req *q = ccs_calloc(1, sizeof *q);
	if (!q) {
		fprintf(stderr, "ccsim: out of memory\n");
		return 1;
	}
	q->sim = sim;
	q->algo_s = "all";
	q->format = "table";
	ccs_moe_cfg_default(&q->cfg);
	ccs_args_sets_init(&q->sets);
	int rc = moe_parse(q, argc, argv);
	if (rc)
		rc = rc > 0 ? 0 : 2;
	else if (moe_check(q))
		rc = 2;
	else if (moe_setup(q) || moe_time(q) || moe_print(q))
		rc = 1;
	else {
		if (q->links && q->last && q->fab)
			ccs_report_links(q->fab, q->last, q->rows[q->nrows - 1].sim_s);
		rc = ccs_args_flush() ? 1 : 0;
	}
	ccs_flows_free(q->last);
	ccs_fabric_free(q->fab);
	ccs_free(q->trace_ids);
	ccs_free(q->matrix);
	ccs_moe_routing_release(&q->route);
	ccs_comm_release(&q->comm);
	ccs_topo_free(q->t);
	ccs_args_sets_release(&q->sets);
	ccs_free(q);
	return rc;
}
