/*
** sim/cli/cmd_step.c: `ccsim step`: the communication of one training step or
** one inference forward pass from a parallelism description
** (model/step.h), per group, in the closed form, the simulator or both.
**
** Each kind of group (TP, CP, EP, PP, DP, expert DP) is timed on its first
** group, placed as Megatron places it (every group of a kind is alike on a
** regular cluster); a group's operations run one after another, so a step
** spends count x t_op on each.  With --layer-time T (forward of one layer
** for one micro-batch; backward takes 2T) the step is also put together:
** training (1F1B)
**   compute  3 T (L/PP) m            bubble  (PP - 1) 3 T (L/PP)
**   TP, CP, EP on the critical path  PP      2 (PP - 1) t_pp (fill and drain)
**   DP, EDP  exposed beyond the last micro-batch's backward, 2 T (L/PP)
** inference: one micro-batch's forward pass through every stage,
**   T L + PP x (TP + CP + EP per micro-batch and stage) + (PP - 1) t_pp.
*/
#include "cli.h"

#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/step.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"
#include "../sim.h"
#include "../report.h"
#include "../fabric.h"
#include "../sched/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim step";

static void usage(FILE *f)
{
	fprintf(f, "usage: %s -t TOPO --tp N --pp N --dp N --layers L --hidden H --seq S [--micro-batch B]\n"
	           "       [--micro-batches M] [--params P] [--zero 0|1|2|3] [--cp N] [--ep N [--topk K]\n"
	           "       [--moe-every K] [--expert-params P]] [--kv-hidden D] [--phase train|prefill|decode]\n"
	           "       [--layer-time T] [--engine model|sim|both] [--all-groups]\n"
	           "  one training step's (or, with --phase prefill|decode, one forward pass's) TP AllReduces,\n"
	           "  CP key/value gathers, EP token AllToAlls, PP sends and DP and expert-DP gradient collectives\n"
	           "  (model/step.h), per group and per step; --layer-time (forward of one layer, one micro-batch)\n"
	           "  adds compute, the pipeline bubble and what communication stays exposed; --all-groups\n"
	           "  simulates every group of a kind at once on one fabric (their traffic meets on shared\n"
	           "  links) and reports the slowest, instead of the first group alone\n", me);
}

/* The schedule of one group's collective (c its communicator): a pipeline
 * send is one transfer between the pair after the closed form's fixed
 * latency; else NCCL's pick, or its next choice that has a schedule. */
static int group_sched(const struct ccs_comm *c, const struct ccs_step_coll *x, int a, int q, double lat_s,
                       struct ccs_sched *s, const char **why)
{
	if (x->coll != CCS_COLL_SENDRECV)
		return ccs_sched_build_next(c, x->coll, x->bytes, ~0u, ~0u, &a, &q, s, why);
	struct ccs_dag *dag = NULL;
	struct ccs_op op;
	memset(&op, 0, sizeof op);
	op.kind = CCS_OP_XFER;
	op.src = 0;
	op.dst = 1;
	op.nic_src = op.nic_dst = UINT32_MAX;
	op.bytes = (double)x->bytes;
	op.delay_s = lat_s;
	uint32_t id;
	int rc = ccs_dag_new(&dag);
	if (!rc)
		rc = ccs_dag_op(dag, &op, &id);
	if (!rc)
		rc = ccs_dag_take(&dag, s, why);
	ccs_dag_free(dag);
	return rc;
}

/* Every group of x's kind at once on one fabric (the step's GPUs, one rank
 * each; a pipeline kind's first boundary of every chain): *ts the slowest
 * group's time, the busiest link of the run into link. */
