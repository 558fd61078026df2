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
	        "  -a ALGO             direct, scaleup, deepep_normal, deepep_ll, all, auto (default: all that apply)\n"
	        "  -n N, --ppn P       ranks (default: every GPU), at most P per node\n"
	        "  --tokens T          tokens per rank (128)       --hidden H       hidden size (7168)\n"
	        "  --dtype bf16|fp8    bytes per token: 2H, or H + 4 per 128 (fp8 with scales) (bf16)\n"
	        "  --topk K            experts per token (8)       --experts E      routed experts (256)\n"
	        "  --routing uniform|zipf|hot|trace   with --skew S (zipf, 1), --hot H --hot-share F (hot),\n"
	        "                      --routing-trace FILE (trace: a line of K expert ids per token)\n"
	        "  --expert-groups G, --topk-groups g   group-limited routing (G: nodes by default)\n"
	        "  --placement contiguous|round-robin   --replicas R (copies of the --hot hottest experts)\n"
	        "  --seed S            routing seed (1)\n"
	        "  --matrix FILE       alltoallv: N lines of N byte counts (row = sender)\n"
	        "  --format table|csv|json   --set key.path=value\n"
	        "  simulate only: --links, --trace FILE.json\n",
	        me);
}

struct mrow {
	int algo;
	struct ccs_moe_cost mc;
	double sim_s;
	int sim_bound;
};

static int sim_plan(const struct ccs_comm *c, struct ccs_fabric **fab, const struct ccs_moe_plan *p, struct mrow *rw,
                    struct ccs_flows **keep, const char *trace_path)
{
	char err[256];
	if (!*fab && ccs_fabric_new(c, fab)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	struct ccs_sched s;
	const char *why = NULL;
	if (ccs_sched_moe(c, p, &s, &why)) {
		fprintf(stderr, "%s: %s: %s\n", me, ccs_moe_algo_name[p->algo], why);
		return -1;
	}
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	char title[160];
	int in_trace;
	snprintf(title, sizeof title, "MoE %s/%s on %d ranks", ccs_moe_op_name[p->op], ccs_moe_algo_name[p->algo], c->n);
	int rc = ccs_trace_run(*fab, &s, c->n, trace_path, title, &st, &fl, &in_trace, err, sizeof err);
	ccs_sched_release(&s);
	if (rc) {
		fprintf(stderr, "%s: %s\n", me, err);
		return -1;
	}
	rw->sim_s = st.time_s;
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

int ccs_cmd_moe(int argc, char **argv, int sim)
{
	me = sim ? "ccsim simulate" : "ccsim predict";
	const char *topo = NULL, *op_s = NULL, *algo_s = "all", *format = "table", *trace_in = NULL, *matrix_path = NULL;
	const char *trace_path = NULL;
	int nranks = 0, ppn = 0, links = 0;
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	struct ccs_topo *t = NULL;
	struct ccs_comm comm;
	memset(&comm, 0, sizeof comm);
	struct ccs_moe_routing route;
	memset(&route, 0, sizeof route);
	int32_t *trace_ids = NULL;
	double *matrix = NULL;
	struct ccs_fabric *fab = NULL;
	struct ccs_flows *last = NULL;
	struct mrow rows[CCS_MOE_ALGO_N];
	int nrows = 0, rc = 2;
	static const char *const dtypes[] = { "bf16", "fp8" };
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_STR, &topo, 0, 0, NULL, 0, NULL, NULL },
		{ "-c", CCS_ARGS_STR, &op_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-a", CCS_ARGS_STR, &algo_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-n", CCS_ARGS_INT, &nranks, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--ppn", CCS_ARGS_INT, &ppn, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--tokens", CCS_ARGS_INT, &cfg.tokens, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--hidden", CCS_ARGS_INT, &cfg.hidden, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--dtype", CCS_ARGS_NAME, &cfg.fp8, 0, 0, dtypes, 2, "dtype", NULL },
		{ "--topk", CCS_ARGS_INT, &cfg.topk, 1, 64, NULL, 0, NULL, NULL },
		{ "--experts", CCS_ARGS_INT, &cfg.experts, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--routing", CCS_ARGS_NAME, &cfg.dist, 0, 0, ccs_moe_dist_name, CCS_MOE_DIST_N, "routing", NULL },
		{ "--skew", CCS_ARGS_REAL, &cfg.skew, 1e-6, 10, NULL, 0, NULL, NULL },
		{ "--hot", CCS_ARGS_INT, &cfg.hot, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--hot-share", CCS_ARGS_REAL, &cfg.hot_share, 1e-9, 1 - 1e-9, NULL, 0, NULL, NULL },
		{ "--routing-trace", CCS_ARGS_STR, &trace_in, 0, 0, NULL, 0, NULL, NULL },
		{ "--expert-groups", CCS_ARGS_INT, &cfg.groups, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--topk-groups", CCS_ARGS_INT, &cfg.topk_groups, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--placement", CCS_ARGS_NAME, &cfg.place, 0, 0, ccs_moe_place_name, CCS_MOE_PLACE_N, "placement", NULL },
		{ "--replicas", CCS_ARGS_INT, &cfg.replicas, 0, 1 << 20, NULL, 0, NULL, NULL },
		{ "--seed", CCS_ARGS_FN, &cfg.seed, 0, 0, NULL, 0, NULL, take_seed },
		{ "--matrix", CCS_ARGS_STR, &matrix_path, 0, 0, NULL, 0, NULL, NULL },
		{ "--format", CCS_ARGS_STR, &format, 0, 0, NULL, 0, NULL, NULL },
		{ "--trace", CCS_ARGS_STR, &trace_path, 0, 0, NULL, 0, NULL, NULL },
	};

	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&sets, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		if (sim && !strcmp(a, "--links")) {
			links = 1;
			continue;
		}
		char what[48];
		snprintf(what, sizeof what, "-c %s", op_s ? op_s : "dispatch");
		/* --trace (last) is simulate's */
		if (ccs_args_take(me, what, opts, sizeof opts / sizeof opts[0] - !sim, argc, argv, &i))
			goto out;
	}
	if (!topo || !op_s) {
		fprintf(stderr, "%s: %s\n", me, !topo ? "missing -t TOPO" : "missing -c COLL");
		goto out;
	}
	int op = 0;
	if (want_name("collective", op_s, ccs_moe_op_name, CCS_MOE_OP_N, &op))
		goto out;
	if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv, json\n", me, format);
		goto out;
	}
	unsigned amask = (1u << CCS_MOE_ALGO_N) - 1;
	int pick_best = 0;
	if (!strcmp(algo_s, "auto"))
		pick_best = 1;
	else if (strcmp(algo_s, "all")) {
		int a = 0;
		if (want_name("algorithm", algo_s, ccs_moe_algo_name, CCS_MOE_ALGO_N, &a))
			goto out;
		amask = 1u << a;
	}
	if (op == CCS_MOE_ALLTOALLV) {
		amask &= (1u << CCS_MOE_DIRECT) | (1u << CCS_MOE_SCALEUP);
		if (!amask) {
			fprintf(stderr, "%s: alltoallv runs direct or scaleup\n", me);
			goto out;
		}
	}
	if (cfg.dist == CCS_MOE_TRACE && !trace_in) {
		fprintf(stderr, "%s: '--routing trace' needs --routing-trace FILE\n", me);
		goto out;
	}
	if (trace_in && cfg.dist != CCS_MOE_TRACE) {
		fprintf(stderr, "%s: --routing-trace goes with --routing trace\n", me);
		goto out;
	}

