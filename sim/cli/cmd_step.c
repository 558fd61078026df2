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
#include "../sched/build.h"
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
	snprintf(algo, an, "%s/%s", ccs_algo_desc[a].name, ccs_proto_name[q]);
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

/* --layer-time: a time with its unit */
static int take_layer_time(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char e2[128];
	if (ccs_parse_qty(v, CCS_QTY_TIME, o->dest, e2, sizeof e2)) {
		fprintf(stderr, "%s: --layer-time: %s\n", me_, e2);
		return -1;
	}
	return 0;
}

/* a whole number in [lo, hi] into a long */
static int take_long(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	int x;
	if (ccs_args_int(me_, o->flag, v, (long)o->lo, (long)o->hi, &x))
		return -1;
	*(long *)o->dest = x;
	return 0;
}

/* A step's request: the parallel layout and model, the topology, and each
 * group's collectives with their times. */
struct step_req {
	struct ccs_step_cfg sc;
	const char *topo, *engine_s, *phase_s;
	double layer_t;
	int all_groups, engine, n, CP, EP, ncl;
	struct ccs_args_sets sets;
	struct ccs_topo *t;
	struct ccs_step_coll cl[CCS_STEP_MAXCOLL];
	char err[512];
	double P, per_kind[CCS_STEP_KINDS], t_pp, worst_t;
	const char *worst;
};

/* The options: 0, 1 after --help, -1 after a message. */
static int st_parse(struct step_req *q, int argc, char **argv)
{

	const struct ccs_args_opt opts[] = {
		{ "--all-groups", CCS_ARGS_FLAG, &q->all_groups, 0, 0, NULL, 0, NULL, NULL },
		{ "-t", CCS_ARGS_STR, &q->topo, 0, 0, NULL, 0, NULL, NULL },
		{ "--engine", CCS_ARGS_STR, &q->engine_s, 0, 0, NULL, 0, NULL, NULL },
		{ "--phase", CCS_ARGS_STR, &q->phase_s, 0, 0, NULL, 0, NULL, NULL },
		{ "--params", CCS_ARGS_REAL, &q->sc.params, 1, 1e15, NULL, 0, NULL, NULL },
		{ "--expert-params", CCS_ARGS_REAL, &q->sc.expert_params, 1, 1e15, NULL, 0, NULL, NULL },
		{ "--layer-time", CCS_ARGS_FN, &q->layer_t, 0, 0, NULL, 0, NULL, take_layer_time },
		{ "--zero", CCS_ARGS_INT, &q->sc.zero, 0, 3, NULL, 0, NULL, NULL },
		{ "--tp", CCS_ARGS_INT, &q->sc.tp, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--pp", CCS_ARGS_INT, &q->sc.pp, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--dp", CCS_ARGS_INT, &q->sc.dp, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--layers", CCS_ARGS_INT, &q->sc.layers, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--hidden", CCS_ARGS_FN, &q->sc.hidden, 1, 1 << 30, NULL, 0, NULL, take_long },
		{ "--seq", CCS_ARGS_FN, &q->sc.seq, 1, 1 << 30, NULL, 0, NULL, take_long },
		{ "--micro-batch", CCS_ARGS_FN, &q->sc.micro_batch, 1, 1 << 30, NULL, 0, NULL, take_long },
		{ "--micro-batches", CCS_ARGS_FN, &q->sc.micro_batches, 1, 1 << 30, NULL, 0, NULL, take_long },
		{ "--cp", CCS_ARGS_INT, &q->sc.cp, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--ep", CCS_ARGS_INT, &q->sc.ep, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--topk", CCS_ARGS_INT, &q->sc.topk, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--moe-every", CCS_ARGS_INT, &q->sc.moe_every, 1, 1 << 30, NULL, 0, NULL, NULL },
		{ "--kv-hidden", CCS_ARGS_FN, &q->sc.kv_hidden, 1, 1 << 30, NULL, 0, NULL, take_long },
	};
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_shared(&q->sets, argc, argv, &i, usage);
		if (r == CCS_ARGS_TOOK)
			continue;
		if (r)
			return r < 0 ? -1 : 1;   /* an error, or help printed */
		/* unknown options and missing values are the command line's ("ccsim") */
		const struct ccs_args_opt *o = ccs_args_find(opts, sizeof opts / sizeof opts[0], argv[i]);
		if (!o) {
			ccs_args_unknown("ccsim", "step", argv[i]);
			return -1;
		}
		if (o->kind != CCS_ARGS_FLAG && i + 1 >= argc) {
			fprintf(stderr, "ccsim: '%s' needs a value\n", argv[i]);
			return -1;
		}
		if (ccs_args_store(me, o, argc, argv, &i))
			return -1;
	}
	return 0;
}