static int time_all(const struct ccs_topo *t, const struct ccs_step_cfg *sc, const struct ccs_step_coll *x, int a,
                    int q, double lat_s, double *ts, char *link, size_t ln, char *err, size_t errn)
{
	int G = x->groups, n = x->kind == CCS_STEP_PP ? 2 : x->group_size;
	int world_n = x->groups * x->group_size;
	struct ccs_comm world, *gc = ccs_calloc((size_t)G, sizeof *gc);
	struct ccs_sched *parts = ccs_calloc((size_t)G, sizeof *parts), all;
	double *end_s = ccs_calloc((size_t)G, sizeof *end_s);
	uint32_t *gpus = ccs_malloc((size_t)n * sizeof *gpus);
	struct ccs_fabric *fab = NULL;
	struct ccs_flows *fl = NULL;
	int rc = CCS_ENOMEM, built = 0, nparts = 0, have_world = 0, concat = 0;
	memset(&all, 0, sizeof all);
	if (!gc || !parts || !end_s || !gpus)
		goto out;
	if ((rc = ccs_comm_build(t, world_n, 0, &world, err, errn)))
		goto out;
	have_world = 1;
	for (; built < G; built++) {
		for (int i = 0; i < n; i++)
			gpus[i] = (uint32_t)ccs_step_rank(sc, x->kind, built, i);
		if ((rc = ccs_comm_build_gpus(t, gpus, n, &gc[built], err, errn)))
			goto out;
	}
	for (; nparts < G; nparts++) {
		struct ccs_sched in;
		const char *why = NULL;
		if ((rc = group_sched(&gc[nparts], x, a, q, lat_s, &in, &why))) {
			snprintf(err, errn, "%s", why ? why : "no schedule");
			goto out;
		}
		/* world rank = GPU index: the step's GPUs are the first world_n */
		if ((rc = ccs_sched_remap(&in, gc[nparts].rank_gpu, &parts[nparts])))
			goto out;
	}
	rc = ccs_sched_concat(parts, G, &all);
	nparts = 0;                     /* taken over (or released) */
	if (rc)
		goto out;
	concat = 1;
	struct ccs_part_ends e = { &all, end_s };
	struct ccs_sim_hooks h;
	memset(&h, 0, sizeof h);
	h.ctx = &e;
	h.op_end = ccs_part_ends_op_end;
	struct ccs_sim_stats st;
	if ((rc = ccs_fabric_new(&world, &fab)) || (rc = ccs_sim_run_hooked(fab, &all, &st, &fl, &h, err, errn)))
		goto out;
	*ts = 0;
	for (int g = 0; g < G; g++)
		if (end_s[g] > *ts)
			*ts = end_s[g];
	double u;
	if (!ccs_report_busiest(fab, fl, st.time_s, link, ln, &u) && strlen(link) + 8 < ln)
		snprintf(link + strlen(link), ln - strlen(link), " %.0f%%", 100 * u);
out:
	ccs_flows_free(fl);
	ccs_fabric_free(fab);
	if (concat)
		ccs_sched_release(&all);
	for (int g = 0; g < nparts; g++)
		ccs_sched_release(&parts[g]);
	for (int g = 0; g < built; g++)
		ccs_comm_release(&gc[g]);
	if (have_world)
		ccs_comm_release(&world);
	ccs_free(gc);
	ccs_free(parts);
	ccs_free(end_s);
	ccs_free(gpus);
	return rc;
}