	rc = 1;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	if (ccs_topo_load(topo, (const char *const *)sets.v, sets.n, &t, &diag)) {
		fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: failed to load topology");
		goto out;
	}
	if (!sim && ccs_args_refuse_timed(me, t))
		goto out;
	char err[256];
	if (ccs_comm_build(t, nranks, ppn, &comm, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", me, err);
		goto out;
	}
	int n = comm.n;
	if (op == CCS_MOE_ALLTOALLV && matrix_path) {
		if (ccs_moe_matrix_load(matrix_path, n, &matrix, &diag)) {
			fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: out of memory");
			goto out;
		}
	} else {
		if (ccs_moe_check(&cfg, n, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", me, err);
			goto out;
		}
		if (trace_in && ccs_moe_trace_load(trace_in, n, cfg.tokens, cfg.topk, cfg.experts, &trace_ids, &diag)) {
			fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: out of memory");
			goto out;
		}
		if (ccs_moe_route(&cfg, &comm, trace_ids, &route)) {
			fprintf(stderr, "%s: out of memory\n", me);
			goto out;
		}
		if (op == CCS_MOE_ALLTOALLV) {
			/* the direct dispatch's bytes per pair */
			struct ccs_moe_plan dp;
			if (ccs_moe_plan(&comm, &cfg, &route, NULL, CCS_MOE_DISPATCH, CCS_MOE_DIRECT, &dp, err, sizeof err)) {
				fprintf(stderr, "%s: %s\n", me, err);
				goto out;
			}
			matrix = ccs_calloc((size_t)n * (size_t)n + 1, sizeof *matrix);
			if (!matrix) {
				ccs_moe_plan_release(&dp);
				fprintf(stderr, "%s: out of memory\n", me);
				goto out;
			}
			for (size_t i = 0; i < dp.nx; i++)
				matrix[(size_t)dp.x[i].src * (size_t)n + (size_t)dp.x[i].dst] += dp.x[i].tokens * dp.tok_bytes;
			ccs_moe_plan_release(&dp);
		}
	}

	char whybuf[256];
	for (int a = 0; a < CCS_MOE_ALGO_N; a++) {
		if (!(amask & (1u << a)))
			continue;
		struct ccs_moe_plan p;
		if (ccs_moe_plan(&comm, &cfg, &route, matrix, op, a, &p, whybuf, sizeof whybuf)) {
			if (amask == (1u << a)) {
				fprintf(stderr, "%s: %s %s on %s: %s\n", me, ccs_moe_algo_name[a], ccs_moe_op_name[op], t->name,
				        whybuf);
				goto out;
			}
			continue;
		}
		struct mrow *rw = &rows[nrows];
		memset(rw, 0, sizeof *rw);
		rw->algo = a;
		int erc = ccs_moe_eval(&comm, &p, &rw->mc);
		if (!erc && sim)
			erc = sim_plan(&comm, &fab, &p, rw, &last, trace_path) ? CCS_EINPUT : 0;
		ccs_moe_plan_release(&p);
		if (erc) {
			if (erc == CCS_ENOMEM)
				fprintf(stderr, "%s: out of memory\n", me);
			goto out;
		}
		nrows++;
	}
	if (!nrows) {
		fprintf(stderr, "%s: no algorithm applies to %s on %s\n", me, ccs_moe_op_name[op], t->name);
		goto out;
	}
	if (pick_best) {
		int b = 0;
		for (int i = 1; i < nrows; i++)
			if ((sim ? rows[i].sim_s : rows[i].mc.time_s) < (sim ? rows[b].sim_s : rows[b].mc.time_s))
				b = i;
		rows[0] = rows[b];
		nrows = 1;
	}

	double tb = op == CCS_MOE_ALLTOALLV ? 0 : ccs_moe_tok_bytes(cfg.hidden, cfg.fp8);
	if (!strcmp(format, "csv")) {
		printf("collective,algo,ranks,groups,time_us,send_max_B,send_mean_B,recv_max_B,recv_mean_B,imbalance,"
		       "scaleup_B,network_B,bottleneck_GBps,bound\n");
	} else if (!strcmp(format, "json")) {
		printf("{\n  \"collective\": \"%s\",\n  \"topology\": \"%s\",\n  \"ranks\": %d,\n  \"groups\": %d,\n"
		       "  \"engine\": \"%s\",\n  \"rows\": [", ccs_moe_op_name[op], t->name, n, comm.G, sim ? "sim" : "model");
	} else {
		printf("# %s: %s on %s: %d ranks in %d group%s of %d\n", me, ccs_moe_op_name[op], t->name, n, comm.G,
		       comm.G == 1 ? "" : "s", comm.p);
		if (op != CCS_MOE_ALLTOALLV || !matrix_path)
			printf("# %d tokens/rank, hidden %d, %s (%.0f B/token), top-%d of %d experts, %s routing%s, %s placement, "
			       "seed %llu\n", cfg.tokens, cfg.hidden, cfg.fp8 ? "fp8" : "bf16", tb, cfg.topk, cfg.experts,
			       ccs_moe_dist_name[cfg.dist], cfg.topk_groups ? " (group-limited)" : "",
			       ccs_moe_place_name[cfg.place], (unsigned long long)cfg.seed);
		else
			printf("# byte matrix %s\n", matrix_path);
		printf("#\n# %-14s %9s %9s %9s %9s %9s %6s %10s %10s %10s  %-8s\n", "algo", "time", "send max", "send mean",
		       "recv max", "recv mean", "imbal", "scale-up", "network", "bottleneck", "bound");
		printf("# %-14s %9s %9s %9s %9s %9s %6s %10s %10s %10s\n", "", "(us)", "(MB)", "(MB)", "(MB)", "(MB)", "",
		       "(MB)", "(MB)", "(GB/s)");
	}
	for (int i = 0; i < nrows; i++) {
		const struct mrow *rw = &rows[i];
		const struct ccs_moe_cost *m = &rw->mc;
		double T = sim ? rw->sim_s : m->time_s;
		int bound = sim ? rw->sim_bound : m->bound;
		double imb = m->recv_mean > 0 ? m->recv_max / m->recv_mean : 0;
		double bott = T > 0 ? m->logical_mean / T / 1e9 : 0;
		if (!strcmp(format, "csv"))
			printf("%s,%s,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", ccs_moe_op_name[op],
			       ccs_moe_algo_name[rw->algo], n, comm.G, T * 1e6, m->send_max, m->send_mean, m->recv_max,
			       m->recv_mean, imb, m->scaleup_bytes, m->net_bytes, bott, ccs_bound_name[bound]);
		else if (!strcmp(format, "json"))
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
	if (!strcmp(format, "json"))
		printf("\n  ]\n}\n");
	else if (!strcmp(format, "table"))
		printf("#\n");
	if (links && last && fab)
		ccs_report_links(fab, last, rows[nrows - 1].sim_s);
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_flows_free(last);
	ccs_fabric_free(fab);
	ccs_free(trace_ids);
	ccs_free(matrix);
	ccs_moe_routing_release(&route);
	ccs_comm_release(&comm);
	ccs_topo_free(t);
	ccs_args_sets_release(&sets);
	return rc;
}
