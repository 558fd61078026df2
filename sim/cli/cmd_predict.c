/* sim/cli/cmd_predict.c: `ccsim predict` (the closed form) and `ccsim simulate`
 * (the event simulator), one command line and nccl-tests' format for both. */
#include "cli.h"
#include "../../model/escape.h"
#include "predict.h"
#include "simrow.h"

#include "../../model/bound.h"
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/fault.h"
#include "../../model/topo_yaml.h"
#include "../sim.h"
#include "../sched/build.h"
#include "../report.h"
#include "../trace.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "ccsim predict" or "ccsim simulate", for messages. */
static const char *me = "ccsim predict";

/* The ALGO lines of the usage: every row of ccs_algo_desc (model/coll.h) by
 * name, wrapped at 84 columns, then auto and a word on the kernels. */
static void algo_names(FILE *f)
{
	char buf[1024];
	size_t len = 0;
	for (int a = 0; a < CCS_ALGO_N; a++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", a ? " " : "", ccs_algo_desc[a].name);
	snprintf(buf + len, sizeof buf - len, ", or auto (NCCL's choice by its own tuning model); oneshot and "
	         "twoshot are inference engines' AllReduce kernels");
	const char *w = buf;
	int col = fprintf(f, "  ALGO  ");
	while (*w) {
		int n = (int)strcspn(w, " ");
		if (col + 1 + n > 84) {
			fputs("\n        ", f);
			col = 8;
		}
		col += fprintf(f, " %.*s", n, w);
		w += n + (w[n] == ' ');
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s -t TOPO -c COLL [-a ALGO|auto] [-p PROTO|auto] [-n RANKS] [--ppn N]\n"
	        "         [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [--channels N] [-d TYPE]\n"
	        "         [-o OP] [-r ROOT] [--best] [-v] [--format table|csv|json] [--set k=v]...%s\n"
	        "  COLL   allreduce allgather reducescatter broadcast reduce alltoall sendrecv\n", me,
	        strcmp(me, "ccsim simulate") ? "" : "\n         [--links] [--trace FILE.json [--trace-level collective|step|chunk]] [--granularity step|chunk]\n"
	        "         [--concurrent N] [--spray K] [--per-flow] [--fidelity exact|aggregate]\n"
	        "       ccsim simulate -t TOPO --schedule FILE.yaml... [-n RANKS] [--ppn N] [--links] [--trace FILE.json]\n"
	        "       ccsim simulate -t TOPO --job name=A,gpus=0-7|nodes=0-3|rails=0-3|size=N,coll=C,bytes=B[,algo=,proto=]...\n"
	        "                [--isolation packed|domains|rails|planes] (jobs at once on one fabric; docs/faults.md)\n"
	        "--concurrent N runs N copies of the collective at once on the same ranks (time: all done);\n"
	        "--trace-level: per rank one span (collective), the channels' ops merged step by step with the\n"
	        "waits apart (step, the default), or every op and a counter per link at every change (chunk);\n"
	        "--spray K moves each transfer between groups as K parts over K equal-cost paths (packet\n"
	        "spraying, adaptive routing; default 1: per-flow ECMP by hash);\n"
	        "--fidelity aggregate merges each rank's AllToAll sends to the ranks behind one leaf switch into\n"
	        "one transfer; for the other collectives it runs the classes the routes give, each starting with\n"
	        "its last member, never refined by time (declared approximations for large runs; their error:\n"
	        "docs/simulator.md);\n"
	        "several --schedule files run together on one fabric (docs/simulator.md has the format).\n"
	        "simulate lowers every algorithm above (ring also AllGather and ReduceScatter; pat, rd, rhd,\n"
	        "bruck AllGather/ReduceScatter; direct, pairwise, bruck AllToAll) into per-rank schedules of\n"
	        "NCCL's chunks and runs them through the event simulator with max-min bandwidth sharing;\n"
	        "--links prints the busiest links of the last size; equivalent transfers (same route shape,\n"
	        "same timing) are simulated once as a class unless --per-flow asks for every flow (the same\n"
	        "results, the reference; docs/simulator.md).");
	algo_names(f);
	fprintf(f,
	        "  COLL   also dispatch, combine, alltoallv (MoE) and kvcache, with their own options (-c X --help)\n"
	        "  PROTO  LL LL128 Simple, or auto\n"
	        "  sizes  8, 64K, 1M, 8G (powers of 1024, as nccl-tests) or 16MiB; default -b 32M -e 32M\n"
	        "  --best picks the fastest by ccsim's model instead of NCCL's choice\n"
	        "  -v     also prints each size's cut bound, the least time the hardware allows (JSON: cut_bound_us)\n"
	        "NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS act as defaults;\n"
	        "NCCL_NVLS_ENABLE=0 takes NVLS away, NCCL_COLLNET_ENABLE=1 lets NCCL choose CollNet.\n");
}

static int env_int(const char *name, int *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > 64) {
		fprintf(stderr, "%s: %s must be a number from 1 to 64, got '%s'\n", me, name, s);
		return -1;
	}
	*out = (int)v;
	return 1;
}