static int time_group(const struct ccs_topo *t, const struct ccs_step_cfg *sc, const struct ccs_step_coll *x, int sim,
                      int all, double *tm, double *ts, char *algo, size_t an, int *bound, char *link, size_t ln,
                      char *err, size_t errn)
{
	snprintf(link, ln, "-");
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
	if (sim && all)
		rc = time_all(t, sc, x, a, q, cc.lat_s, ts, link, ln, err, errn);
	else if (sim) {
		struct ccs_sched s;
		const char *why = NULL;
		struct ccs_fabric *fab = NULL;
		struct ccs_sim_stats st;
		rc = group_sched(&c, x, a, q, cc.lat_s, &s, &why);
		if (rc) {
			snprintf(err, errn, "%s", why ? why : "no schedule");
		} else {
			struct ccs_flows *fl = NULL;
			rc = ccs_fabric_new(&c, &fab);
			if (!rc)
				rc = ccs_sim_run(fab, &s, &st, &fl, err, errn);
			if (!rc) {
				double u;
				*ts = st.time_s;
				if (!ccs_report_busiest(fab, fl, st.time_s, link, ln, &u) && strlen(link) + 8 < ln)
					snprintf(link + strlen(link), ln - strlen(link), " %.0f%%", 100 * u);
			}
			ccs_flows_free(fl);
			ccs_fabric_free(fab);
			ccs_sched_release(&s);
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
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	int rc = 2;
	struct ccs_topo *t = NULL;
	static const char *const names[] = { "-t", "--tp", "--pp", "--dp", "--layers", "--hidden", "--seq", "--micro-batch",
	                                     "--micro-batches", "--params", "--zero", "--layer-time", "--engine", "--cp",
	                                     "--ep", "--topk", "--moe-every", "--kv-hidden", "--expert-params", "--phase" };
	const char *phase_s = "train";
	int all_groups = 0;
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&sets, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		if (!strcmp(argv[i], "--all-groups")) {
			all_groups = 1;
			continue;
		}
		const char *v;
		if (ccs_args_value("ccsim", "step", argc, argv, &i, names, sizeof names / sizeof *names, &v))
			goto out;
		const char *a = argv[i - 1];
		int x = 0;
		double d = 0;
		if (!strcmp(a, "-t"))
			topo = v;
		else if (!strcmp(a, "--engine"))
			engine_s = v;
		else if (!strcmp(a, "--phase"))
			phase_s = v;
		else if (!strcmp(a, "--params") || !strcmp(a, "--expert-params")) {
			if (ccs_args_real(me, a, v, 1, 1e15, &d))
				goto out;
			if (!strcmp(a, "--params"))
				sc.params = d;
			else
				sc.expert_params = d;
		} else if (!strcmp(a, "--layer-time")) {
			char e2[128];
			if (ccs_parse_qty(v, CCS_QTY_TIME, &layer_t, e2, sizeof e2)) {
				fprintf(stderr, "%s: --layer-time: %s\n", me, e2);
				goto out;
			}
		} else {
			if (ccs_args_int(me, a, v, !strcmp(a, "--zero") ? 0 : 1, !strcmp(a, "--zero") ? 3 : 1 << 30, &x))
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
			else if (!strcmp(a, "--cp"))
				sc.cp = x;
			else if (!strcmp(a, "--ep"))
				sc.ep = x;
			else if (!strcmp(a, "--topk"))
				sc.topk = x;
			else if (!strcmp(a, "--moe-every"))
				sc.moe_every = x;
			else if (!strcmp(a, "--kv-hidden"))
				sc.kv_hidden = x;
			else
				sc.zero = x;
		}
	}
	int engine = !strcmp(engine_s, "model") ? 0 : !strcmp(engine_s, "sim") ? 1 : !strcmp(engine_s, "both") ? 2 : -1;
	sc.phase = !strcmp(phase_s, "train") ? CCS_STEP_TRAIN : !strcmp(phase_s, "prefill") ? CCS_STEP_PREFILL
	         : !strcmp(phase_s, "decode") ? CCS_STEP_DECODE : -1;
	if (all_groups && engine == 0) {
		fprintf(stderr, "%s: --all-groups runs every group at once in the simulator (--engine sim or both)\n", me);
		goto out;
	}
	if (sc.phase < 0) {
		fprintf(stderr, "%s: --phase '%s': train, prefill or decode\n", me, phase_s);
		goto out;
	}
	if (!topo || !sc.tp || !sc.pp || !sc.dp || !sc.layers || !sc.hidden || !sc.seq || engine < 0) {
		usage(stderr);
		goto out;
	}
	rc = 1;
	struct ccs_step_coll cl[CCS_STEP_MAXCOLL];
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
	if (ccs_args_refuse_timed("ccsim step", t))
		goto out;
	int CP = sc.cp > 1 ? sc.cp : 1, EP = sc.ep > 1 ? sc.ep : 1;
	long long nn = (long long)sc.tp * CP * sc.pp * sc.dp;
	if (nn > (long long)t->ngpu) {
		fprintf(stderr, "%s: TP x CP x PP x DP = %lld ranks, but %s has %u gpus\n", me, nn, t->name, t->ngpu);
		goto out;
	}
	int n = (int)nn;
	double P = sc.params > 0 ? sc.params : 12.0 * sc.layers * (double)sc.hidden * (double)sc.hidden;
	printf("# %s: TP=%d PP=%d DP=%d", me, sc.tp, sc.pp, sc.dp);
	if (CP > 1)
		printf(" CP=%d", CP);
	if (EP > 1)
		printf(" EP=%d (top-%d, MoE layers 1 in %d, %.4g expert params)", EP, sc.topk > 0 ? sc.topk : 2,
		       sc.moe_every > 1 ? sc.moe_every : 1, sc.expert_params);
	printf(" on %s (%d of %u gpus), %d layers, hidden %ld, seq %ld, micro-batch %ld x %ld, %.4g params, %s\n",
	       t->name, n, t->ngpu, sc.layers, sc.hidden, sc.seq, sc.micro_batch, sc.micro_batches, P,
	       sc.phase == CCS_STEP_TRAIN ? (sc.zero == 0 ? "ZeRO-0" : sc.zero == 1 ? "ZeRO-1" : sc.zero == 2 ? "ZeRO-2" : "ZeRO-3")
	       : sc.phase == CCS_STEP_PREFILL ? "inference prefill" : "inference decode");
	if (all_groups)
		printf("# sim op: every group of a kind at once on one fabric (pipeline: every chain's first boundary), the slowest\n");
	printf("# %-5s %-14s %14s %8s %6s %7s %-18s %13s %13s %13s  %-8s %s\n", "group", "collective", "bytes", "count",
	       "size", "groups", "algo", "model op (us)", "sim op (us)", "step (ms)", "bound", "busiest link (sim, mean use)");
	double per_kind[CCS_STEP_KINDS] = { 0 }, t_pp = 0;
	const char *const *kind_name = ccs_step_kind_name;
	const char *worst = NULL;
	double worst_t = -1;
	for (int i = 0; i < ncl; i++) {
		double tm, ts;
		char algo[48];
		int bound;
		char link[160];
		int r = time_group(t, &sc, &cl[i], engine != 0, all_groups, &tm, &ts, algo, sizeof algo, &bound, link,
		                   sizeof link, err, sizeof err);
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
		printf("  %-5s %-14s %14llu %8llu %6d %7d %-18s %13.2f %13s %13.3f  %-8s %s\n", kind_name[cl[i].kind],
		       ccs_coll_cli[cl[i].coll], (unsigned long long)cl[i].bytes, (unsigned long long)cl[i].count,
		       cl[i].group_size, cl[i].groups, algo, tm * 1e6, sims, step * 1e3, ccs_bound_name[bound], link);
	}
	printf("# communication per %s (%s):", sc.phase == CCS_STEP_TRAIN ? "step" : "pass of the micro-batches",
	       engine == 1 ? "simulator" : "closed form");
	const char *sep = " ";
	for (int k = 0; k < CCS_STEP_KINDS; k++)
		if (per_kind[k] > 0) {
			printf("%s%s %.3f ms", sep, kind_name[k], per_kind[k] * 1e3);
			sep = ", ";
		}
	printf("; the %s groups take the most\n", worst ? worst : "-");
	double crit = per_kind[CCS_STEP_TP] + per_kind[CCS_STEP_CP] + per_kind[CCS_STEP_EP];
	if (layer_t > 0 && sc.phase == CCS_STEP_TRAIN) {
		double lps = (double)(sc.layers / sc.pp), m = (double)sc.micro_batches;
		double compute = 3 * layer_t * lps * m, bubble = (sc.pp - 1) * 3 * layer_t * lps;
		double pp_exp = 2.0 * (sc.pp - 1) * t_pp;
		double dp_exp = fmax(0, per_kind[CCS_STEP_DP] + per_kind[CCS_STEP_EDP] - 2 * layer_t * lps);
		double step = compute + bubble + crit + pp_exp + dp_exp;
		printf("# step with --layer-time %.4g us (1F1B): compute %.3f ms + bubble %.3f ms + TP/CP/EP %.3f ms + PP exposed %.3f ms"
		       " + DP exposed %.3f ms = %.3f ms; communication exposed %.1f%%\n",
		       layer_t * 1e6, compute * 1e3, bubble * 1e3, crit * 1e3, pp_exp * 1e3, dp_exp * 1e3, step * 1e3,
		       100 * (crit + pp_exp + dp_exp) / step);
	} else if (layer_t > 0) {
		/* one micro-batch through every stage */
		double m = (double)sc.micro_batches;
		double compute = layer_t * sc.layers, comm = crit / m * sc.pp + (sc.pp - 1) * t_pp;
		printf("# forward pass with --layer-time %.4g us: compute %.3f ms + TP/CP/EP %.3f ms + PP %.3f ms = %.3f ms;"
		       " communication %.1f%%\n", layer_t * 1e6, compute * 1e3, crit / m * sc.pp * 1e3,
		       (sc.pp - 1) * t_pp * 1e3, (compute + comm) * 1e3, 100 * comm / (compute + comm));
	}
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_topo_free(t);
	ccs_args_sets_release(&sets);
	return rc;
}
