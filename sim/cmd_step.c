/*
** sim/cmd_step.c: `ccsim step`: the communication of one training step
** from a parallelism description (model/step.h), per group, in the closed
** form, the simulator or both.
**
** Each kind of group (TP, PP, DP) is timed on its first group, placed as
** Megatron places it (every group of a kind is alike on a regular
** cluster); a group's operations run one after another, so a step spends
** count x t_op on each.  With --layer-time T (forward of one layer for one
** micro-batch; backward takes 2T) the step is also put together (1F1B):
**   compute  3 T (L/PP) m            bubble  (PP - 1) 3 T (L/PP)
**   TP       on the critical path    PP      2 (PP - 1) t_pp (fill and drain)
**   DP       exposed beyond the last micro-batch's backward, 2 T (L/PP)
*/
#include "cli.h"

#include "../model/coll.h"
#include "../model/cost.h"
#include "../model/step.h"
#include "../model/topo_yaml.h"
#include "../model/units.h"
#include "engine.h"
#include "fabric.h"
#include "sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim step";

static void usage(FILE *f)
{
	fprintf(f, "usage: %s -t TOPO --tp N --pp N --dp N --layers L --hidden H --seq S [--micro-batch B]\n"
	           "       [--micro-batches M] [--params P] [--zero 0|1|2|3] [--layer-time T] [--engine model|sim|both]\n"
	           "  one training step's TP AllReduces, PP sends and DP gradient collectives (model/step.h),\n"
	           "  per group and per step; --layer-time (forward of one layer, one micro-batch) adds compute,\n"
	           "  the pipeline bubble and what communication stays exposed\n", me);
}

static int time_group(const struct ccs_topo *t, const struct ccs_step_cfg *sc, const struct ccs_step_coll *x, int sim,
                      double *tm, double *ts, char *algo, size_t an, int *bound, char *err, size_t errn)
{
	int n = x->kind == CCS_STEP_PP ? 2 : x->group_size;   /* a pipeline boundary is a pair */
	uint32_t *gpus = ccs_malloc((size_t)n * sizeof *gpus);
	if (!gpus)
		return CCS_ENOMEM;
	for (int i = 0; i < n; i++)
		gpus[i] = (uint32_t)ccs_step_rank(sc, x->kind, 0, i);
	struct ccs_comm c;
	int rc = ccs_comm_build_gpus(t, gpus, n, &c, err, errn);
	ccs_free(gpus);
	if (rc)
		return rc;
	int a, q;
	struct ccs_cost cc;
	if (ccs_select(&c, x->coll, x->bytes, ~0u, ~0u, 1, &a, &q) || ccs_cost_eval(&c, x->coll, a, q, 0, x->bytes, &cc, NULL)) {
		snprintf(err, errn, "no algorithm applies to %s of %llu bytes on %d ranks", ccs_coll_name[x->coll],
		         (unsigned long long)x->bytes, n);
		ccs_comm_release(&c);
		return CCS_EINPUT;
	}
	*tm = cc.time_s;
	*bound = cc.bound;
	snprintf(algo, an, "%s/%s", ccs_algo_name[a], ccs_proto_name[q]);
	*ts = NAN;
	if (sim) {
		struct ccs_sched s;
		const char *why = NULL;
		struct ccs_fabric *fab = NULL;
		struct ccs_sim_stats st;
		if (x->coll == CCS_COLL_SENDRECV) {
			/* a pipeline send: one transfer between the pair after the
			 * closed form's fixed latency */
			struct ccs_dag *dag = NULL;
			struct ccs_op op;
			memset(&op, 0, sizeof op);
			op.kind = CCS_OP_XFER;
			op.src = 0;
			op.dst = 1;
			op.nic_src = op.nic_dst = UINT32_MAX;
			op.bytes = (double)x->bytes;
			op.delay_s = cc.lat_s;
			uint32_t id;
			rc = ccs_dag_new(&dag);
			if (!rc)
				rc = ccs_dag_op(dag, &op, &id);
			if (!rc)
				rc = ccs_dag_take(&dag, &s, &why);
			ccs_dag_free(dag);
		} else {
			/* NCCL's pick, or its next choice that has a schedule */
			int sa = a, sq = q;
			rc = ccs_sched_build_next(&c, x->coll, x->bytes, ~0u, ~0u, &sa, &sq, &s, &why);
		}
		if (rc) {
			snprintf(err, errn, "%s", why ? why : "no schedule");
		} else {
			rc = ccs_fabric_new(&c, &fab);
			if (!rc)
				rc = ccs_sim_run(fab, &s, &st, NULL, err, errn);
			if (!rc)
				*ts = st.time_s;
			ccs_fabric_free(fab);
			s.release(&s);
		}
	}
	ccs_comm_release(&c);
	return rc;
}