static int timed_rows(const char *topo, const struct ccs_args_sets *sets, const struct ccs_topo *t,
                      const struct ccs_comm *comm, int nranks, int ppn, int coll, int channels, struct ccs_simrow_row *rows,
                      size_t nrows);

/* --spray K: parts per transfer between groups (1: per-flow ECMP) */
static uint32_t spray_k = 0;   /* 0: the topology's (scaleout.spray) */

/* ---- options with their own messages ---- */

/* -b (may be 0), -e, -i (lo 1): sizes as nccl-tests writes them */
static int take_size(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	uint64_t x = 0;
	int r = v ? ccs_parse_nccl_size(v, &x) : -1;
	if (r == -2) {
		fprintf(stderr, "%s: '%s' %s is above 2^53 bytes (8 PiB), the largest size ccsim takes\n", me_, o->flag, v);
		return -1;
	}
	if (r || (x == 0 && o->lo > 0)) {
		fprintf(stderr, "%s: '%s' must be a size such as 8, 64K, 1M or 8G, got '%s'\n", me_, o->flag, v ? v : "");
		return -1;
	}
	*(uint64_t *)o->dest = x;
	return 0;
}

static int take_factor(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char *end;
	double f = v ? strtod(v, &end) : 0;
	if (!v || *end || !(f > 1) || f > 1e6) {
		fprintf(stderr, "%s: '-f' must be a factor above 1, got '%s'\n", me_, v ? v : "");
		return -1;
	}
	*(double *)o->dest = f;
	return 0;
}

/* -n, --ppn, -r, --channels: whole numbers from lo (at most hi for --channels) */
static int take_count(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char *end;
	long x = v ? strtol(v, &end, 10) : 0;
	if (!v || *end || x < (long)o->lo || x > 10000000) {
		fprintf(stderr, "%s: '%s' must be a whole number, got '%s'\n", me_, o->flag, v ? v : "");
		return -1;
	}
	if (x > (long)o->hi) {
		fprintf(stderr, "%s: '%s' is at most %ld, got '%s'\n", me_, o->flag, (long)o->hi, v);
		return -1;
	}
	*(int *)o->dest = (int)x;
	return 0;
}

struct sched_list {
	const char **path;
	int *n;
};

static int take_schedule(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	struct sched_list *l = o->dest;
	if (!v) {
		fprintf(stderr, "%s: '--schedule' needs a FILE.yaml\n", me_);
		return -1;
	}
	if (*l->n == 8) {
		fprintf(stderr, "%s: at most 8 --schedule files\n", me_);
		return -1;
	}
	l->path[(*l->n)++] = v;
	return 0;
}

/* a whole number in [lo, hi] or the row's own message */
static int bounded(const char *v, const struct ccs_args_opt *o, long *x)
{
	char *e2;
	*x = v ? strtol(v, &e2, 10) : 0;
	return v && !*e2 && *x >= (long)o->lo && *x <= (long)o->hi;
}

static int take_spray(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	long x;
	if (!bounded(v, o, &x)) {
		fprintf(stderr, "%s: '--spray' takes the parts per transfer between groups, 1 (per-flow ECMP) to 64\n", me_);
		return -1;
	}
	*(uint32_t *)o->dest = (uint32_t)x;
	return 0;
}

static int take_concurrent(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	long x;
	if (!bounded(v, o, &x)) {
		fprintf(stderr, "%s: '--concurrent' takes a number of copies from 1 to 64\n", me_);
		return -1;
	}
	*(int *)o->dest = (int)x;
	return 0;
}

static int take_fidelity(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	if (!v || (strcmp(v, "exact") && strcmp(v, "aggregate"))) {
		fprintf(stderr, "%s: '--fidelity' takes 'exact' or 'aggregate'\n", me_);
		return -1;
	}
	*(int *)o->dest = !strcmp(v, "aggregate");
	return 0;
}

static int take_granularity(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	if (!v || (strcmp(v, "step") && strcmp(v, "chunk"))) {
		fprintf(stderr, "%s: '--granularity' takes 'step' or 'chunk'\n", me_);
		return -1;
	}
	*(int *)o->dest = !strcmp(v, "step");
	return 0;
}