/* What must be given, and engine and phase by name. */
static int st_check(struct step_req *q)
{

	q->engine = !strcmp(q->engine_s, "model") ? 0 : !strcmp(q->engine_s, "sim") ? 1 : !strcmp(q->engine_s, "both") ? 2 : -1;
	q->sc.phase = !strcmp(q->phase_s, "train") ? CCS_STEP_TRAIN : !strcmp(q->phase_s, "prefill") ? CCS_STEP_PREFILL
	         : !strcmp(q->phase_s, "decode") ? CCS_STEP_DECODE : -1;
	if (q->all_groups && q->engine == 0) {
		fprintf(stderr, "%s: --all-groups runs every group at once in the simulator (--engine sim or both)\n", me);
		return -1;
	}
	if (q->sc.phase < 0) {
		fprintf(stderr, "%s: --phase '%s': train, prefill or decode\n", me, q->phase_s);
		return -1;
	}
	if (!q->topo || !q->sc.tp || !q->sc.pp || !q->sc.dp || !q->sc.layers || !q->sc.hidden || !q->sc.seq || q->engine < 0) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The step's collectives per group, and the topology that must hold
 * the ranks. */
static int st_setup(struct step_req *q)
{

	if (ccs_step_expand(&q->sc, q->cl, &q->ncl, q->err, sizeof q->err)) {
		fprintf(stderr, "%s: %s\n", me, q->err);
		return -1;
	}
	if (ccs_args_topo(me, q->topo, &q->sets, &q->t))
		return -1;
	q->CP = q->sc.cp > 1 ? q->sc.cp : 1, q->EP = q->sc.ep > 1 ? q->sc.ep : 1;
	long long nn = (long long)q->sc.tp * q->CP * q->sc.pp * q->sc.dp;
	if (nn > (long long)q->t->ngpu) {
		fprintf(stderr, "%s: TP x CP x PP x DP = %lld ranks, but %s has %u gpus\n", me, nn, q->t->name, q->t->ngpu);
		return -1;
	}
	q->n = (int)nn;
	return 0;
}

/* The header: the layout, the model and the columns. */
static int st_header(struct step_req *q)
{

	q->P = q->sc.params > 0 ? q->sc.params : 12.0 * q->sc.layers * (double)q->sc.hidden * (double)q->sc.hidden;
	printf("# %s: TP=%d PP=%d DP=%d", me, q->sc.tp, q->sc.pp, q->sc.dp);
	if (q->CP > 1)
		printf(" CP=%d", q->CP);
	if (q->EP > 1)
		printf(" EP=%d (top-%d, MoE layers 1 in %d, %.4g expert params)", q->EP, q->sc.topk > 0 ? q->sc.topk : 2,
		       q->sc.moe_every > 1 ? q->sc.moe_every : 1, q->sc.expert_params);
	printf(" on %s (%d of %u gpus), %d layers, hidden %ld, seq %ld, micro-batch %ld x %ld, %.4g params, %s\n",
	       q->t->name, q->n, q->t->ngpu, q->sc.layers, q->sc.hidden, q->sc.seq, q->sc.micro_batch, q->sc.micro_batches, q->P,
	       q->sc.phase == CCS_STEP_TRAIN ? (q->sc.zero == 0 ? "ZeRO-0" : q->sc.zero == 1 ? "ZeRO-1" : q->sc.zero == 2 ? "ZeRO-2" : "ZeRO-3")
	       : q->sc.phase == CCS_STEP_PREFILL ? "inference prefill" : "inference decode");
	if (q->all_groups)
		printf("# sim op: every group of a kind at once on one fabric (pipeline: every chain's first boundary), the slowest\n");
	printf("# %-5s %-14s %14s %8s %6s %7s %-18s %13s %13s %13s  %-8s %s\n", "group", "collective", "bytes", "count",
	       "size", "groups", "algo", "model op (us)", "sim op (us)", "step (ms)", "bound", "busiest link (sim, mean use)");
	return 0;
}

/* One line per group's collective: its op in the closed form and the
 * simulator, its share of the step, its bound and busiest link. */
static int st_groups(struct step_req *q)
{
	const char *const *kind_name = ccs_step_kind_name;


	q->worst = NULL;
	q->worst_t = -1;
	for (int i = 0; i < q->ncl; i++) {
		double tm, ts;
		char algo[48];
		int bound;
		char link[160];
		int r = time_group(q->t, &q->sc, &q->cl[i], q->engine != 0, q->all_groups, &tm, &ts, algo, sizeof algo, &bound, link,
		                   sizeof link, q->err, sizeof q->err);
		if (r) {
			fprintf(stderr, "%s: %s group: %s\n", me, kind_name[q->cl[i].kind], r == CCS_ENOMEM ? "out of memory" : q->err);
			return -1;
		}
		double op = q->engine == 1 ? ts : tm;
		double step = op * (double)q->cl[i].count;
		q->per_kind[q->cl[i].kind] += step;
		if (q->cl[i].kind == CCS_STEP_PP)
			q->t_pp = op;
		if (step > q->worst_t) {
			q->worst_t = step;
			q->worst = kind_name[q->cl[i].kind];
		}
		char sims[32];
		if (ts == ts)
			snprintf(sims, sizeof sims, "%.2f", ts * 1e6);
		else
			snprintf(sims, sizeof sims, "-");
		printf("  %-5s %-14s %14llu %8llu %6d %7d %-18s %13.2f %13s %13.3f  %-8s %s\n", kind_name[q->cl[i].kind],
		       ccs_coll_cli[q->cl[i].coll], (unsigned long long)q->cl[i].bytes, (unsigned long long)q->cl[i].count,
		       q->cl[i].group_size, q->cl[i].groups, algo, tm * 1e6, sims, step * 1e3, ccs_bound_name[bound], link);
	}
	return 0;
}

/* The step's communication per kind, and with --layer-time the step
 * (1F1B: compute, bubble, exposed communication) or the forward pass. */
static int st_summary(struct step_req *q)
{
	const char *const *kind_name = ccs_step_kind_name;

	printf("# communication per %s (%s):", q->sc.phase == CCS_STEP_TRAIN ? "step" : "pass of the micro-batches",
	       q->engine == 1 ? "simulator" : "closed form");
	const char *sep = " ";
	for (int k = 0; k < CCS_STEP_KINDS; k++)
		if (q->per_kind[k] > 0) {
			printf("%s%s %.3f ms", sep, kind_name[k], q->per_kind[k] * 1e3);
			sep = ", ";
		}
	printf("; the %s groups take the most\n", q->worst ? q->worst : "-");
	double crit = q->per_kind[CCS_STEP_TP] + q->per_kind[CCS_STEP_CP] + q->per_kind[CCS_STEP_EP];
	if (q->layer_t > 0 && q->sc.phase == CCS_STEP_TRAIN) {
		double lps = (double)(q->sc.layers / q->sc.pp), m = (double)q->sc.micro_batches;
		double compute = 3 * q->layer_t * lps * m, bubble = (q->sc.pp - 1) * 3 * q->layer_t * lps;
		double pp_exp = 2.0 * (q->sc.pp - 1) * q->t_pp;
		double dp_exp = fmax(0, q->per_kind[CCS_STEP_DP] + q->per_kind[CCS_STEP_EDP] - 2 * q->layer_t * lps);
		double step = compute + bubble + crit + pp_exp + dp_exp;
		printf("# step with --layer-time %.4g us (1F1B): compute %.3f ms + bubble %.3f ms + TP/CP/EP %.3f ms + PP exposed %.3f ms"
		       " + DP exposed %.3f ms = %.3f ms; communication exposed %.1f%%\n",
		       q->layer_t * 1e6, compute * 1e3, bubble * 1e3, crit * 1e3, pp_exp * 1e3, dp_exp * 1e3, step * 1e3,
		       100 * (crit + pp_exp + dp_exp) / step);
	} else if (q->layer_t > 0) {
		/* one micro-batch through every stage */
		double m = (double)q->sc.micro_batches;
		double compute = q->layer_t * q->sc.layers, comm = crit / m * q->sc.pp + (q->sc.pp - 1) * q->t_pp;
		printf("# forward pass with --layer-time %.4g us: compute %.3f ms + TP/CP/EP %.3f ms + PP %.3f ms = %.3f ms;"
		       " communication %.1f%%\n", q->layer_t * 1e6, compute * 1e3, crit / m * q->sc.pp * 1e3,
		       (q->sc.pp - 1) * q->t_pp * 1e3, (compute + comm) * 1e3, 100 * comm / (compute + comm));
	}
	return 0;
}

int ccs_cmd_step(int argc, char **argv)
{
	struct step_req *q = ccs_calloc(1, sizeof *q);
	if (!q) {
		fprintf(stderr, "%s: out of memory\n", me);
		return 1;
	}
	q->sc.micro_batch = 1;
	q->sc.micro_batches = 1;
	q->engine_s = "model";
	q->phase_s = "train";
	q->worst_t = -1;
	ccs_args_sets_init(&q->sets);
	int rc = st_parse(q, argc, argv);
	if (rc)
		rc = rc > 0 ? 0 : 2;
	else if (st_check(q))
		rc = 2;
	else if (st_setup(q) || st_header(q) || st_groups(q) || st_summary(q))
		rc = 1;
	else
		rc = ccs_args_flush() ? 1 : 0;
	ccs_topo_free(q->t);
	ccs_args_sets_release(&q->sets);
	ccs_free(q);
	return rc;
}