int ccs_cmd_step(int argc, char **argv)
{
	struct ccs_step_cfg sc;
	memset(&sc, 0, sizeof sc);
	sc.micro_batch = 1;
	sc.micro_batches = 1;
	const char *topo = NULL, *engine_s = "model";
	double layer_t = 0;
	struct ccs_sets sets;
	ccs_sets_init(&sets);
	int rc = 2;
	struct ccs_topo *t = NULL;
	static const char *const names[] = { "-t", "--tp", "--pp", "--dp", "--layers", "--hidden", "--seq", "--micro-batch",
	                                     "--micro-batches", "--params", "--zero", "--layer-time", "--engine" };
	for (int i = 1; i < argc; i++) {
		int r = ccs_sets_arg(&sets, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		const char *v;
		if (ccs_arg_value("ccsim", "step", argc, argv, &i, names, sizeof names / sizeof *names, &v))
			goto out;
		const char *a = argv[i - 1];
		int x = 0;
		double d = 0;
		if (!strcmp(a, "-t"))
			topo = v;
		else if (!strcmp(a, "--engine"))
			engine_s = v;
		else if (!strcmp(a, "--params")) {
			if (ccs_arg_real(me, a, v, 1, 1e15, &d))
				goto out;
			sc.params = d;
		} else if (!strcmp(a, "--layer-time")) {
			char e2[128];
			if (ccs_parse_qty(v, CCS_QTY_TIME, &layer_t, e2, sizeof e2)) {
				fprintf(stderr, "%s: --layer-time: %s\n", me, e2);
				goto out;
			}
		} else {
			if (ccs_arg_int(me, a, v, !strcmp(a, "--zero") ? 0 : 1, !strcmp(a, "--zero") ? 3 : 1 << 30, &x))
				goto out;
			if (!strcmp(a, "--tp"))
				sc.tp = x;
			else if (!strcmp(a, "--pp"))
				sc.pp = x;
			else if (!strcmp(a, "--dp"))
				sc.dp = x;
			else if (!strcmp(a, "--layers"))
				sc.layers = x;
			else if (!strcmp(a, "--hidden"))
				sc.hidden = x;
			else if (!strcmp(a, "--seq"))
				sc.seq = x;
			else if (!strcmp(a, "--micro-batch"))
				sc.micro_batch = x;
			else if (!strcmp(a, "--micro-batches"))
				sc.micro_batches = x;
			else
				sc.zero = x;
		}
	}
	int engine = !strcmp(engine_s, "model") ? 0 : !strcmp(engine_s, "sim") ? 1 : !strcmp(engine_s, "both") ? 2 : -1;
	if (!topo || !sc.tp || !sc.pp || !sc.dp || !sc.layers || !sc.hidden || !sc.seq || engine < 0) {
		usage(stderr);
		goto out;
	}
	rc = 1;
	struct ccs_step_coll cl[8];
	int ncl;
	char err[512];
	if (ccs_step_expand(&sc, cl, &ncl, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", me, err);
		goto out;
	}
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	if (ccs_topo_load(topo, (const char *const *)sets.v, sets.n, &t, &diag)) {
		fprintf(stderr, "%s\n", diag.msg);
		goto out;
	}
	if (ccs_refuse_timed("ccsim step", t))
		goto out;
	int n = sc.tp * sc.pp * sc.dp;
	if ((uint32_t)n > t->ngpu) {
		fprintf(stderr, "%s: TP x PP x DP = %d ranks, but %s has %u gpus\n", me, n, t->name, t->ngpu);
		goto out;
	}
	double P = sc.params > 0 ? sc.params : 12.0 * sc.layers * (double)sc.hidden * (double)sc.hidden;
	printf("# %s: TP=%d PP=%d DP=%d on %s (%d of %u gpus), %d layers, hidden %ld, seq %ld, micro-batch %ld x %ld, %.4g params, ZeRO-%d\n",
	       me, sc.tp, sc.pp, sc.dp, t->name, n, t->ngpu, sc.layers, sc.hidden, sc.seq, sc.micro_batch, sc.micro_batches,
	       P, sc.zero);
	printf("# %-5s %-14s %14s %8s %6s %7s %-18s %13s %13s %13s  %s\n", "group", "collective", "bytes", "count", "size",
	       "groups", "algo", "model op (us)", "sim op (us)", "step (ms)", "bound");
	double per_kind[CCS_STEP_KINDS] = { 0 }, t_pp = 0;
	static const char *const kind_name[] = { "TP", "PP", "DP" };
	const char *worst = NULL;
	double worst_t = -1;
	for (int i = 0; i < ncl; i++) {
		double tm, ts;
		char algo[48];
		int bound;
		int r = time_group(t, &sc, &cl[i], engine != 0, &tm, &ts, algo, sizeof algo, &bound, err, sizeof err);
		if (r) {
			fprintf(stderr, "%s: %s group: %s\n", me, kind_name[cl[i].kind], r == CCS_ENOMEM ? "out of memory" : err);
			goto out;
		}
		double op = engine == 1 ? ts : tm;
		double step = op * (double)cl[i].count;
		per_kind[cl[i].kind] += step;
		if (cl[i].kind == CCS_STEP_PP)
			t_pp = op;
		if (step > worst_t) {
			worst_t = step;
			worst = kind_name[cl[i].kind];
		}
		char sims[32];
		if (ts == ts)
			snprintf(sims, sizeof sims, "%.2f", ts * 1e6);
		else
			snprintf(sims, sizeof sims, "-");
		printf("  %-5s %-14s %14llu %8llu %6d %7d %-18s %13.2f %13s %13.3f  %s\n", kind_name[cl[i].kind],
		       ccs_coll_cli[cl[i].coll], (unsigned long long)cl[i].bytes, (unsigned long long)cl[i].count,
		       cl[i].group_size, cl[i].groups, algo, tm * 1e6, sims, step * 1e3, ccs_bound_name[bound]);
	}
	printf("# communication per step (%s): TP %.3f ms, PP %.3f ms, DP %.3f ms; the %s groups take the most\n",
	       engine == 1 ? "simulator" : "closed form", per_kind[0] * 1e3, per_kind[1] * 1e3, per_kind[2] * 1e3,
	       worst ? worst : "-");
	if (layer_t > 0) {
		double lps = (double)(sc.layers / sc.pp), m = (double)sc.micro_batches;
		double compute = 3 * layer_t * lps * m, bubble = (sc.pp - 1) * 3 * layer_t * lps;
		double pp_exp = 2.0 * (sc.pp - 1) * t_pp, dp_exp = fmax(0, per_kind[2] - 2 * layer_t * lps);
		double step = compute + bubble + per_kind[0] + pp_exp + dp_exp;
		printf("# step with --layer-time %.4g us (1F1B): compute %.3f ms + bubble %.3f ms + TP %.3f ms + PP exposed %.3f ms"
		       " + DP exposed %.3f ms = %.3f ms; communication exposed %.1f%%\n",
		       layer_t * 1e6, compute * 1e3, bubble * 1e3, per_kind[0] * 1e3, pp_exp * 1e3, dp_exp * 1e3, step * 1e3,
		       100 * (per_kind[0] + pp_exp + dp_exp) / step);
	}
	rc = ccs_flush_stdout() ? 1 : 0;
out:
	ccs_topo_free(t);
	ccs_sets_release(&sets);
	return rc;
}