/* The options into rq: 0, 1 after --help, -1 after a message. */
static int parse_req(struct predict_req *rq, int argc, char **argv)
{
	struct sched_list sl = { rq->sched_path, &rq->nsched };
	const struct ccs_args_opt opts[] = {
		{ "--best", CCS_ARGS_FLAG, &rq->best, 0, 0, NULL, 0, NULL, NULL },
		{ "-v", CCS_ARGS_FLAG, &rq->verbose, 0, 0, NULL, 0, NULL, NULL },
		{ "--verbose", CCS_ARGS_FLAG, &rq->verbose, 0, 0, NULL, 0, NULL, NULL },
		{ "-t", CCS_ARGS_STR, &rq->topo, 0, 0, NULL, 0, NULL, NULL },
		{ "-c", CCS_ARGS_STR, &rq->coll_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-a", CCS_ARGS_STR, &rq->algo_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-p", CCS_ARGS_STR, &rq->proto_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-d", CCS_ARGS_STR, &rq->dtype_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-o", CCS_ARGS_STR, &rq->op_s, 0, 0, NULL, 0, NULL, NULL },
		{ "--op", CCS_ARGS_STR, &rq->op_s, 0, 0, NULL, 0, NULL, NULL },
		{ "--format", CCS_ARGS_STR, &rq->format, 0, 0, NULL, 0, NULL, NULL },
		{ "-b", CCS_ARGS_FN, &rq->minb, 0, 0, NULL, 0, NULL, take_size },
		{ "-e", CCS_ARGS_FN, &rq->maxb, 1, 0, NULL, 0, NULL, take_size },
		{ "-i", CCS_ARGS_FN, &rq->stepb, 1, 0, NULL, 0, NULL, take_size },
		{ "-f", CCS_ARGS_FN, &rq->factor, 0, 0, NULL, 0, NULL, take_factor },
		{ "-n", CCS_ARGS_FN, &rq->nranks, 1, 10000000, NULL, 0, NULL, take_count },
		{ "--ppn", CCS_ARGS_FN, &rq->ppn, 1, 10000000, NULL, 0, NULL, take_count },
		{ "-r", CCS_ARGS_FN, &rq->root, 0, 10000000, NULL, 0, NULL, take_count },
		{ "--channels", CCS_ARGS_FN, &rq->channels, 1, 64, NULL, 0, NULL, take_count },
		/* simulate's */
		{ "--links", CCS_ARGS_FLAG, &rq->links, 0, 0, NULL, 0, NULL, NULL },
		{ "--trace", CCS_ARGS_STR, &rq->trace_path, 0, 0, NULL, 0, "a FILE.json", NULL },
		{ "--schedule", CCS_ARGS_FN, &sl, 0, 0, NULL, 0, "own", take_schedule },
		{ "--spray", CCS_ARGS_FN, &spray_k, 1, 64, NULL, 0, "own", take_spray },
		{ "--concurrent", CCS_ARGS_FN, &rq->concurrent, 1, 64, NULL, 0, "own", take_concurrent },
		{ "--granularity", CCS_ARGS_FN, &rq->stepwise, 0, 0, NULL, 0, "own", take_granularity },
		{ "--per-flow", CCS_ARGS_FLAG, &rq->per_flow, 0, 0, NULL, 0, NULL, NULL },
		{ "--fidelity", CCS_ARGS_FN, &rq->aggregate, 0, 0, NULL, 0, "own", take_fidelity },
		{ "--trace-level", CCS_ARGS_NAME, &rq->trace_level, 0, 0, ccs_trace_level_name, CCS_TRACE_LEVEL_N, "level",
		  NULL },
	};

	for (int i = 1; i < argc; i++) {
		int r = ccs_args_shared(&rq->sets, argc, argv, &i, usage);
		if (r == CCS_ARGS_TOOK)
			continue;
		if (r)
			return r < 0 ? -1 : 1;   /* an error, or help printed */
		/* the last nine are simulate's */
		if (ccs_args_take(me, NULL, opts, sizeof opts / sizeof opts[0] - (rq->sim ? 0 : 9), argc, argv, &i))
			return -1;
	}
	ccs_simrow_set_classes(rq->per_flow ? CCS_CLASSES_OFF : rq->aggregate ? CCS_CLASSES_LUMP : CCS_CLASSES_EXACT);
	ccs_simrow_set_trace_level(rq->trace_level);
	return 0;
}

/* --schedule files instead of a collective: the exit status. */
static int schedules(struct predict_req *rq)
{
		if (!rq->topo) {
		fprintf(stderr, "%s: missing -t TOPO\n", me);
		return 2;
	}
	if (rq->coll_s || rq->algo_s || rq->proto_s || rq->concurrent > 1) {
		fprintf(stderr, "%s: --schedule runs the ops the files list; -c, -a, -p and --concurrent do not apply\n", me);
		return 2;
	}
	if (rq->aggregate) {
		fprintf(stderr, "%s: --schedule runs every op the files list, exactly; '--fidelity aggregate' is for a "
		        "collective (-c)\n", me);
		return 2;
	}
	return ccs_simrow_schedules(me, spray_k, rq->topo, &rq->sets, rq->nranks, rq->ppn, rq->sched_path, rq->nsched, (double)rq->minb, rq->links, rq->trace_path);
}

/* Names, format and sizes, checked before anything loads: 0, or -1 after a
 * message (usage errors). */
static int check_req(struct predict_req *rq)
{
	if (!rq->topo || !rq->coll_s) {
		fprintf(stderr, "%s: %s\n", me, !rq->topo ? "missing -t TOPO" : "missing -c COLL");
		usage(stderr);
		return -1;
	}
	rq->coll = ccs_coll_parse(rq->coll_s);
	if (rq->coll < 0) {
		fprintf(stderr, "%s: unknown collective '%s'; one of: allreduce, allgather, reducescatter, "
		                "broadcast, reduce, alltoall, sendrecv\n", me, rq->coll_s);
		return -1;
	}
	rq->dt = ccs_dtype_parse(rq->dtype_s);
	if (!rq->dt) {
		fprintf(stderr, "%s: unknown type '%s'; one of: %s\n", me, rq->dtype_s, ccs_dtype_list());
		return -1;
	}
	rq->op = ccs_redop_parse(rq->op_s);
	if (rq->op < 0) {
		fprintf(stderr, "%s: unknown op '%s'; one of: sum, prod, max, min, avg, mulsum\n", me, rq->op_s);
		return -1;
	}
	if (strcmp(rq->format, "table") && strcmp(rq->format, "csv") && strcmp(rq->format, "json")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv, json\n", me, rq->format);
		return -1;
	}
	if (rq->minb > rq->maxb) {
		fprintf(stderr, "%s: -b %llu is above -e %llu\n", me, (unsigned long long)rq->minb,
		        (unsigned long long)rq->maxb);
		return -1;
	}
	if (rq->factor == 0 && rq->stepb == 0)
		rq->factor = 2;
	return 0;
}

/* NCCL_NVLS_ENABLE: 0 off, 1 on, 2 (NCCL's default) on where the GPUs
 * have it (NVIDIA/nccl src/transport/nvls.cc, 5067397c); 0 takes NVLS and
 * NVLS-tree away from NCCL's choice and refuses them asked for by -a.
 * NCCL_COLLNET_ENABLE is read with the topology (args.c).  0, or -1 after
 * a message. */
static int nvls_env(struct predict_req *rq)
{
	const char *nv = getenv("NCCL_NVLS_ENABLE");
	if (!nv || !*nv)
		return 0;
	if (strcmp(nv, "0") && strcmp(nv, "1") && strcmp(nv, "2")) {
		fprintf(stderr, "%s: NCCL_NVLS_ENABLE must be 0, 1 or 2, got '%s'\n", me, nv);
		return -1;
	}
	unsigned nvls = (1u << CCS_ALGO_NVLS) | (1u << CCS_ALGO_NVLS_TREE);
	if (strcmp(nv, "0"))
		return 0;
	if (rq->fixed_algo && (rq->amask & nvls)) {
		fprintf(stderr, "%s: -a %s with NCCL_NVLS_ENABLE=0: NCCL runs no NVLS algorithm then\n", me, rq->algo_s);
		return -1;
	}
	rq->amask &= ~nvls;
	if (!rq->amask) {
		fprintf(stderr, "%s: NCCL_ALGO leaves only NVLS, and NCCL_NVLS_ENABLE=0 turns it off\n", me);
		return -1;
	}
	return 0;
}

/* Algorithm and protocol masks: flags, then NCCL's environment
 * (NCCL_ALGO, NCCL_PROTO, NCCL_PXN_DISABLE, NCCL_MIN/MAX_NCHANNELS). */
static int masks_of(struct predict_req *rq)
{
	/* Algorithm and protocol masks: flags, then NCCL's environment. */
	rq->all_algo = (1u << CCS_ALGO_N) - 1;
	rq->all_proto = (1u << CCS_PROTO_N) - 1;
	rq->amask = rq->all_algo;
	rq->pmask = rq->all_proto;
	char bad[128];
	if (rq->algo_s && strcmp(rq->algo_s, "auto")) {
		int a = ccs_algo_parse(rq->algo_s);
		if (a < 0) {
			fprintf(stderr, "%s: unknown algorithm '%s'; one of:", me, rq->algo_s);
			for (int k = 0; k < CCS_ALGO_N; k++)
				fprintf(stderr, " %s,", ccs_algo_desc[k].name);
			fprintf(stderr, " auto\n");
			return -1;
		}
		rq->amask = 1u << a;
		rq->fixed_algo = 1;
	} else if (!rq->algo_s && getenv("NCCL_ALGO") && *getenv("NCCL_ALGO")) {
		long m = ccs_coll_env_mask(getenv("NCCL_ALGO"), rq->coll, 0, rq->all_algo, bad, sizeof bad);
		if (m < 0) {
			fprintf(stderr, "%s: NCCL_ALGO: unknown algorithm '%s'\n", me, bad);
			return -1;
		}
		rq->amask = (unsigned)m;
	}
	if (rq->proto_s && strcmp(rq->proto_s, "auto")) {
		int q = ccs_proto_parse(rq->proto_s);
		if (q < 0) {
			fprintf(stderr, "%s: unknown protocol '%s'; one of: LL, LL128, Simple, auto\n", me, rq->proto_s);
			return -1;
		}
		rq->pmask = 1u << q;
	} else if (!rq->proto_s && getenv("NCCL_PROTO") && *getenv("NCCL_PROTO")) {
		long m = ccs_coll_env_mask(getenv("NCCL_PROTO"), rq->coll, 1, rq->all_proto, bad, sizeof bad);
		if (m < 0) {
			fprintf(stderr, "%s: NCCL_PROTO: unknown protocol '%s'\n", me, bad);
			return -1;
		}
		rq->pmask = (unsigned)m;
	}
	rq->sched_flags = rq->stepwise ? CCS_SCHED_STEP : 0;
	if (rq->aggregate && rq->per_flow && rq->coll != CCS_COLL_ALLTOALL) {
		fprintf(stderr, "%s: '--fidelity aggregate' lumps %s's transfers into classes and '--per-flow' runs every "
		        "one: give one of them\n", me, ccs_coll_cli[rq->coll]);
		return -1;
	}
	if (rq->aggregate && rq->coll == CCS_COLL_ALLTOALL)
		rq->sched_flags |= CCS_SCHED_AGGREGATE;
	if (ccs_coll_rooted(rq->coll))
		rq->sched_flags |= rq->root << CCS_SCHED_ROOT_SHIFT;
	{
		const char *pd = getenv("NCCL_PXN_DISABLE");
		if (pd && *pd && strcmp(pd, "0") && strcmp(pd, "1")) {
			fprintf(stderr, "%s: NCCL_PXN_DISABLE must be 0 or 1, got '%s'\n", me, pd);
			return -1;
		}
		if (pd && !strcmp(pd, "1"))
			rq->sched_flags |= CCS_SCHED_NO_PXN;
	}
	if (env_int("NCCL_MIN_NCHANNELS", &rq->minch) < 0 || env_int("NCCL_MAX_NCHANNELS", &rq->maxch) < 0)
		return -1;
	return nvls_env(rq);
}

/* The topology and communicator, channels from NCCL's environment, and a
 * fixed algorithm that must apply: 0, or -1 after a message. */
static int setup(struct predict_req *rq)
{
	if (ccs_args_topo(NULL, rq->topo, &rq->sets, &rq->t) || ccs_args_comm(me, rq->t, rq->nranks, rq->ppn, &rq->comm))
		return -1;
	if (ccs_coll_rooted(rq->coll) && rq->root >= rq->comm.n) {
		fprintf(stderr, "%s: root %d is not one of the %d ranks\n", me, rq->root, rq->comm.n);
		return -1;
	}
	rq->n = rq->comm.n;
	/* the cut bound per byte: it is linear in the size (model/bound.h) */
	if (ccs_bound_cut(&rq->comm, rq->coll, 1.0, &rq->cut1)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	if (rq->channels == 0 && (rq->minch || rq->maxch)) {
		int base = ccs_nccl_channels(&rq->comm.nccl, CCS_ALGO_RING);
		if (rq->minch && base < rq->minch)
			base = rq->minch;
		if (rq->maxch && base > rq->maxch)
			base = rq->maxch;
		rq->channels = base;
	}

	/* A fixed algorithm must apply here; say why not. */
	if (rq->fixed_algo) {
		int a = 0;
		while (!(rq->amask & (1u << a)))
			a++;
		const char *why = NULL;
		int okp = 0;
		struct ccs_cost cc;
		for (int q = 0; q < CCS_PROTO_N; q++)
			if ((rq->pmask & (1u << q)) && !ccs_cost_eval(&rq->comm, rq->coll, a, q, rq->channels, 1u << 20, &cc, &why))
				okp = 1;
		if (!okp) {
			fprintf(stderr, "%s: %s %s on %s: %s\n", me, ccs_algo_desc[a].name, ccs_coll_name[rq->coll], rq->t->name,
			        why ? why : "not available with the protocols asked for");
			return -1;
		}
	}
	return 0;
}

/* One row per size from -b to -e by -f or -i. */
static int size_rows(struct predict_req *rq)
{
	/* Sizes. */
	size_t cap = 0;
	for (uint64_t s = rq->minb;;) {
		if (ccs_grow(&rq->rows, &cap, rq->nrows + 1, sizeof *rq->rows)) {
			fprintf(stderr, "ccsim: out of memory\n");
			return -1;
		}
		struct ccs_simrow_row *rw = &rq->rows[rq->nrows];
		memset(rw, 0, sizeof *rw);
		ccs_coll_shape(rq->coll, rq->n, s, rq->dt->size, &rw->count, &rw->bytes);
		rq->nrows++;
		if (rq->nrows > 100000) {
			fprintf(stderr, "%s: more than 100000 sizes; use -f\n", me);
			return -1;
		}
		uint64_t next = rq->factor > 0 ? (uint64_t)ceil((double)s * rq->factor) : s + rq->stepb;
		if (next <= s)
			next = s + 1;
		if (next > rq->maxb)
			break;
		s = next;
	}
	return 0;
}

/* Each row's algorithm and protocol (NCCL's choice, or ours with --best) and
 * its time (closed form, or simulated), with the other choice beside it. */
static int time_rows(struct predict_req *rq)
{
	double sum_bus = 0;
	/* the other choice (ours beside NCCL's, or NCCL's beside ours) for the
	 * table's and JSON's last column; CSV has none */
	int other = strcmp(rq->format, "csv") && (!rq->fixed_algo || (rq->pmask & (rq->pmask - 1)));
	ccs_selector_init(&rq->sel, &rq->comm);
	for (size_t i = 0; i < rq->nrows; i++) {
		struct ccs_simrow_row *rw = &rq->rows[i];
		int a = -1, q = -1, aa = -1, aq = -1;
		uint64_t sel_bytes = rw->bytes ? rw->bytes : 1;
		if (ccs_selector_pick(&rq->sel, rq->coll, sel_bytes, rq->amask, rq->pmask, !rq->best, &a, &q) &&
		    (!rq->fixed_algo || ccs_select(&rq->comm, rq->coll, sel_bytes, rq->amask, rq->pmask, 0, &a, &q))) {
			/* an algorithm asked for by name that NCCL would not run here is
			 * timed by our model; if that cannot either, say why */
			const char *why = NULL;
			struct ccs_cost tmp;
			for (int qq = 0; qq < CCS_PROTO_N && rq->fixed_algo; qq++)
				if ((rq->pmask & (1u << qq)) && ccs_cost_eval(&rq->comm, rq->coll, ccs_algo_parse(rq->algo_s), qq, rq->channels,
				                                          sel_bytes, &tmp, &why))
					break;
			if (why)
				fprintf(stderr, "%s: %s %s on %s: %s\n", me, rq->algo_s, ccs_coll_name[rq->coll], rq->t->name, why);
			else
				fprintf(stderr, "%s: no algorithm and protocol allowed by the flags and NCCL_ALGO/NCCL_PROTO "
				                "applies to %s on %s\n", me, ccs_coll_name[rq->coll], rq->t->name);
			return -1;
		}
		if (other)
			ccs_selector_pick(&rq->sel, rq->coll, sel_bytes, rq->amask, rq->pmask, rq->best, &aa, &aq);
		struct ccs_cost cc;
		const char *why = NULL;
		if (ccs_cost_eval(&rq->comm, rq->coll, a, q, rq->channels, rw->bytes, &cc, &why)) {
			fprintf(stderr, "%s: %s %s on %s at %llu bytes: %s\n", me, ccs_algo_desc[a].name, ccs_coll_name[rq->coll], rq->t->name,
			        (unsigned long long)rw->bytes, why ? why : "it does not apply");
			return -1;
		}
		rw->algo = a;
		rw->proto = q;
		rw->channels = cc.channels;
		rw->bound = cc.bound;
		rw->time_s = cc.time_s;
		rw->lat_s = cc.lat_s;
		rw->sync_s = cc.step_s;
		rw->bw_s = cc.bw_s;
		if (rq->sim) {
			if (ccs_simrow_run(me, spray_k, &rq->comm, &rq->fab, rq->coll, a, q, rq->channels, rq->concurrent, rq->sched_flags, rw, &rq->last_flows, i + 1 == rq->nrows ? rq->trace_path : NULL))
				return -1;
			aa = -1;
		}
		rw->algbw = rw->time_s > 0 ? (double)rw->bytes / rw->time_s / 1e9 : 0;
		rw->busbw = rw->algbw * ccs_busbw_factor(rq->coll, rq->n);
		rw->cut_s = rq->cut1.t_s * (double)rw->bytes;
		rw->cut_by = rw->bytes ? rq->cut1.by : CCS_CUT_GPU;
		rw->alt_algo = -1;
		if (aa >= 0 && (aa != a || aq != q)) {
			struct ccs_cost ac;
			if (!ccs_cost_eval(&rq->comm, rq->coll, aa, aq, rq->channels, rw->bytes, &ac, NULL)) {
				rw->alt_algo = aa;
				rw->alt_proto = aq;
				rw->alt_time = ac.time_s;
			}
		}
		sum_bus += rw->busbw;
	}
	if (!rq->sim && rq->t->ntimed) {
		/* the closed form across timed faults: the same algorithm and
		 * protocol (a running communicator keeps them) in each state */
		if (timed_rows(rq->topo, &rq->sets, rq->t, &rq->comm, rq->nranks, rq->ppn, rq->coll, rq->channels, rq->rows, rq->nrows))
			return -1;
		sum_bus = 0;
		for (size_t i = 0; i < rq->nrows; i++) {
			struct ccs_simrow_row *rw = &rq->rows[i];
			rw->algbw = rw->time_s > 0 ? (double)rw->bytes / rw->time_s / 1e9 : 0;
			rw->busbw = rw->algbw * ccs_busbw_factor(rq->coll, rq->n);
			sum_bus += rw->busbw;
		}
	}
	rq->avg_bus = rq->nrows ? sum_bus / (double)rq->nrows : 0;
	return 0;
}

static int run_coll(int argc, char **argv, int sim)
{
	me = sim ? "ccsim simulate" : "ccsim predict";
	/* expert-parallel traffic (sim/cli/cmd_moe.c) and KV-cache transfers
	 * (sim/cli/cmd_kv.c) have their own options */
	for (int i = 1; i + 1 < argc; i++) {
		const char *c = argv[i + 1];
		if (strcmp(argv[i], "-c"))
			continue;
		if (!strcmp(c, "dispatch") || !strcmp(c, "combine") || !strcmp(c, "alltoallv"))
			return ccs_cmd_moe(argc, argv, sim);
		if (!strcmp(c, "kvcache"))
			return ccs_cmd_kv(argc, argv, sim);
	}
	struct predict_req *rq = ccs_calloc(1, sizeof *rq);
	if (!rq) {
		fprintf(stderr, "ccsim: out of memory\n");
		return 1;
	}
	rq->sim = sim;
	rq->format = "table";
	rq->dtype_s = "float";
	rq->op_s = "sum";
	rq->minb = rq->maxb = 32u << 20;
	rq->concurrent = 1;
	rq->trace_level = CCS_TRACE_STEP;
	ccs_args_sets_init(&rq->sets);
	int rc = parse_req(rq, argc, argv);
	if (rc)
		rc = rc > 0 ? 0 : 2;
	else if (rq->nsched)
		rc = schedules(rq);
	else if (check_req(rq) || masks_of(rq))
		rc = 2;
	else if (setup(rq) || size_rows(rq) || time_rows(rq))
		rc = 1;
	else {
		ccs_predict_out_rows(rq);
		if (!strcmp(rq->format, "table") &&
		    ccs_simrow_faults_idle(rq->t, rq->topo, &rq->sets, &rq->comm, rq->ppn, rq->coll, rq->rows, rq->nrows))
			printf("# note: the fault%s change%s no row of the closed form: what failed is off these ranks' paths, "
			       "or not what bounds them\n", rq->t->nfault > 1 ? "s" : "", rq->t->nfault > 1 ? "" : "s");
		if (rq->links && rq->last_flows && rq->fab)
			ccs_report_links(rq->fab, rq->last_flows, rq->rows[rq->nrows - 1].time_s);
		rc = ccs_args_flush() ? 1 : 0;
	}
	ccs_flows_free(rq->last_flows);
	ccs_fabric_free(rq->fab);
	ccs_free(rq->rows);
	ccs_comm_release(&rq->comm);
	ccs_topo_free(rq->t);
	ccs_args_sets_release(&rq->sets);
	ccs_free(rq);
	return rc;
}

/* Rows' times across the topology's timed faults (model/fault.h): the
 * hardware after each strike is the topology loaded again with the faults
 * of that time and before settled in; a rank whose NIC died, or a
 * communicator that cannot be built on what is left, hangs the run if it
 * is still going then.  Returns 0, or 1 after printing the hang. */
/* A state of the hardware during a run: from at, after fault spec struck. */
struct phase {
	double at;
	const char *spec;
	struct ccs_topo *t;
	struct ccs_comm c;
	int ok, bound;
	char why[256];
};

/* The hardware once timed fault i (and those with it) struck: the topology
 * with the faults settled in, and the communicator on it, or why none can
 * run (a rank's NIC down, or no communicator on what is left). */
static int load_phase(const char *topo, const struct ccs_args_sets *sets, const struct ccs_topo *t,
                      const struct ccs_comm *comm, int nranks, int ppn, uint32_t i, struct phase *p)
{
	p->at = t->timed[i].at_s;
	p->spec = t->timed[i].spec;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	if (ccs_topo_yaml_load(topo, (const char *const *)sets->v, sets->n, &p->t, &diag) ||
	    ccs_fault_settle(p->t, i + 1)) {
		fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: failed to load topology");
		return -1;
	}
	/* a running communicator keeps its NICs */
	for (int r = 0; r < comm->n && !p->why[0]; r++) {
		const struct ccs_gpu *g = &t->gpu[comm->rank_gpu[r]];
		if (comm->G > 1 && g->nic_count && !ccs_nic_live(p->t, t->gnic[g->nic_first].nic))
			snprintf(p->why, sizeof p->why, "rank %d's nic '%s' is down", r, t->dev[t->gnic[g->nic_first].nic].name);
	}
	if (!p->why[0] && !ccs_comm_build(p->t, nranks, ppn, &p->c, p->why, sizeof p->why))
		p->ok = 1;
	/* the fault that struck then, for the message */
	if (!p->ok) {
		char w[256];
		snprintf(w, sizeof w, "%s", p->why);
		snprintf(p->why, sizeof p->why, "%.150s once '%.80s' struck", w, t->timed[i].spec);
		ccs_escape_utf8_fix(p->why);   /* a name cut to fit keeps whole characters */
	}
	return 0;
}

static int timed_rows(const char *topo, const struct ccs_args_sets *sets, const struct ccs_topo *t,
                      const struct ccs_comm *comm, int nranks, int ppn, int coll, int channels, struct ccs_simrow_row *rows,
                      size_t nrows)
{
	int nph = 1, rc = 1;
	struct phase *ph = ccs_calloc((size_t)t->ntimed + 1, sizeof *ph);
	double *at = ccs_malloc(((size_t)t->ntimed + 1) * sizeof *at);
	double *full = ccs_malloc(((size_t)t->ntimed + 1) * sizeof *full);
	if (!ph || !at || !full) {
		fprintf(stderr, "ccsim: out of memory\n");
		goto out;
	}
	for (uint32_t i = 0; i < t->ntimed; i++) {
		if (i + 1 < t->ntimed && t->timed[i + 1].at_s == t->timed[i].at_s)
			continue;
		if (load_phase(topo, sets, t, comm, nranks, ppn, i, &ph[nph++]))
			goto out;
	}
	for (size_t i = 0; i < nrows; i++) {
		struct ccs_simrow_row *rw = &rows[i];
		at[0] = 0;
		full[0] = rw->time_s;
		for (int k = 1; k < nph; k++) {
			struct ccs_cost cc;
			at[k] = ph[k].at;
			full[k] = ph[k].ok && !ccs_cost_eval(&ph[k].c, coll, rw->algo, rw->proto, channels > 0 ? channels : rw->channels,
			                                     rw->bytes, &cc, NULL)
			        ? cc.time_s : -1;
			ph[k].bound = full[k] >= 0 ? cc.bound : 0;
			if (full[k] < 0 && !ph[k].why[0]) {
				snprintf(ph[k].why, sizeof ph[k].why, "%s/%s cannot run once '%.80s' struck", ccs_algo_desc[rw->algo].name,
				         ccs_proto_name[rw->proto], ph[k].spec);
				ccs_escape_utf8_fix(ph[k].why);   /* a name cut to fit keeps whole characters */
			}
		}
		double T = ccs_fault_progress(at, full, nph);
		if (T < 0) {
			int k = (int)(-T) - 1;
			fprintf(stderr, "%s: hang at %.3f us (%llu B): %s\n", me, ph[k].at * 1e6, (unsigned long long)rw->bytes,
			        ph[k].why);
			goto out;
		}
		rw->time_s = T;
		/* what bounds the phase it ends in */
		for (int k = nph - 1; k > 0; k--)
			if (at[k] < T) {
				rw->bound = ph[k].bound;
				break;
			}
	}
	rc = 0;
out:
	for (int k = 1; ph && k < nph; k++) {
		if (ph[k].ok)
			ccs_comm_release(&ph[k].c);
		ccs_topo_free(ph[k].t);
	}
	ccs_free(ph);
	ccs_free(at);
	ccs_free(full);
	return rc;
}

int ccs_cmd_predict(int argc, char **argv) { return run_coll(argc, argv, 0); }
int ccs_cmd_simulate(int argc, char **argv) { return run_coll(argc, argv, 1); }
