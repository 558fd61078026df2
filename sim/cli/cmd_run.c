/*
** sim/cli/cmd_run.c: `ccsim run SCENARIO.yaml`: several designs (a topology,
** its overrides, ranks) against several workloads (MoE dispatch/combine,
** or a collective at a size), printed side by side.
**
**   name: ...            description: ...      engine: model | sim | both
**   designs:   - {name, topology, set: {key.path: value}, ranks, ppn}
**   workloads: - {name, collective, algo, bytes,            (collectives)
**                 tokens, hidden, dtype, topk, experts,      (dispatch, combine)
**                 routing, skew, hot, hot_share, expert_groups, topk_groups,
**                 placement, replicas, seed,
**                 prefill, decode, layers, kv_dim, kv_replicated,  (kvcache)
**                 page_tokens, layer_time}
** A topology path is taken relative to the scenario's folder.  The whole
** file is checked (keys, values, topologies load, algorithms apply) before
** anything runs; errors name file:line:column.  Sweeps, a results database
** and plots are issue 7's.
*/
#define _DEFAULT_SOURCE
#include "cli.h"

#include "../../calibrate/ingest.h"
#include "../../calibrate/store.h"
#include "../../model/kv.h"
#include "../../model/moe.h"
#include "../../model/topo_yaml.h"
#include "../../model/ytree.h"
#include "../sim.h"
#include "../fabric.h"
#include "../flow.h"
#include "plot.h"
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *me = "ccsim run";

#define DNAN ((double)NAN)

struct design {
	const struct ccs_ynode *node;
	const char *name, *topo;
	char path[2100];
	const char *sets[32];
	char setbuf[32][256];
	int nsets;
	long ranks, ppn;
	struct ccs_topo *t;
	struct ccs_comm c;
	int built;
};

struct work {
	const struct ccs_ynode *node;
	const char *name;
	int moe, kv, op, coll, algo, proto; /* algo, proto -1: auto */
	long ranks;                  /* 0: the design's */
	uint64_t bytes;
	struct ccs_moe_cfg cfg;
	struct ccs_kv_cfg kvc;
};

static int ydiag(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *fmt, ...) CCS_PRINTF(3, 4);
static int ydiag(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ccs_y_error(d, y, msg);
}

static int name_of(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *const *names, int n,
                   int *out)
{
	const struct ccs_ynode *y = ccs_y_get(m, key);
	if (!y)
		return CCS_OK;
	int rc = ccs_y_kind(d, y, CCS_Y_SCALAR, key);
	if (rc)
		return rc;
	int k = ccs_moe_parse(names, n, y->str);
	if (k < 0)
		return ydiag(d, y, "unknown %s '%s'", key, y->str);
	*out = k;
	return CCS_OK;
}

static int load_design(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *dir, int quick, struct design *g)
{
	static const char *const keys[] = { "name", "topology", "set", "ranks", "ppn", "quick", "faults" };
	int rc;
	g->node = m;
	if ((rc = ccs_y_kind(d, m, CCS_Y_MAP, "a design")) || (rc = ccs_y_keys(d, m, keys, 7, "a design")) ||
	    (rc = ccs_y_need(d, m, "name", "a design")) || (rc = ccs_y_need(d, m, "topology", "a design")) ||
	    (rc = ccs_y_str(d, m, "name", &g->name)) || (rc = ccs_y_str(d, m, "topology", &g->topo)) ||
	    (rc = ccs_y_long(d, m, "ranks", 1, 1 << 20, &g->ranks)) || (rc = ccs_y_long(d, m, "ppn", 1, 4096, &g->ppn)))
		return rc;
	if (g->topo[0] == '/')
		snprintf(g->path, sizeof g->path, "%s", g->topo);
	else
		snprintf(g->path, sizeof g->path, "%s/%s", dir, g->topo);
	/* 'set', then in a quick run the design's 'quick' overrides after it */
	for (int pass = 0; pass < 1 + quick; pass++) {
		const struct ccs_ynode *s = ccs_y_get(m, pass ? "quick" : "set");
		if (!s)
			continue;
		if ((rc = ccs_y_kind(d, s, CCS_Y_MAP, pass ? "quick" : "set")))
			return rc;
		if (g->nsets + (int)s->n > 32)
			return ccs_y_error(d, s, "at most 32 overrides in 'set' and 'quick'");
		for (uint32_t i = 0; i < s->n; i++) {
			if ((rc = ccs_y_kind(d, s->v[i], CCS_Y_SCALAR, s->k[i]->str)))
				return rc;
			snprintf(g->setbuf[g->nsets], sizeof g->setbuf[0], "%s=%s", s->k[i]->str, s->v[i]->str);
			g->sets[g->nsets] = g->setbuf[g->nsets];
			g->nsets++;
		}
	}
	/* faults: a list of fault strings (model/fault.h), from the start */
	const struct ccs_ynode *fy = ccs_y_get(m, "faults");
	if (fy) {
		if ((rc = ccs_y_kind(d, fy, CCS_Y_SEQ, "faults")))
			return rc;
		if (g->nsets + (int)fy->n > 32)
			return ccs_y_error(d, fy, "at most 32 overrides in 'set', 'quick' and 'faults'");
		for (uint32_t i = 0; i < fy->n; i++) {
			if ((rc = ccs_y_kind(d, fy->v[i], CCS_Y_SCALAR, "a fault")))
				return rc;
			snprintf(g->setbuf[g->nsets], sizeof g->setbuf[0], "faults+=%s", fy->v[i]->str);
			g->sets[g->nsets] = g->setbuf[g->nsets];
			g->nsets++;
		}
	}
	return CCS_OK;
}

/* A kvcache workload (model/kv.h): its own keys, tokens, dtype; no algo. */
static int load_kv(struct ccs_ydoc *d, const struct ccs_ynode *m, struct work *w)
{
	static const char *const not_kv[] = { "algo", "proto", "bytes", "hidden", "topk", "experts", "routing", "skew", "hot",
	                                      "hot_share", "expert_groups", "topk_groups", "placement", "replicas",
	                                      "seed" };
	for (size_t k = 0; k < sizeof not_kv / sizeof not_kv[0]; k++)
		if (ccs_y_get(m, not_kv[k]))
			return ydiag(d, ccs_y_get(m, not_kv[k]), "'%s' is not a kvcache key", not_kv[k]);
	ccs_kv_cfg_default(&w->kvc);
	struct { const char *key; int *out; long lo, hi; } ints[] = {
		{ "prefill", &w->kvc.prefill, 1, 1 << 20 }, { "decode", &w->kvc.decode, 1, 1 << 20 },
		{ "layers", &w->kvc.layers, 1, 100000 }, { "kv_dim", &w->kvc.dim, 1, 1 << 24 },
		{ "tokens", &w->kvc.tokens, 1, 1 << 26 }, { "page_tokens", &w->kvc.page_tokens, 1, 1 << 26 },
	};
	int rc;
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		long v = *ints[k].out;
		if ((rc = ccs_y_long(d, m, ints[k].key, ints[k].lo, ints[k].hi, &v)))
			return rc;
		*ints[k].out = (int)v;
	}
	static const char *const dt[] = { "fp8", "bf16", "fp32" };
	int di = 1;
	static const char *const yn[] = { "false", "true" };
	if ((rc = name_of(d, m, "dtype", dt, 3, &di)) || (rc = name_of(d, m, "kv_replicated", yn, 2, &w->kvc.replicated)) ||
	    (rc = ccs_y_qty(d, m, "layer_time", CCS_QTY_TIME, &w->kvc.layer_s)))
		return rc;
	w->kvc.dsize = di == 0 ? 1 : di == 1 ? 2 : 4;
	return CCS_OK;
}

static int load_work(struct ccs_ydoc *d, const struct ccs_ynode *m, struct work *w)
{
	static const char *const keys[] = { "name", "collective", "algo", "proto", "bytes", "tokens", "hidden", "dtype", "topk",
	                                    "experts", "routing", "skew", "hot", "hot_share", "expert_groups",
	                                    "topk_groups", "placement", "replicas", "seed", "ranks", "prefill", "decode",
	                                    "layers", "kv_dim", "kv_replicated", "page_tokens", "layer_time" };
	int rc;
	w->node = m;
	if ((rc = ccs_y_kind(d, m, CCS_Y_MAP, "a workload")) || (rc = ccs_y_keys(d, m, keys, (int)(sizeof keys / sizeof keys[0]), "a workload")) ||
	    (rc = ccs_y_long(d, m, "ranks", 1, 1 << 20, &w->ranks)) ||
	    (rc = ccs_y_need(d, m, "name", "a workload")) || (rc = ccs_y_need(d, m, "collective", "a workload")) ||
	    (rc = ccs_y_str(d, m, "name", &w->name)))
		return rc;
	const struct ccs_ynode *cy = ccs_y_get(m, "collective");
	if ((rc = ccs_y_kind(d, cy, CCS_Y_SCALAR, "collective")))
		return rc;
	w->op = ccs_moe_parse(ccs_moe_op_name, CCS_MOE_OP_N, cy->str);
	w->moe = w->op == CCS_MOE_DISPATCH || w->op == CCS_MOE_COMBINE;
	w->kv = !strcmp(cy->str, "kvcache");
	w->coll = w->moe || w->kv ? -1 : ccs_coll_parse(cy->str);
	if (!w->moe && !w->kv && w->coll < 0)
		return ydiag(d, cy, "unknown collective '%s'; one of: dispatch, combine, kvcache, allreduce, allgather, "
		             "reducescatter, broadcast, reduce, alltoall, sendrecv", cy->str);
	static const char *const kv_keys[] = { "prefill", "decode", "layers", "kv_dim", "kv_replicated", "page_tokens",
	                                       "layer_time" };
	if (!w->kv)
		for (size_t k = 0; k < sizeof kv_keys / sizeof kv_keys[0]; k++)
			if (ccs_y_get(m, kv_keys[k]))
				return ydiag(d, ccs_y_get(m, kv_keys[k]), "'%s' is for kvcache, not %s", kv_keys[k], cy->str);
	if (w->kv)
		return load_kv(d, m, w);
	w->algo = -1;
	w->proto = -1;
	const struct ccs_ynode *py = ccs_y_get(m, "proto");
	if (py) {
		if ((rc = ccs_y_kind(d, py, CCS_Y_SCALAR, "proto")))
			return rc;
		if (w->moe)
			return ydiag(d, py, "'proto' is for collectives, not %s", cy->str);
		if (strcmp(py->str, "auto") && (w->proto = ccs_proto_parse(py->str)) < 0)
			return ydiag(d, py, "unknown protocol '%s'; one of: ll, ll128, simple, auto", py->str);
	}
	const struct ccs_ynode *ay = ccs_y_get(m, "algo");
	if (ay && (rc = ccs_y_kind(d, ay, CCS_Y_SCALAR, "algo")))
		return rc;
	if (ay && strcmp(ay->str, "auto")) {
		w->algo = w->moe ? ccs_moe_parse(ccs_moe_algo_name, CCS_MOE_ALGO_N, ay->str) : ccs_algo_parse(ay->str);
		if (w->algo < 0)
			return ydiag(d, ay, "unknown algorithm '%s' for %s", ay->str, cy->str);
	}
	if (!w->moe) {
		static const char *const moe_keys[] = { "tokens", "hidden", "dtype", "topk", "experts", "routing", "skew",
		                                        "hot", "hot_share", "expert_groups", "topk_groups", "placement",
		                                        "replicas", "seed" };
		for (size_t k = 0; k < sizeof moe_keys / sizeof moe_keys[0]; k++)
			if (ccs_y_get(m, moe_keys[k]))
				return ydiag(d, ccs_y_get(m, moe_keys[k]), "'%s' is for dispatch and combine, not %s", moe_keys[k],
				             cy->str);
		if ((rc = ccs_y_need(d, m, "bytes", "a collective workload")))
			return rc;
		const struct ccs_ynode *by = ccs_y_get(m, "bytes");
		char err[160];
		if ((rc = ccs_y_kind(d, by, CCS_Y_SCALAR, "bytes")))
			return rc;
		if (ccs_parse_size(by->str, &w->bytes, err, sizeof err) || w->bytes == 0)
			return ydiag(d, by, "bytes: '%s' is not a size such as 64KiB or 1GiB", by->str);
		return CCS_OK;
	}
	if (ccs_y_get(m, "bytes"))
		return ydiag(d, ccs_y_get(m, "bytes"), "'bytes' is for collectives; %s sizes come from tokens and hidden", cy->str);
	ccs_moe_cfg_default(&w->cfg);
	long v;
	struct { const char *key; int *out; long lo, hi; } ints[] = {
		{ "tokens", &w->cfg.tokens, 1, 1 << 20 }, { "hidden", &w->cfg.hidden, 1, 1 << 20 },
		{ "topk", &w->cfg.topk, 1, 64 }, { "experts", &w->cfg.experts, 1, 1 << 20 },
		{ "hot", &w->cfg.hot, 1, 1 << 20 }, { "expert_groups", &w->cfg.groups, 1, 1 << 20 },
		{ "topk_groups", &w->cfg.topk_groups, 1, 1 << 20 }, { "replicas", &w->cfg.replicas, 0, 1 << 20 },
	};
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		v = *ints[k].out;
		if ((rc = ccs_y_long(d, m, ints[k].key, ints[k].lo, ints[k].hi, &v)))
			return rc;
		*ints[k].out = (int)v;
	}
	v = (long)w->cfg.seed;
	if ((rc = ccs_y_long(d, m, "seed", 0, 2147483647L, &v)))
		return rc;
	w->cfg.seed = (uint64_t)v;
	static const char *const dt[] = { "bf16", "fp8" };
	if ((rc = name_of(d, m, "dtype", dt, 2, &w->cfg.fp8)) ||
	    (rc = name_of(d, m, "routing", ccs_moe_dist_name, CCS_MOE_TRACE, &w->cfg.dist)) ||
	    (rc = name_of(d, m, "placement", ccs_moe_place_name, CCS_MOE_PLACE_N, &w->cfg.place)))
		return rc;
	const char *const reals[] = { "skew", "hot_share" };
	double *rout[] = { &w->cfg.skew, &w->cfg.hot_share };
	for (int k = 0; k < 2; k++) {
		const struct ccs_ynode *y = ccs_y_get(m, reals[k]);
		if (!y)
			continue;
		if ((rc = ccs_y_kind(d, y, CCS_Y_SCALAR, reals[k])))
			return rc;
		char *end;
		double x = strtod(y->str, &end);
		if (*end || !(x > 0) || (k == 1 && !(x < 1)) || x > 10)
			return ydiag(d, y, "'%s' must be %s", reals[k], k ? "a fraction between 0 and 1" : "above 0 and at most 10");
		*rout[k] = x;
	}
	return CCS_OK;
}

/* One cell: time, algorithm, bottleneck bandwidth (MoE) or busbw. */
struct timeline;

struct cell {
	double t_model, t_sim, bw;
	double lat_s, bwterm_s, step_s;   /* the closed form's terms (collectives; NAN otherwise) */
	int bound;                        /* enum ccs_bound, -1 unknown */
	char algo[48];
	struct timeline *tl;              /* record link utilisation of the simulation (may be NULL) */
};

static int run_cell2(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                     size_t errn);

static int tl_run(struct timeline *tl, struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                  char *err, size_t errn);

/* Run s (released here) on a fresh fabric of c: its time in *t; link
 * utilisation over time into tl when not NULL. */
static int sim_sched(const struct ccs_comm *c, struct ccs_sched *s, double *t, struct timeline *tl, char *err,
                     size_t errn)
{
	struct ccs_fabric *fab = NULL;
	struct ccs_sim_stats st;
	int rc = ccs_fabric_new(c, &fab);
	if (!rc)
		rc = tl ? tl_run(tl, fab, s, &st, err, errn) : ccs_sim_run(fab, s, &st, NULL, err, errn);
	ccs_fabric_free(fab);
	ccs_sched_release(s);
	if (!rc)
		*t = st.time_s;
	return rc;
}

/* A kvcache cell: time until the last layer lands, the rate a decode rank
 * receives at. */
static int kv_cell(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                   size_t errn)
{
	struct ccs_kv_cfg cfg = w->kvc;
	struct ccs_kv_plan p;
	struct ccs_kv_cost kc;
	int rc = ccs_kv_plan(c, &cfg, &p, err, errn);
	if (rc)
		return rc;
	rc = ccs_kv_eval(c, &cfg, &p, &kc);
	if (!rc) {
		snprintf(out->algo, sizeof out->algo, "%d->%d%s", cfg.prefill, cfg.decode, cfg.replicated ? " repl" : "");
		out->t_model = kc.time_s;
		out->bw = kc.time_s > 0 ? kc.recv_max / kc.time_s : 0;
	}
	if (!rc && engine) {
		struct ccs_sched s;
		const char *why = NULL;
		rc = ccs_sched_kv(c, &cfg, &p, &s, &why);
		if (rc && rc != CCS_ENOMEM)
			snprintf(err, errn, "%s", why);
		if (!rc)
			rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
	}
	ccs_kv_plan_release(&p);
	return rc;
}

/* Whether a kvcache workload fits the design (its ranks), before anything
 * runs: 0, or -1 with the reason in err. */
static int kv_check(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, char *err,
                    size_t errn)
{
	struct ccs_comm c;
	const struct ccs_comm *cp = gc;
	int own = w->ranks && w->ranks != gc->n;
	if (own) {
		if (ccs_comm_build(t, (int)w->ranks, (int)ppn, &c, err, errn))
			return -1;
		cp = &c;
	}
	struct ccs_kv_cfg cfg = w->kvc;
	struct ccs_kv_plan p;
	int rc = ccs_kv_plan(cp, &cfg, &p, err, errn);
	if (rc == CCS_ENOMEM)
		snprintf(err, errn, "out of memory");
	if (!rc)
		ccs_kv_plan_release(&p);
	if (own)
		ccs_comm_release(&c);
	return rc ? -1 : 0;
}

/* A workload with its own rank count runs on the design's first ranks. */
static int run_cell(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, int engine,
                    struct cell *out, char *err, size_t errn)
{
	if (!w->ranks || w->ranks == gc->n)
		return run_cell2(gc, w, engine, out, err, errn);
	struct ccs_comm c;
	if (ccs_comm_build(t, (int)w->ranks, (int)ppn, &c, err, errn))
		return CCS_EINPUT;
	int rc = run_cell2(&c, w, engine, out, err, errn);
	ccs_comm_release(&c);
	return rc;
}

static int run_cell2(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                     size_t errn)
{
	struct timeline *tl = out->tl;
	memset(out, 0, sizeof *out);
	out->tl = tl;
	out->t_model = out->t_sim = -1;
	out->lat_s = out->bwterm_s = out->step_s = DNAN;
	out->bound = -1;
	if (w->kv)
		return kv_cell(c, w, engine, out, err, errn);
	if (!w->moe) {
		unsigned amask = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
		unsigned pmask = w->proto >= 0 ? 1u << w->proto : (1u << CCS_PROTO_N) - 1;
		int a, q;
		struct ccs_cost cc;
		if (ccs_select(c, w->coll, w->bytes, amask, pmask, w->algo < 0, &a, &q) ||
		    ccs_cost_eval(c, w->coll, a, q, 0, w->bytes, &cc, NULL)) {
			snprintf(err, errn, "no algorithm applies");
			return CCS_EINPUT;
		}
		snprintf(out->algo, sizeof out->algo, "%s/%s", ccs_algo_name[a], ccs_proto_name[q]);
		out->t_model = cc.time_s;
		out->bw = (double)w->bytes / cc.time_s * ccs_busbw_factor(w->coll, c->n);
		out->bwterm_s = cc.bw_s;
		out->step_s = cc.step_s;
		out->lat_s = cc.time_s - cc.bw_s - cc.step_s;
		out->bound = cc.bound;
		if (engine) {
			struct ccs_sched s;
			const char *why;
			/* no schedule for NCCL's pick (NVLS AllGather ...): with the
			 * algorithm left to the tool, simulate NCCL's next choice that
			 * has one, and say so */
			int sa = a, sq = q;
			if (ccs_sched_build_next(c, w->coll, w->bytes, w->algo < 0 ? amask : 0, pmask, &sa, &sq, &s, &why)) {
				snprintf(err, errn, "%s", why);
				return CCS_EINPUT;
			}
			if (sa != a || sq != q)
				snprintf(out->algo, sizeof out->algo, "%s/%s (sim %s/%s)", ccs_algo_name[a], ccs_proto_name[q],
				         ccs_algo_name[sa], ccs_proto_name[sq]);
			int rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
			if (rc)
				return rc;
		}
		return CCS_OK;
	}
	if (ccs_moe_check(&w->cfg, c->n, err, errn))
		return CCS_EINPUT;
	struct ccs_moe_routing r;
	if (ccs_moe_route(&w->cfg, c, NULL, &r))
		return CCS_ENOMEM;
	int best = -1, rc = CCS_OK;
	struct ccs_moe_cost bc;
	memset(&bc, 0, sizeof bc);
	for (int a = 0; a < CCS_MOE_ALGO_N; a++) {
		if (w->algo >= 0 && a != w->algo)
			continue;
		struct ccs_moe_plan p;
		struct ccs_moe_cost mc;
		if (ccs_moe_plan(c, &w->cfg, &r, NULL, w->op, a, &p, err, errn))
			continue;
		rc = ccs_moe_eval(c, &p, &mc);
		ccs_moe_plan_release(&p);
		if (rc)
			break;
		if (best < 0 || mc.time_s < bc.time_s) {
			best = a;
			bc = mc;
		}
	}
	if (!rc && best < 0) {
		rc = CCS_EINPUT;
		if (w->algo < 0)
			snprintf(err, errn, "no algorithm applies");
	}
	if (!rc) {
		snprintf(out->algo, sizeof out->algo, "%s", ccs_moe_algo_name[best]);
		out->t_model = bc.time_s;
		out->bw = bc.bottleneck_Bps;
		out->lat_s = bc.lat_s;
		out->bwterm_s = bc.time_s - bc.lat_s;
		out->step_s = 0;
		out->bound = bc.bound;
		if (engine) {
			struct ccs_moe_plan p;
			struct ccs_sched s;
			const char *why;
			rc = ccs_moe_plan(c, &w->cfg, &r, NULL, w->op, best, &p, err, errn);
			if (!rc) {
				rc = ccs_sched_moe(c, &p, &s, &why);
				ccs_moe_plan_release(&p);
				if (rc)
					snprintf(err, errn, "%s", why);
			}
			if (!rc)
				rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
		}
	}
	ccs_moe_routing_release(&r);
	return rc;
}

/* ---- link utilisation over time (the heatmap of a simulated point) ---- */

#define TL_LINKS 12
#define TL_BINS 48
#define TL_MAX_EVENTS 2000000u

struct tl_ev {
	ccs_time t;
	uint32_t res;
	float util;
};

struct timeline {
	char path[1200];            /* the .dat to write */
	const char *title;
	struct tl_ev *ev;
	size_t nev, cap;
	int overflow;
	const struct ccs_fabric *fab;
};

static void tl_rates(void *ctx, const struct ccs_flows *fl, ccs_time t)
{
	struct timeline *tl = ctx;
	uint32_t n;
	const uint32_t *res = ccs_flows_touched(fl, &n);
	for (uint32_t i = 0; i < n && !tl->overflow; i++) {
		if (tl->nev == tl->cap) {
			if (tl->cap >= TL_MAX_EVENTS || ccs_grow(&tl->ev, &tl->cap, tl->nev + 1, sizeof *tl->ev)) {
				tl->overflow = 1;
				break;
			}
		}
		double cap = ccs_flows_cap(fl, res[i]);
		tl->ev[tl->nev++] = (struct tl_ev){ t, res[i], cap > 0 ? (float)(100 * ccs_flows_load(fl, res[i]) / cap) : 0 };
	}
}

struct busy {
	uint32_t res;
	double bytes;
};

static int by_bytes(const void *a, const void *b)
{
	const struct busy *x = a, *y = b;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

/* Simulate with the rates hook, then write the TL_LINKS busiest resources'
 * mean utilisation in TL_BINS equal time bins: one row per link, "bin
 * link util" triples for gnuplot's image plot. */
static int tl_run(struct timeline *tl, struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                  char *err, size_t errn)
{
	struct ccs_sim_hooks h;
	memset(&h, 0, sizeof h);
	h.ctx = tl;
	h.rates = tl_rates;
	tl->fab = fab;
	struct ccs_flows *fl = NULL;
	int rc = ccs_sim_run_hooked(fab, s, st, &fl, &h, err, errn);
	if (rc || tl->overflow || !fl) {
		ccs_flows_free(fl);
		ccs_free(tl->ev);
		tl->ev = NULL;
		return rc;
	}
	uint32_t nres = ccs_fabric_nres(fab);
	struct busy *b = ccs_malloc(((size_t)nres + 1) * sizeof *b);
	double (*bins)[TL_BINS] = ccs_calloc(TL_LINKS, sizeof *bins);
	int32_t *slot = ccs_malloc(((size_t)nres + 1) * sizeof *slot);
	if (b && bins && slot) {
		for (uint32_t r = 0; r < nres; r++) {
			b[r].res = r;
			double cap = ccs_flows_cap(fl, r);
			b[r].bytes = cap > 0 ? ccs_flows_stats(fl, r)->bytes / cap : 0;   /* busy seconds at full rate */
			slot[r] = -1;
		}
		qsort(b, nres, sizeof *b, by_bytes);
		int nl = 0;
		while (nl < TL_LINKS && (uint32_t)nl < nres && b[nl].bytes > 0) {
			slot[b[nl].res] = nl;
			nl++;
		}
		double T = st->time_s > 0 ? st->time_s : 1e-12, w = T / TL_BINS;
		double last_t[TL_LINKS] = { 0 }, last_u[TL_LINKS] = { 0 };
		/* utilisation is piecewise constant between events */
		for (size_t i = 0; i <= tl->nev; i++) {
			int k = i < tl->nev ? slot[tl->ev[i].res] : -1;
			double t = i < tl->nev ? (double)tl->ev[i].t * 1e-12 : T;
			for (int j = 0; j < nl; j++) {
				if (i < tl->nev && j != k)
					continue;
				int b0 = (int)(last_t[j] / w), b1 = (int)(t / w);
				if (b1 >= TL_BINS)
					b1 = TL_BINS - 1;
				for (int bi = b0 < 0 ? 0 : b0; bi <= b1 && last_u[j] > 0; bi++) {
					double ov = fmin(t, (bi + 1) * w) - fmax(last_t[j], bi * w);
					if (ov > 0)
						bins[j][bi] += last_u[j] * ov / w;
				}
				last_t[j] = t;
				if (i < tl->nev)
					last_u[j] = tl->ev[i].util;
			}
		}
		FILE *f = fopen(tl->path, "w");
		if (f) {
			fprintf(f, "# %s: utilisation (%%) of the %d busiest links (bytes over capacity) in %d bins of %.4g us\n", tl->title, nl, TL_BINS,
			        w * 1e6);
			fprintf(f, "# time_us link util_pct name\n");
			for (int j = 0; j < nl; j++) {
				char name[128];
				ccs_fabric_res_name(fab, b[j].res, name, sizeof name);
				for (char *q = name; *q; q++)
					if (*q == ' ' || *q == '"')
						*q = '_';
				for (int i = 0; i < TL_BINS; i++)
					fprintf(f, "%.6g %d %.3f %s\n", (i + 0.5) * w * 1e6, j, bins[j][i], name);
				fprintf(f, "\n");
			}
			fclose(f);
		}
	}
	ccs_free(b);
	ccs_free(bins);
	ccs_free(slot);
	ccs_flows_free(fl);
	ccs_free(tl->ev);
	tl->ev = NULL;
	return CCS_OK;
}

/* ---- sweeps ---- */

/* An axis: a topology scalar (key as for --set), a field of every workload
 * ("workload.KEY"), or a list inside one workload (local). */
struct axis {
	const char *key;            /* --set key, or the workload key */
	const struct ccs_ynode *at; /* for messages */
	int workload;
	uint32_t n;
	const struct ccs_ynode **val;
};

/* A design on one combination of the topology axes. */
struct inst {
	int design;
	char axes[256];             /* "nodes=16 scaleout.oversubscription=2" */
	char hash[24];
	struct ccs_topo *t;
	struct ccs_comm c;
	int built;
};

/* A workload on one combination of its axes. */
struct winst {
	int work;
	char axes[256];
	struct work w;
};

struct point {
	int inst, wi;
	int heat;                   /* the last point of its (instance, workload): draws the heatmap */
	int done;                   /* in the database before this run */
	char key[384];
};

struct job {
	struct ccs_result r;
	char err[256];
};

struct scen {
	const char *name, *path;
	int engine, plots;
	char outdir[1024];
	struct design *gs;
	int ng;
	struct work *ws;            /* as written (names, nodes) */
	int nw;
	struct axis *ax;            /* global: topology axes first, then workload ones */
	int nax, ntopo_ax;
	struct axis *lax;           /* local axes of every workload, grouped */
	int *lax_off;               /* per workload, nw + 1 offsets into lax */
	struct inst *inst;
	size_t ninst;
	struct winst *wi;
	size_t nwi;
	struct point *pt;
	size_t npt;
	int32_t *at;                /* ninst x nwi: the point of (instance, workload instance), -1 left out */
	struct ccs_store *db;
	int64_t scen_id;
	struct ccs_result *pending;
	size_t npending, cap_pending;
	size_t failed, stored, skipped;
	double last_flush;
};

/* Whether workload w takes its algorithm or protocol from a list (its own or
 * a sweep axis). */
static int listed_algo(const struct scen *S, int w)
{
	for (int k = S->lax_off[w]; k < S->lax_off[w + 1]; k++)
		if (!strcmp(S->lax[k].key, "algo") || !strcmp(S->lax[k].key, "proto"))
			return 1;
	for (int a = S->ntopo_ax; a < S->nax; a++)
		if (!strcmp(S->ax[a].key, "workload.algo") || !strcmp(S->ax[a].key, "workload.proto"))
			return 1;
	return 0;
}

static void topo_hash(const struct ccs_topo *t, char out[24])
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x) do { uint64_t v_; double d_ = (double)(x); memcpy(&v_, &d_, 8); h ^= v_; h *= 1099511628211ull; } while (0)
	MIX(t->ndev);
	MIX(t->nlink);
	for (uint32_t i = 0; i < t->ndev; i++) {
		MIX(t->dev[i].kind);
		MIX(t->dev[i].bw_Bps);
		MIX(t->dev[i].lat_s);
		MIX(t->dev[i].node);
		MIX(t->dev[i].flags);
	}
	for (uint32_t i = 0; i < t->nlink; i++) {
		MIX(t->link[i].a);
		MIX(t->link[i].b);
		MIX(t->link[i].type);
		MIX(t->link[i].bw_Bps);
		MIX(t->link[i].lat_s);
	}
	const struct ccs_model_params *p = &t->params;
	for (int i = 0; i < CCS_LINK_NTYPES; i++)
		MIX(p->eff[i]);
	for (int i = 0; i < 3; i++)
		MIX(p->step_s[i]);
	MIX(p->nvls_channels);
	MIX(p->channels);
	MIX(p->ep_overhead_s);
	MIX(p->shot_overhead_s[0]);
	MIX(p->shot_overhead_s[1]);
	MIX(p->twoshot_eff);
#undef MIX
	snprintf(out, 24, "%016llx", (unsigned long long)h);
}

static void file_hash(const char *text, size_t len, char out[24])
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 1099511628211ull;
	}
	snprintf(out, 24, "%016llx", (unsigned long long)h);
}

/* An axis from key: [values] (values: scalars). */
static int axis_from(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a)
{
	int rc = ccs_y_kind(d, v, CCS_Y_SEQ, k->str);
	if (rc)
		return rc;
	if (!v->n)
		return ydiag(d, v, "'%s' needs at least one value", k->str);
	a->key = k->str;
	a->at = k;
	a->n = v->n;
	a->val = ccs_calloc(v->n, sizeof *a->val);
	if (!a->val)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < v->n; i++) {
		if ((rc = ccs_y_kind(d, v->v[i], CCS_Y_SCALAR, k->str)))
			return rc;
		a->val[i] = v->v[i];
	}
	return CCS_OK;
}

/* sizes: {from: 8B, to: 8GiB, factor: 2} as a list of scalar nodes made in
 * the document's arena (marked at the 'sizes' value). */
static int sizes_axis(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a,
                      int quick)
{
	static const char *const keys[] = { "from", "to", "factor" };
	int rc;
	if ((rc = ccs_y_kind(d, v, CCS_Y_MAP, "sizes")) || (rc = ccs_y_keys(d, v, keys, 3, "'sizes'")) ||
	    (rc = ccs_y_need(d, v, "from", "'sizes'")) || (rc = ccs_y_need(d, v, "to", "'sizes'")))
		return rc;
	uint64_t lo, hi;
	long f = 2;
	char err[160];
	const struct ccs_ynode *fy = ccs_y_get(v, "from"), *ty = ccs_y_get(v, "to");
	if ((rc = ccs_y_kind(d, fy, CCS_Y_SCALAR, "from")) || (rc = ccs_y_kind(d, ty, CCS_Y_SCALAR, "to")) ||
	    (rc = ccs_y_long(d, v, "factor", 2, 1024, &f)))
		return rc;
	if (ccs_parse_size(fy->str, &lo, err, sizeof err) || !lo)
		return ydiag(d, fy, "from: '%s' is not a size such as 8B or 64KiB", fy->str);
	if (ccs_parse_size(ty->str, &hi, err, sizeof err) || hi < lo)
		return ydiag(d, ty, "to: '%s' is not a size of at least 'from'", ty->str);
	if (quick)
		f = f * f * f < 4096 ? f * f * f : f;   /* every third size */
	uint32_t n = 0;
	for (uint64_t x = lo; x <= hi && n < 64; x *= (uint64_t)f)
		n++;
	if (n >= 64)
		return ydiag(d, v, "'sizes' gives more than 63 sizes; use a larger factor");
	a->key = "bytes";
	a->at = k;
	a->n = n;
	a->val = ccs_calloc(n, sizeof *a->val);
	struct ccs_ynode *nodes = ccs_arena_alloc(&d->arena, n * sizeof *nodes);
	if (!a->val || !nodes)
		return CCS_ENOMEM;
	uint64_t x = lo;
	for (uint32_t i = 0; i < n; i++, x *= (uint64_t)f) {
		nodes[i].kind = CCS_Y_SCALAR;
		nodes[i].mark = v->mark;
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
		uint64_t y = x;
		int ui = 0;
		while (ui < 4 && y >= 1024 && y % 1024 == 0) {
			y /= 1024;
			ui++;
		}
		nodes[i].str = ccs_arena_printf(&d->arena, "%llu%s", (unsigned long long)y, u[ui]);
		if (!nodes[i].str)
			return CCS_ENOMEM;
		a->val[i] = &nodes[i];
	}
	return CCS_OK;
}

/* Load workload m with the values of some keys replaced (and 'sizes' and
 * list-valued keys left out): a copy of the map with the new values. */
static int load_work_with(struct ccs_ydoc *d, const struct ccs_ynode *m, int nov, const char *const *keys,
                          const struct ccs_ynode *const *vals, struct work *w)
{
	struct ccs_ynode copy = *m;
	uint32_t cap = m->n + (uint32_t)nov + 1;
	copy.k = ccs_calloc(cap, sizeof *copy.k);
	copy.v = ccs_calloc(cap, sizeof *copy.v);
	struct ccs_ynode *knodes = ccs_calloc((size_t)nov + 1, sizeof *knodes);
	int rc = CCS_ENOMEM;
	if (copy.k && copy.v && knodes) {
		copy.n = 0;
		for (uint32_t i = 0; i < m->n; i++) {
			if (!strcmp(m->k[i]->str, "sizes") || m->v[i]->kind == CCS_Y_SEQ)
				continue;
			copy.k[copy.n] = m->k[i];
			copy.v[copy.n++] = m->v[i];
		}
		for (int j = 0; j < nov; j++) {
			uint32_t i = 0;
			while (i < copy.n && strcmp(copy.k[i]->str, keys[j]))
				i++;
			if (i == copy.n) {
				knodes[j].kind = CCS_Y_SCALAR;
				knodes[j].str = keys[j];
				knodes[j].mark = vals[j]->mark;
				copy.k[copy.n++] = &knodes[j];
			}
			copy.v[i] = (struct ccs_ynode *)vals[j];
		}
		rc = load_work(d, &copy, w);
		w->node = m;
	}
	ccs_free(copy.k);
	ccs_free(copy.v);
	ccs_free(knodes);
	return rc;
}

/* Odometer over the n axes a[0..n): idx advanced; 0 when it wrapped. */
static int next_combo(const struct axis *a, int n, uint32_t *idx)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++idx[i] < a[i].n)
			return 1;
		idx[i] = 0;
	}
	return 0;
}

static void axes_text(const struct axis *a, int n, const uint32_t *idx, char *out, size_t outn, int strip_workload)
{
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(out);
		const char *k = a[i].key;
		if (strip_workload && !strncmp(k, "workload.", 9))
			k += 9;
		snprintf(out + l, outn - l, "%s%s=%s", l ? " " : "", k, a[i].val[idx[i]]->str);
	}
}

/* ---- running points ---- */

static int compute(void *ctx, size_t task, void *res)
{
	struct scen *S = ctx;
	const struct point *pt = &S->pt[task];
	const struct inst *in = &S->inst[pt->inst];
	const struct winst *wi = &S->wi[pt->wi];
	const struct design *g = &S->gs[in->design];
	struct job *j = res;
	struct cell ce;
	memset(&ce, 0, sizeof ce);
	struct timeline tl;
	memset(&tl, 0, sizeof tl);
	if (pt->heat && S->plots && S->engine) {
		char a[128], b[128];
		ccs_plot_slug(g->name, a, sizeof a);
		ccs_plot_slug(S->ws[wi->work].name, b, sizeof b);
		snprintf(tl.path, sizeof tl.path, "%.900s/links-%.100s-%.100s-%zu.dat", S->outdir, a, b, (size_t)pt->inst);
		tl.title = pt->key;
		ce.tl = &tl;
	}
	int rc = run_cell(in->t, &in->c, g->ppn, &wi->w, S->engine, &ce, j->err, sizeof j->err);
	if (rc == CCS_ENOMEM)
		snprintf(j->err, sizeof j->err, "out of memory");
	struct ccs_result *r = &j->r;
	r->ranks = wi->w.ranks ? (int)wi->w.ranks : in->c.n;
	snprintf(r->collective, sizeof r->collective, "%s",
	         wi->w.kv ? "kvcache" : wi->w.moe ? ccs_moe_op_name[wi->w.op] : ccs_coll_cli[wi->w.coll]);
	snprintf(r->algo, sizeof r->algo, "%s", ce.algo);
	snprintf(r->bound, sizeof r->bound, "%s", ce.bound >= 0 ? ccs_bound_name[ce.bound] : "");
	r->size = wi->w.moe || wi->w.kv ? 0 : wi->w.bytes;
	r->t_model_s = S->engine != 1 && ce.t_model >= 0 ? ce.t_model : DNAN;
	r->t_sim_s = S->engine && ce.t_sim >= 0 ? ce.t_sim : DNAN;
	r->bw_model_Bps = S->engine != 1 ? ce.bw : DNAN;
	r->bw_sim_Bps = S->engine && ce.t_sim > 0 && ce.t_model > 0 ? ce.bw * ce.t_model / ce.t_sim : DNAN;
	r->lat_s = ce.lat_s;
	r->bwterm_s = ce.bwterm_s;
	r->step_s = ce.step_s;
	return rc;
}

static int flush_results(struct scen *S)
{
	if (!S->npending)
		return 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_add_results(S->db, S->scen_id, S->pending, S->npending, &d)) {
		fprintf(stderr, "\n%s\n", d.msg);
		return -1;
	}
	S->stored += S->npending;
	S->npending = 0;
	return 0;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int collect(void *ctx, size_t task, int rc, const void *res)
{
	struct scen *S = ctx;
	const struct job *j = res;
	const struct point *pt = &S->pt[task];
	if (rc) {
		fprintf(stderr, "\n%s: %s: %s: %s\n", me, S->path, pt->key, j->err[0] ? j->err : "failed");
		S->failed++;
		return 0;
	}
	if (ccs_grow(&S->pending, &S->cap_pending, S->npending + 1, sizeof *S->pending))
		return 1;
	struct ccs_result *r = &S->pending[S->npending++];
	*r = j->r;
	const struct inst *in = &S->inst[pt->inst];
	snprintf(r->point, sizeof r->point, "%s", pt->key);
	snprintf(r->topo_hash, sizeof r->topo_hash, "%s", in->hash);
	snprintf(r->design, sizeof r->design, "%s", S->gs[in->design].name);
	snprintf(r->workload, sizeof r->workload, "%s", S->ws[S->wi[pt->wi].work].name);
	snprintf(r->axes, sizeof r->axes, "%.127s%s%.127s", in->axes, in->axes[0] && S->wi[pt->wi].axes[0] ? " " : "",
	         S->wi[pt->wi].axes);
	/* each batch is one transaction: at most a quarter second of work is
	 * in memory when a signal comes */
	double now = mono_s();
	if (S->npending >= 256 || now - S->last_flush > 0.25) {
		S->last_flush = now;
		if (flush_results(S))
			return 1;
	}
	return 0;
}

/* ---- the summary and the plots ---- */

static int by_key(const void *a, const void *b)
{
	const struct ccs_result *x = a, *y = b;
	int c = strcmp(x->point, y->point);
	return c ? c : strcmp(x->topo_hash, y->topo_hash);
}

/* The stored result of a point on its topology, from rs sorted by by_key. */
static const struct ccs_result *find_result(const struct ccs_result *rs, size_t n, const char *key, const char *hash)
{
	if (!n)
		return NULL;
	struct ccs_result k;
	snprintf(k.point, sizeof k.point, "%s", key);
	snprintf(k.topo_hash, sizeof k.topo_hash, "%s", hash);
	return bsearch(&k, rs, n, sizeof *rs, by_key);
}

/* The result of (instance, workload instance), NULL when left out. */
static const struct ccs_result *res_at(const struct scen *S, const struct ccs_result **res, size_t inst, size_t wi)
{
	int32_t p = S->at[inst * S->nwi + wi];
	return p < 0 ? NULL : res[p];
}

static double shown_t(const struct scen *S, const struct ccs_result *r)
{
	return S->engine == 1 ? r->t_sim_s : r->t_model_s;
}

static void cell_text(const struct scen *S, const struct ccs_result *r, char *b, size_t n)
{
	if (!r)
		snprintf(b, n, "-");
	else if (S->engine == 0)
		snprintf(b, n, "%.1f us %s", r->t_model_s * 1e6, r->algo);
	else if (S->engine == 1)
		snprintf(b, n, "%.1f us %s", r->t_sim_s * 1e6, r->algo);
	else
		snprintf(b, n, "%.1f/%.1f us %s", r->t_model_s * 1e6, r->t_sim_s * 1e6, r->algo);
}

/* One table per workload: a row per combination of the axes, a column
 * per design. */
static void print_tables(const struct scen *S, const struct ccs_result **res)
{
	printf("# %s: %s (%s)\n", me, S->name,
	       S->engine == 0 ? "closed form" : S->engine == 1 ? "simulator" : "closed form / simulator");
	/* the axes column as wide as its longest text (at least 12) */
	int aw = 12;
	for (size_t i = 0; i < S->npt; i++) {
		int l = (int)(strlen(S->inst[S->pt[i].inst].axes) + 1 + strlen(S->wi[S->pt[i].wi].axes));
		if (l > aw)
			aw = l < 120 ? l : 120;
	}
	for (int w = 0; w < S->nw; w++) {
		printf("#\n# %s\n# %-*s", S->ws[w].name, aw, "axes");
		for (int g = 0; g < S->ng; g++)
			printf(" | %-42.42s", S->gs[g].name);
		printf("\n");
		/* rows: (topology axes, workload axes) in point order */
		for (size_t i = 0; i < S->npt; i++) {
			const struct point *p = &S->pt[i];
			if (S->wi[p->wi].work != w || S->inst[p->inst].design != 0)
				continue;
			char ax[600];
			snprintf(ax, sizeof ax, "%s%s%s", S->inst[p->inst].axes,
			         S->inst[p->inst].axes[0] && S->wi[p->wi].axes[0] ? " " : "", S->wi[p->wi].axes);
			printf("  %-*.*s", aw, aw, ax[0] ? ax : "-");
			for (int g = 0; g < S->ng; g++) {
				/* the same axes on design g: instances go design by design,
				 * each over every combination of the topology axes */
				size_t ncombo = S->ninst / (size_t)S->ng;
				const struct ccs_result *r = res_at(S, res, (size_t)g * ncombo + (size_t)p->inst % ncombo, (size_t)p->wi);
				char b[96];
				cell_text(S, r, b, sizeof b);
				printf(" | %-42.42s", b);
			}
			printf("\n");
		}
	}
}

/* The old side-by-side layout, when nothing is swept (one point per
 * design and workload). */
static void print_grid(const struct scen *S, const struct ccs_result **res)
{
	printf("# %s: %s (%s)\n#\n", me, S->name,
	       S->engine == 0 ? "closed form" : S->engine == 1 ? "simulator" : "closed form / simulator");
	printf("# %-24s", "design");
	for (int i = 0; i < S->ng; i++)
		printf(" | %-28.28s", S->gs[i].name);
	printf("\n# %-24s", "ranks (groups x size)");
	for (int i = 0; i < S->ng; i++) {
		char b[64];
		snprintf(b, sizeof b, "%d (%d x %d)", S->inst[i].c.n, S->inst[i].c.G, S->inst[i].c.p);
		printf(" | %-28s", b);
	}
	printf("\n");
	for (int j = 0; j < S->nw; j++) {
		printf("  %-24.24s", S->ws[j].name);
		for (int i = 0; i < S->ng; i++) {
			char b[96];
			cell_text(S, res[(size_t)i * S->nw + j], b, sizeof b);
			printf(" | %-28.28s", b);
		}
		printf("\n");
	}
	printf("#\n# bandwidth: MoE rows DeepEP's bottleneck bandwidth, kvcache what a decode rank receives per second, collectives busbw (GB/s, closed form)\n");
	for (int j = 0; j < S->nw; j++) {
		printf("  %-24.24s", S->ws[j].name);
		for (int i = 0; i < S->ng; i++) {
			const struct ccs_result *r = res[(size_t)i * S->nw + j];
			char b[64];
			snprintf(b, sizeof b, "%.1f GB/s", r && r->bw_model_Bps == r->bw_model_Bps ? r->bw_model_Bps / 1e9 : 0.0);
			printf(" | %-28s", b);
		}
		printf("\n");
	}
}

struct plots {
	char (*name)[200];
	size_t n, cap;
};

static int plot_add(struct plots *P, const char *name)
{
	if (ccs_grow(&P->name, &P->cap, P->n + 1, sizeof *P->name))
		return -1;
	snprintf(P->name[P->n++], sizeof P->name[0], "%s", name);
	return 0;
}

static FILE *dat_open(const struct scen *S, const char *name)
{
	char path[1400];
	snprintf(path, sizeof path, "%s/%s.dat", S->outdir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: cannot write '%s': %s\n", me, path, strerror(errno));
	return f;
}

/* busbw against size, one line per series (the workload's other axes, and
 * the simulator beside the closed form), per workload and design instance */
static int plot_busbw(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int w = 0; w < S->nw; w++) {
		int sz = -1;
		for (int k = S->lax_off[w]; k < S->lax_off[w + 1]; k++)
			if (!strcmp(S->lax[k].key, "bytes"))
				sz = k;
		if (sz < 0 || S->lax[sz].n < 2)
			continue;
		for (size_t in = 0; in < S->ninst; in++) {
			/* series: the winsts of w with the same non-size axes */
			char name[200], a[96], b[96];
			ccs_plot_slug(S->gs[S->inst[in].design].name, a, sizeof a);
			ccs_plot_slug(S->ws[w].name, b, sizeof b);
			snprintf(name, sizeof name, "busbw-%.80s-%.80s%s%zu", b, a, S->ntopo_ax ? "-" : "", S->ntopo_ax ? in : 0);
			if (!S->ntopo_ax)
				name[strlen(name) - 1] = 0;
			FILE *f = dat_open(S, name);
			if (!f)
				return -1;
			/* rows by size; columns by series */
			uint32_t nsz = S->lax[sz].n;
			size_t per = 0;   /* winsts of w */
			size_t first = 0;
			for (size_t k = 0; k < S->nwi; k++)
				if (S->wi[k].work == w) {
					if (!per)
						first = k;
					per++;
				}
			/* winsts are generated with the local axes in order; the size
			 * axis's stride is the product of the later axes' sizes */
			size_t stride = 1;
			for (int k = sz + 1; k < S->lax_off[w + 1]; k++)
				stride *= S->lax[k].n;
			size_t nser = per / nsz;
			int both = S->engine == 2;
			fprintf(f, "# busbw (GB/s) of %s on %s %s; x: size\nsize_B label", S->ws[w].name,
			        S->gs[S->inst[in].design].name, S->inst[in].axes);
			char (*ser)[160] = ccs_calloc(nser ? nser : 1, sizeof *ser);
			if (!ser) {
				fclose(f);
				return -1;
			}
			/* the values first: series without any (a combination left
			 * out at every size) are not drawn */
			int wcol = both ? 2 : 1;
			double *val = ccs_malloc((size_t)nsz * nser * (size_t)wcol * sizeof *val + 1);
			char *keep = ccs_calloc(nser ? nser : 1, 1);
			if (!val || !keep) {
				ccs_free(val);
				ccs_free(keep);
				ccs_free(ser);
				fclose(f);
				return -1;
			}
			size_t nkeep = 0;
			for (size_t s = 0; s < nser; s++) {
				size_t outer = s / stride, inner = s % stride;
				for (uint32_t zi = 0; zi < nsz; zi++) {
					size_t k = first + outer * stride * nsz + zi * stride + inner;
					const struct ccs_result *r = res_at(S, res, in, k);
					double v = r ? (S->engine == 1 ? r->bw_sim_Bps : r->bw_model_Bps) / 1e9 : DNAN;
					double vs = r && r->bw_sim_Bps == r->bw_sim_Bps ? r->bw_sim_Bps / 1e9 : DNAN;
					val[(zi * nser + s) * (size_t)wcol] = v;
					if (both)
						val[(zi * nser + s) * 2 + 1] = vs;
					if (v == v)
						keep[s] = 1;
				}
				nkeep += keep[s];
			}
			for (size_t s = 0; s < nser; s++) {
				if (!keep[s])
					continue;
				/* series s: the winst index with size index 0 */
				size_t outer = s / stride, inner = s % stride;
				size_t k0 = first + outer * stride * nsz + inner;
				/* its axes without the size, values only: "ring ll128" */
				char txt[256] = "";
				const char *ax = S->wi[k0].axes;
				for (const char *p = ax; *p;) {
					const char *e = strchr(p, ' ');
					size_t l = e ? (size_t)(e - p) : strlen(p);
					const char *eq = memchr(p, '=', l);
					if (strncmp(p, "bytes=", 6)) {
						size_t tl = strlen(txt);
						size_t off = eq ? (size_t)(eq + 1 - p) : 0;
						snprintf(txt + tl, sizeof txt - tl, "%s%.*s", tl ? " " : "", (int)(l - off), p + off);
					}
					p += l;
					while (*p == ' ')
						p++;
				}
				snprintf(ser[s], sizeof ser[s], "%.150s", txt[0] ? txt : S->ws[w].name);
				fprintf(f, " \"%s\"", ser[s]);
				if (both)
					fprintf(f, " \"%s (sim)\"", ser[s]);
			}
			fprintf(f, "\n");
			uint32_t every = nsz > 10 ? (nsz + 9) / 10 : 1;
			for (uint32_t zi = 0; zi < nsz; zi++) {
				const char *lab = S->lax[sz].val[zi]->str;
				uint64_t bytes = 0;
				char err[64];
				ccs_parse_size(lab, &bytes, err, sizeof err);
				fprintf(f, "%llu \"%s\"", (unsigned long long)bytes, zi % every ? "" : lab);
				for (size_t s = 0; s < nser; s++)
					for (int c = 0; c < wcol && keep[s]; c++)
						fprintf(f, " %.6g", val[(zi * nser + s) * (size_t)wcol + (size_t)c]);
				fprintf(f, "\n");
			}
			ccs_free(val);
			ccs_free(keep);
			nser = nkeep;
			fclose(f);
			char body[8192], title[400];
			size_t last = 2 + nser * (both ? 2 : 1);
			if (both)
				snprintf(body, sizeof body,
				         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\nset xlabel 'message size (bytes, nccl-tests size)'\n"
				         "set ylabel 'bus bandwidth (GB/s)'\nset key autotitle columnhead noenhanced\n"
				         "plot for [i=3:%zu:2] '%s.dat' using 1:i:xtic(2) with linespoints lw 2, \\\n"
				         "     for [i=4:%zu:2] '%s.dat' using 1:i with points pt 6 ps 1.5\n",
				         last, name, last, name);
			else
				snprintf(body, sizeof body,
				         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\nset xlabel 'message size (bytes, nccl-tests size)'\n"
				         "set ylabel 'bus bandwidth (GB/s)'\nset key autotitle columnhead noenhanced\n"
				         "plot for [i=3:%zu] '%s.dat' using 1:i:xtic(2) with linespoints lw 2\n",
				         last, name);
			snprintf(title, sizeof title, "%s: %s on %s %s", S->name, S->ws[w].name, S->gs[S->inst[in].design].name,
			         S->inst[in].axes);
			ccs_free(ser);
			if (ccs_plot_script(S->outdir, name, title, body) || plot_add(P, name))
				return -1;
		}
	}
	return 0;
}

/* time against each global axis with two values or more: per workload, a
 * line per design (the other axes at every combination) */
static int plot_axes(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int a = 0; a < S->nax; a++) {
		if (S->ax[a].n < 2)
			continue;
		for (int w = 0; w < S->nw; w++) {
			char name[200], ak[96], wk[96];
			ccs_plot_slug(S->ax[a].key, ak, sizeof ak);
			ccs_plot_slug(S->ws[w].name, wk, sizeof wk);
			snprintf(name, sizeof name, "time-%s-vs-%s", wk, ak);
			FILE *f = dat_open(S, name);
			if (!f)
				return -1;
			/* series: points of w whose value of axis a is the first one */
			char prefix[200];
			snprintf(prefix, sizeof prefix, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
			         S->ax[a].val[0]->str);
			fprintf(f, "# time (us) of %s against %s\nindex value", S->ws[w].name, S->ax[a].key);
			size_t *series = ccs_calloc(S->npt + 1, sizeof *series);
			size_t ns = 0;
			if (!series) {
				fclose(f);
				return -1;
			}
			for (size_t i = 0; i < S->npt; i++) {
				const struct point *p = &S->pt[i];
				if (S->wi[p->wi].work != w)
					continue;
				char ax[600];
				snprintf(ax, sizeof ax, " %s %s ", S->inst[p->inst].axes, S->wi[p->wi].axes);
				char pat[220];
				snprintf(pat, sizeof pat, " %s ", prefix);
				if (!strstr(ax, pat))
					continue;
				series[ns++] = i;
				/* the series label: design and the other axes */
				char lab[700] = "";
				if (S->ng > 1)
					snprintf(lab, sizeof lab, "%s", S->gs[S->inst[p->inst].design].name);
				for (char *tok = ax; *tok;) {
					while (*tok == ' ')
						tok++;
					char *e = strchr(tok, ' ');
					size_t l = e ? (size_t)(e - tok) : strlen(tok);
					if (l && strncmp(tok, prefix, strlen(prefix) - strlen(S->ax[a].val[0]->str)) != 0) {
						size_t ll = strlen(lab);
						snprintf(lab + ll, sizeof lab - ll, "%s%.*s", ll ? " " : "", (int)l, tok);
					}
					tok += l;
				}
				for (int e = 0; e < (S->engine == 2 ? 2 : 1); e++) {
					fprintf(f, " \"");
					for (const char *c = lab; *c; c++)
						if (*c != '"')
							fputc(*c, f);
					fprintf(f, "%s\"", e ? " (sim)" : "");
				}
			}
			fprintf(f, "\n");
			for (uint32_t v = 0; v < S->ax[a].n; v++) {
				fprintf(f, "%u \"%s\"", v, S->ax[a].val[v]->str);
				for (size_t s = 0; s < ns; s++) {
					/* the point equal to series[s] but for axis a = value v */
					const struct point *p0 = &S->pt[series[s]];
					char want[600], from[220], to[220];
					snprintf(from, sizeof from, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
					         S->ax[a].val[0]->str);
					snprintf(to, sizeof to, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
					         S->ax[a].val[v]->str);
					char base[600];
					snprintf(base, sizeof base, " %s %s ", S->inst[p0->inst].axes, S->wi[p0->wi].axes);
					char *at = strstr(base, from);
					if (at)
						snprintf(want, sizeof want, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
					else
						snprintf(want, sizeof want, "%s", base);
					double t = DNAN, ts = DNAN;
					for (size_t q = 0; q < S->npt; q++) {
						const struct point *p = &S->pt[q];
						if (S->wi[p->wi].work != w || S->inst[p->inst].design != S->inst[p0->inst].design)
							continue;
						char ax[600];
						snprintf(ax, sizeof ax, " %s %s ", S->inst[p->inst].axes, S->wi[p->wi].axes);
						if (!strcmp(ax, want) && res[q]) {
							t = shown_t(S, res[q]) * 1e6;
							ts = res[q]->t_sim_s * 1e6;
							break;
						}
					}
					fprintf(f, " %.6g", t);
					if (S->engine == 2)
						fprintf(f, " %.6g", ts);
				}
				fprintf(f, "\n");
			}
			fclose(f);
			ccs_free(series);
			char body[4096], title[400];
			if (S->engine == 2)
				snprintf(body, sizeof body,
				         "set datafile missing 'nan'\nset xlabel '%s' noenhanced\nset ylabel 'time (us)'\nset logscale y\n"
				         "set key below autotitle columnhead noenhanced\nset offsets 0.3, 0.3, 0, 0\n"
				         "plot for [i=3:%zu:2] '%s.dat' using 1:i:xtic(2) with linespoints lw 2, \\\n"
				         "     for [i=4:%zu:2] '%s.dat' using 1:i with linespoints dt 2 pt 6\n",
				         S->ax[a].key, 2 + 2 * ns, name, 2 + 2 * ns, name);
			else
				snprintf(body, sizeof body,
				         "set datafile missing 'nan'\nset xlabel '%s' noenhanced\nset ylabel 'time (us)'\nset logscale y\n"
				         "set key below autotitle columnhead noenhanced\nset offsets 0.3, 0.3, 0, 0\n"
				         "plot for [i=3:%zu] '%s.dat' using 1:i:xtic(2) with linespoints lw 2\n",
				         S->ax[a].key, 2 + ns, name);
			snprintf(title, sizeof title, "%s: %s against %s", S->name, S->ws[w].name, S->ax[a].key);
			if (ccs_plot_script(S->outdir, name, title, body) || plot_add(P, name))
				return -1;
		}
	}
	return 0;
}

/* where time goes: per workload, a stacked bar per design at its last point
 * (the largest size or the last value of every axis) */
static int plot_breakdown(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int w = 0; w < S->nw; w++) {
		char name[200], wk[96];
		ccs_plot_slug(S->ws[w].name, wk, sizeof wk);
		snprintf(name, sizeof name, "breakdown-%s", wk);
		FILE *f = dat_open(S, name);
		if (!f)
			return -1;
		fprintf(f, "# where time goes (us) at each design's last point of %s: latency (fixed costs and\n"
		           "# pipeline steps of the closed form), bandwidth (its bytes over rates), contention\n"
		           "# (what the simulator adds on top)\n\"design\" \"latency\" \"bandwidth\" \"contention\" \"axes\"\n",
		        S->ws[w].name);
		for (int g = 0; g < S->ng; g++) {
			const struct ccs_result *r = NULL;
			for (size_t i = S->npt; i-- > 0 && !r;)
				if (S->wi[S->pt[i].wi].work == w && S->inst[S->pt[i].inst].design == g)
					r = res[i];
			double lat = DNAN, bw = DNAN, con = 0;
			if (r && r->t_model_s == r->t_model_s) {
				bw = r->bwterm_s == r->bwterm_s ? r->bwterm_s : r->t_model_s;
				lat = r->t_model_s - bw;
				if (r->t_sim_s == r->t_sim_s && r->t_sim_s > r->t_model_s)
					con = r->t_sim_s - r->t_model_s;
			} else if (r) {
				bw = r->t_sim_s;
				lat = 0;
			}
			fprintf(f, "\"");
			for (const char *c = S->gs[g].name; *c; c++)
				if (*c != '"')
					fputc(*c, f);
			fprintf(f, "\" %.6g %.6g %.6g \"%s\"\n", lat * 1e6, bw * 1e6, con * 1e6, r ? r->axes : "");
		}
		fclose(f);
		char body[2048], title[400];
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset style data histograms\nset style histogram rowstacked\n"
		         "set style fill solid 0.85 border -1\nset boxwidth 0.6\nset ylabel 'time (us)'\nset yrange [0:*]\n"
		         "set xtics noenhanced\nset key autotitle columnhead\n"
		         "plot '%s.dat' using 2:xtic(1), '' using 3, '' using 4\n", name);
		snprintf(title, sizeof title, "%s: where the time of %s goes", S->name, S->ws[w].name);
		if (ccs_plot_script(S->outdir, name, title, body) || plot_add(P, name))
			return -1;
	}
	return 0;
}

/* link utilisation heatmaps of the simulated points that wrote one */
static int plot_heat(const struct scen *S, struct plots *P)
{
	for (size_t i = 0; i < S->npt; i++) {
		const struct point *p = &S->pt[i];
		if (!p->heat)
			continue;
		char a[128], b[128], name[300], path[1400];
		ccs_plot_slug(S->gs[S->inst[p->inst].design].name, a, sizeof a);
		ccs_plot_slug(S->ws[S->wi[p->wi].work].name, b, sizeof b);
		snprintf(name, sizeof name, "links-%s-%s-%zu", a, b, (size_t)p->inst);
		snprintf(path, sizeof path, "%s/%s.dat", S->outdir, name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		/* link names for the y axis: the fourth column, once per link */
		char body[8192];
		int o = snprintf(body, sizeof body, "set ytics (");
		char line[512];
		int last = -1, nl = 0;
		while (fgets(line, sizeof line, f)) {
			double t, u;
			int k;
			char nm[200];
			if (line[0] == '#' || sscanf(line, "%lf %d %lf %199s", &t, &k, &u, nm) != 4 || k == last)
				continue;
			last = k;
			if (o < (int)sizeof body - 300)
				o += snprintf(body + o, sizeof body - (size_t)o, "%s\"%s\" %d", nl ? ", " : "", nm, k);
			nl++;
		}
		fclose(f);
		if (!nl)
			continue;
		snprintf(body + o, sizeof body - (size_t)o,
		         ") noenhanced\nset xlabel 'time (us)'\nset ylabel ''\nset cblabel 'utilisation (%%)'\n"
		         "set cbrange [0:100]\nset palette defined (0 'white', 50 'orange', 100 'dark-red')\n"
		         "set yrange [-0.5:%d.5]\nunset key\nplot '%s.dat' using 1:2:3 with image\n", nl - 1, name);
		char title[500];
		snprintf(title, sizeof title, "%s: link utilisation, %s", S->name, p->key);
		if (ccs_plot_script(S->outdir, name, title, body) || plot_add(P, name))
			return -1;
	}
	return 0;
}

static int mkdirs(const char *path)
{
	char b[1024];
	snprintf(b, sizeof b, "%s", path);
	for (char *p = b + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(b, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(b, 0755) && errno != EEXIST ? -1 : 0;
}

/* ---- the command ---- */

static void run_usage(FILE *f)
{
	fprintf(f,
	        "usage: %s SCENARIO.yaml [--engine model|sim|both] [--format table|csv] [--db ccsim.db]\n"
	        "       [--out DIR] [-j N] [--quick] [--no-plots]\n"
	        "  --db      results database (SQLite; ':memory:' keeps nothing); points stored there for this\n"
	        "            scenario file and ccsim version are not run again\n"
	        "  --out     where the plots go (default ccsim-out/NAME): NAME.dat, NAME.gp, NAME.png, NAME.svg\n"
	        "  -j        worker processes (default 1)\n"
	        "  --quick   a reduced run: every third size, the first and last value of each sweep axis,\n"
	        "            and the scenario's 'quick:' overrides of every design's topology\n",
	        me);
}

int ccs_cmd_run(int argc, char **argv)
{
	const char *path = NULL, *format = "table", *engine_s = NULL, *db_path = "ccsim.db", *out_s = NULL;
	int jobs = 1, quick = 0, plots = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--no-plots")) {
			plots = 0;
		} else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--engine") || !strcmp(argv[i], "--db") ||
		           !strcmp(argv[i], "--out") || !strcmp(argv[i], "-j")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: '%s' needs a value\n", me, argv[i]);
				return 2;
			}
			const char *v = argv[++i], *a = argv[i - 1];
			if (!strcmp(a, "--format"))
				format = v;
			else if (!strcmp(a, "--engine"))
				engine_s = v;
			else if (!strcmp(a, "--db"))
				db_path = v;
			else if (!strcmp(a, "--out"))
				out_s = v;
			else if (ccs_args_int(me, "-j", v, 1, 256, &jobs))
				return 2;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "%s: unexpected argument '%s'\n", me, argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		run_usage(stderr);
		return 2;
	}
	if (strcmp(format, "table") && strcmp(format, "csv")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv\n", me, format);
		return 2;
	}
	struct ccs_ydoc doc;
	struct ccs_ynode *root;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	memset(&doc, 0, sizeof doc);
	struct scen S;
	memset(&S, 0, sizeof S);
	S.path = path;
	S.plots = plots;
	const struct ccs_result **res = NULL;
	struct ccs_result *rows = NULL;
	size_t nrows = 0;
	size_t *todo = NULL;
	struct plots P;
	memset(&P, 0, sizeof P);
	uint32_t *idx = NULL;
	int rc = 1;
	if (ccs_ydoc_load(&doc, path, &diag, &root)) {
		fprintf(stderr, "%s\n", diag.msg);
		return 1;
	}
	char *text = NULL;
	size_t tlen = 0;
	char shash[24];
	if (ccs_read_file(path, &text, &tlen, &diag)) {
		fprintf(stderr, "%s\n", diag.msg);
		ccs_ydoc_release(&doc);
		return 1;
	}
	file_hash(text, tlen, shash);
	ccs_free(text);
	static const char *const keys[] = { "name", "description", "engine", "designs", "workloads", "sweep", "quick" };
	const char *name = path, *eng = "model";
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (ccs_y_keys(&doc, root, keys, 7, "the scenario") || ccs_y_need(&doc, root, "designs", "the scenario") ||
	    ccs_y_need(&doc, root, "workloads", "the scenario") || ccs_y_str(&doc, root, "name", &name) ||
	    ccs_y_str(&doc, root, "engine", &eng))
		goto diag;
	S.name = name;
	if (engine_s)
		eng = engine_s;
	S.engine = !strcmp(eng, "model") ? 0 : !strcmp(eng, "sim") ? 1 : !strcmp(eng, "both") ? 2 : -1;
	if (S.engine < 0) {
		if (engine_s)
			fprintf(stderr, "%s: unknown engine '%s'; one of: model, sim, both\n", me, eng);
		else {
			ydiag(&doc, ccs_y_get(root, "engine"), "unknown engine '%s'; one of: model, sim, both", eng);
			goto diag;
		}
		goto out;
	}
	const struct ccs_ynode *dy = ccs_y_get(root, "designs"), *wy = ccs_y_get(root, "workloads");
	const struct ccs_ynode *sy = ccs_y_get(root, "sweep"), *qy = ccs_y_get(root, "quick");
	if (ccs_y_kind(&doc, dy, CCS_Y_SEQ, "designs") || ccs_y_kind(&doc, wy, CCS_Y_SEQ, "workloads") ||
	    (sy && ccs_y_kind(&doc, sy, CCS_Y_MAP, "sweep")) || (qy && ccs_y_kind(&doc, qy, CCS_Y_MAP, "quick")))
		goto diag;
	for (uint32_t k = 0; qy && k < qy->n; k++)
		if (!sy || !ccs_y_get(sy, qy->k[k]->str)) {
			ydiag(&doc, qy->k[k], "'%s' is not a sweep axis: 'quick' gives an axis's values for --quick runs "
			      "(a design's topology overrides go under the design's own 'quick')", qy->k[k]->str);
			goto diag;
		}
	if (!dy->n || !wy->n) {
		ccs_y_error(&doc, !dy->n ? dy : wy, "needs at least one entry");
		goto diag;
	}
	S.gs = ccs_calloc(dy->n, sizeof *S.gs);
	S.ws = ccs_calloc(wy->n, sizeof *S.ws);
	S.ax = ccs_calloc(sy ? sy->n + 1 : 1, sizeof *S.ax);
	S.lax_off = ccs_calloc(wy->n + 1, sizeof *S.lax_off);
	if (!S.gs || !S.ws || !S.ax || !S.lax_off)
		goto oom;
	for (uint32_t i = 0; i < dy->n; i++, S.ng++)
		if (load_design(&doc, dy->v[i], dir, quick, &S.gs[i]))
			goto diag;
	/* global axes: topology ones first */
	for (int pass = 0; pass < 2 && sy; pass++)
		for (uint32_t k = 0; k < sy->n; k++) {
			int wl = !strncmp(sy->k[k]->str, "workload.", 9);
			if (wl != pass)
				continue;
			struct axis *a = &S.ax[S.nax];
			if (axis_from(&doc, sy->k[k], sy->v[k], a))
				goto diag;
			a->workload = wl;
			/* a quick run: the scenario's 'quick' values of the axis, else
			 * its first and last */
			const struct ccs_ynode *qv = quick && qy ? ccs_y_get(qy, sy->k[k]->str) : NULL;
			if (qv) {
				ccs_free(a->val);
				a->val = NULL;
				if (axis_from(&doc, sy->k[k], qv, a))
					goto diag;
			} else if (quick && a->n > 2) {
				a->val[1] = a->val[a->n - 1];
				a->n = 2;
			}
			S.nax++;
			S.ntopo_ax += !wl;
		}
	/* the workloads as written (names, nodes), and their local axes */
	for (uint32_t i = 0; i < wy->n; i++, S.nw++) {
		const struct ccs_ynode *m = wy->v[i];
		if (ccs_y_kind(&doc, m, CCS_Y_MAP, "a workload"))
			goto diag;
		const struct ccs_ynode *szy = ccs_y_get(m, "sizes");
		if (szy && ccs_y_get(m, "bytes")) {
			ydiag(&doc, szy, "'sizes' and 'bytes' cannot both be given");
			goto diag;
		}
		S.lax_off[i + 1] = S.lax_off[i];
		for (uint32_t k = 0; k < m->n; k++) {
			int is_sizes = !strcmp(m->k[k]->str, "sizes");
			if (!is_sizes && m->v[k]->kind != CCS_Y_SEQ)
				continue;
			struct axis *na = ccs_realloc(S.lax, (size_t)(S.lax_off[i + 1] + 1) * sizeof *S.lax);
			if (!na)
				goto oom;
			S.lax = na;
			struct axis *a = &S.lax[S.lax_off[i + 1]];
			memset(a, 0, sizeof *a);
			if (is_sizes ? sizes_axis(&doc, m->k[k], m->v[k], a, quick) : axis_from(&doc, m->k[k], m->v[k], a))
				goto diag;
			S.lax_off[i + 1]++;
		}
		/* the base load checks keys and values other than the lists */
		int nl = S.lax_off[i + 1] - S.lax_off[i];
		const char *ok[16];
		const struct ccs_ynode *ov[16];
		if (nl > 16) {
			ccs_y_error(&doc, m, "at most 16 list-valued keys in a workload");
			goto diag;
		}
		for (int k = 0; k < nl; k++) {
			ok[k] = S.lax[S.lax_off[i] + k].key;
			ov[k] = S.lax[S.lax_off[i] + k].val[0];
		}
		if (load_work_with(&doc, m, nl, ok, ov, &S.ws[i]))
			goto diag;
	}
	/* design instances: each design on each combination of the topology axes */
	idx = ccs_calloc((size_t)S.nax + 32, sizeof *idx);
	if (!idx)
		goto oom;
	size_t ncombo = 1;
	for (int a = 0; a < S.ntopo_ax; a++)
		ncombo *= S.ax[a].n;
	S.inst = ccs_calloc((size_t)S.ng * ncombo, sizeof *S.inst);
	if (!S.inst)
		goto oom;
	for (int g = 0; g < S.ng; g++) {
		memset(idx, 0, (size_t)S.nax * sizeof *idx);
		do {
			struct inst *in = &S.inst[S.ninst++];
			in->design = g;
			axes_text(S.ax, S.ntopo_ax, idx, in->axes, sizeof in->axes, 0);
			const char *sets[64];
			char buf[32][256], fbuf[16][256];
			int ns = 0, nf = 0;
			for (int k = 0; k < S.gs[g].nsets; k++)
				sets[ns++] = S.gs[g].sets[k];
			for (int a = 0; a < S.ntopo_ax && ns < 64; a++) {
				const char *v = S.ax[a].val[idx[a]]->str;
				snprintf(buf[a], sizeof buf[a], "%s=%s", S.ax[a].key, v);
				if (strcmp(S.ax[a].key, "faults")) {
					sets[ns++] = buf[a];
					continue;
				}
				/* the faults axis: 'none', or fault strings joined by ';' */
				char tmp[256];
				snprintf(tmp, sizeof tmp, "%s", v);
				for (char *sv = NULL, *f = strtok_r(tmp, ";", &sv); f && ns < 64 && nf < 16;
				     f = strtok_r(NULL, ";", &sv)) {
					while (*f == ' ')
						f++;
					if (!strcmp(f, "none") || !*f)
						continue;
					snprintf(fbuf[nf], sizeof fbuf[nf], "faults+=%s", f);
					sets[ns++] = fbuf[nf++];
				}
			}
			struct ccs_diag td;
			memset(&td, 0, sizeof td);
			if (ccs_topo_load(S.gs[g].path, sets, ns, &in->t, &td)) {
				const struct ccs_ynode *at = ccs_y_get(S.gs[g].node, "topology");
				for (int a = 0; a < S.ntopo_ax; a++)
					if (strstr(td.msg, strcmp(S.ax[a].key, "faults") ? buf[a] : S.ax[a].val[idx[a]]->str))
						at = S.ax[a].val[idx[a]];
				char msg[1200];
				snprintf(msg, sizeof msg, "design '%.80s'%s%.200s: %.800s", S.gs[g].name, in->axes[0] ? " with " : "", in->axes,
				         td.msg);
				ccs_y_error(&doc, at, msg);
				goto diag;
			}
			char err[256];
			if (in->t->ntimed) {
				snprintf(err, sizeof err, "fault '%.120s' strikes during a run ('@'); a scenario's faults apply from "
				         "the start", in->t->timed[0].spec);
				ccs_y_error(&doc, S.gs[g].node, err);
				goto diag;
			}
			if (ccs_comm_build(in->t, (int)S.gs[g].ranks, (int)S.gs[g].ppn, &in->c, err, sizeof err)) {
				ccs_y_error(&doc, S.gs[g].node, err);
				goto diag;
			}
			in->built = 1;
			topo_hash(in->t, in->hash);
		} while (S.ntopo_ax && next_combo(S.ax, S.ntopo_ax, idx));
	}
	/* workload instances: each workload on each combination of the global
	 * workload axes and its own lists */
	for (int w = 0; w < S.nw; w++) {
		struct axis all[48];
		int na = 0;
		for (int a = S.ntopo_ax; a < S.nax && na < 32; a++) {
			all[na] = S.ax[a];
			all[na].key = S.ax[a].key + 9;
			na++;
		}
		for (int k = S.lax_off[w]; k < S.lax_off[w + 1] && na < 48; k++)
			all[na++] = S.lax[k];
		memset(idx, 0, 48 * sizeof *idx < ((size_t)S.nax + 32) * sizeof *idx ? 48 * sizeof *idx : ((size_t)S.nax + 32) * sizeof *idx);
		uint32_t wid[48] = { 0 };
		do {
			struct winst *nw2 = ccs_realloc(S.wi, (S.nwi + 1) * sizeof *S.wi);
			if (!nw2)
				goto oom;
			S.wi = nw2;
			struct winst *wi = &S.wi[S.nwi];
			memset(wi, 0, sizeof *wi);
			wi->work = w;
			axes_text(all, na, wid, wi->axes, sizeof wi->axes, 0);
			const char *ok[48];
			const struct ccs_ynode *ov[48];
			for (int k = 0; k < na; k++) {
				ok[k] = all[k].key;
				ov[k] = all[k].val[wid[k]];
			}
			if (load_work_with(&doc, S.ws[w].node, na, ok, ov, &wi->w))
				goto diag;
			S.nwi++;
		} while (na && next_combo(all, na, wid));
	}
	/* points, checked before any runs */
	S.pt = ccs_calloc(S.ninst * S.nwi + 1, sizeof *S.pt);
	if (!S.pt)
		goto oom;
	for (size_t in = 0; in < S.ninst; in++)
		for (size_t k = 0; k < S.nwi; k++) {
			struct point *p = &S.pt[S.npt++];
			p->inst = (int)in;
			p->wi = (int)k;
			p->heat = k + 1 == S.nwi || S.wi[k + 1].work != S.wi[k].work;
			snprintf(p->key, sizeof p->key, "design=%.80s|workload=%.80s|%.100s%s%.100s", S.gs[S.inst[in].design].name,
			         S.ws[S.wi[k].work].name, S.inst[in].axes, S.inst[in].axes[0] && S.wi[k].axes[0] ? " " : "",
			         S.wi[k].axes);
			const struct work *w = &S.wi[k].w;
			const struct inst *I = &S.inst[in];
			char err[256] = "";
			int bad = 0;
			if (w->moe)
				bad = ccs_moe_check(&w->cfg, w->ranks ? (int)w->ranks : I->c.n, err, sizeof err) != 0;
			else if (w->kv)
				bad = kv_check(I->t, &I->c, S.gs[I->design].ppn, w, err, sizeof err) != 0;
			else {
				struct ccs_comm c2;
				const struct ccs_comm *cp = &I->c;
				int own = w->ranks && w->ranks != I->c.n;
				if (own && ccs_comm_build(I->t, (int)w->ranks, (int)S.gs[I->design].ppn, &c2, err, sizeof err))
					bad = 1;
				else {
					if (own)
						cp = &c2;
					unsigned am = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
					unsigned pm = w->proto >= 0 ? 1u << w->proto : (1u << CCS_PROTO_N) - 1;
					int a, q;
					struct ccs_cost cc;
					const char *why = NULL;
					if (ccs_select(cp, w->coll, w->bytes, am, pm, w->algo < 0, &a, &q) ||
					    ccs_cost_eval(cp, w->coll, a, q, 0, w->bytes, &cc, &why)) {
						if (w->algo >= 0)
							ccs_cost_eval(cp, w->coll, w->algo, w->proto >= 0 ? w->proto : CCS_PROTO_SIMPLE, 0,
							              w->bytes, &cc, &why);
						snprintf(err, sizeof err, "%s", why ? why : "no algorithm applies");
						bad = 1;
					}
					if (own)
						ccs_comm_release(&c2);
				}
			}
			/* algorithms or protocols given as lists: a combination that
			 * does not apply is left out, not an error */
			if (bad && !w->moe && !w->kv && listed_algo(&S, S.wi[k].work)) {
				S.npt--;
				S.skipped++;
				continue;
			}
			if (bad) {
				char msg[900], ax[520];
				snprintf(ax, sizeof ax, "%s%s%s", I->axes, I->axes[0] && S.wi[k].axes[0] ? " " : "", S.wi[k].axes);
				snprintf(msg, sizeof msg, "on design '%s'%s%s%s: %s", S.gs[I->design].name, ax[0] ? " (" : "", ax,
				         ax[0] ? ")" : "", err);
				ccs_y_error(&doc, S.ws[S.wi[k].work].node, msg);
				goto diag;
			}
		}
	S.at = ccs_malloc((S.ninst * S.nwi + 1) * sizeof *S.at);
	if (!S.at)
		goto oom;
	for (size_t i = 0; i < S.ninst * S.nwi; i++)
		S.at[i] = -1;
	for (size_t i = 0; i < S.npt; i++)
		S.at[(size_t)S.pt[i].inst * S.nwi + (size_t)S.pt[i].wi] = (int32_t)i;
	/* the database: what is stored already is not run again */
	struct ccs_diag dd;
	memset(&dd, 0, sizeof dd);
	if (ccs_store_open(db_path, &S.db, &dd) ||
	    ccs_store_scenario(S.db, S.name, path, shash, CCS_VERSION, &S.scen_id, &dd) ||
	    ccs_store_results(S.db, S.scen_id, &rows, &nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		goto out;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, by_key);
	todo = ccs_malloc((S.npt + 1) * sizeof *todo);
	if (!todo)
		goto oom;
	size_t ntodo = 0, nold = 0;
	for (size_t i = 0; i < S.npt; i++) {
		S.pt[i].done = find_result(rows, nrows, S.pt[i].key, S.inst[S.pt[i].inst].hash) != NULL;
		if (S.pt[i].done)
			nold++;
		else
			todo[ntodo++] = i;
	}
	if (S.plots) {
		snprintf(S.outdir, sizeof S.outdir, "%s", out_s ? out_s : "ccsim-out");
		if (!out_s) {
			char sl[200];
			ccs_plot_slug(S.name, sl, sizeof sl);
			size_t l = strlen(S.outdir);
			snprintf(S.outdir + l, sizeof S.outdir - l, "/%s", sl);
		}
		if (mkdirs(S.outdir)) {
			fprintf(stderr, "%s: cannot make '%s': %s\n", me, S.outdir, strerror(errno));
			goto out;
		}
	}
	struct ccs_runner R;
	memset(&R, 0, sizeof R);
	R.jobs = jobs;
	R.result_size = sizeof(struct job);
	R.compute = compute;
	R.collect = collect;
	R.ctx = &S;
	R.progress = isatty(2) && ntodo > 0;
	const char *sa = getenv("CCS_RUN_STOP_AFTER");
	R.stop_after = sa ? atol(sa) : 0;
	size_t ndone = 0;
	S.last_flush = mono_s();
	int how = ccs_runner_run(&R, todo, ntodo, &ndone);
	if (flush_results(&S))
		how = CCS_RUN_FAILED;
	if (how == CCS_RUN_INTERRUPTED) {
		fprintf(stderr, "%s: interrupted: %zu of %zu points stored in %s (%zu before this run); run the same command again to finish\n",
		        me, nold + S.stored, S.npt, db_path, nold);
		rc = 130;
		goto out;
	}
	if (how != CCS_RUN_DONE || S.failed) {
		fprintf(stderr, "%s: %zu point%s failed; %zu stored\n", me, S.failed, S.failed == 1 ? "" : "s", S.stored);
		goto out;
	}
	/* every point's result, from the database */
	ccs_free(rows);
	rows = NULL;
	if (ccs_store_results(S.db, S.scen_id, &rows, &nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		goto out;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, by_key);
	res = ccs_calloc(S.npt + 1, sizeof *res);
	if (!res)
		goto oom;
	for (size_t i = 0; i < S.npt; i++)
		res[i] = find_result(rows, nrows, S.pt[i].key, S.inst[S.pt[i].inst].hash);
	if (!strcmp(format, "csv")) {
		printf("scenario,workload,design,axes,ranks,algo,size,model_us,sim_us,bandwidth_GBps\n");
		for (size_t i = 0; i < S.npt; i++) {
			const struct ccs_result *r = res[i];
			if (!r)
				continue;
			printf("%s,%s,%s,%s,%d,%s,%llu,%.6g,%.6g,%.6g\n", S.name, r->workload, r->design, r->axes, r->ranks,
			       r->algo, (unsigned long long)r->size, r->t_model_s == r->t_model_s ? r->t_model_s * 1e6 : -1,
			       r->t_sim_s == r->t_sim_s ? r->t_sim_s * 1e6 : -1,
			       (S.engine == 1 ? r->bw_sim_Bps : r->bw_model_Bps) / 1e9);
		}
	} else if (!S.nax && S.nwi == (size_t)S.nw) {
		print_grid(&S, res);
	} else {
		print_tables(&S, res);
	}
	if (!strcmp(format, "table"))
		printf("#\n# %zu points: %zu run now, %zu from %s (scenario %lld)%s\n", S.npt, ndone, nold, db_path,
		       (long long)S.scen_id, S.skipped ? "; algorithm/protocol combinations that do not apply left out" : "");
	if (S.plots) {
		if (plot_busbw(&S, res, &P) || plot_axes(&S, res, &P) || plot_breakdown(&S, res, &P) || plot_heat(&S, &P))
			goto out;
		int have = ccs_plot_have_gnuplot();
		size_t drawn = 0;
		for (size_t i = 0; i < P.n && have; i++)
			drawn += !ccs_plot_render(S.outdir, P.name[i]);
		if (!strcmp(format, "table")) {
			if (!have)
				printf("# plots: gnuplot is not installed: %zu .dat and .gp files in %s/ (sh .ci/deps installs it)\n",
				       P.n, S.outdir);
			else
				printf("# plots: %zu of %zu drawn in %s/ (.png and .svg, with their .dat and .gp):\n", drawn, P.n,
				       S.outdir);
			for (size_t i = 0; i < P.n && have; i++)
				printf("#   %s/%s.png\n", S.outdir, P.name[i]);
		}
		if (have && drawn < P.n)
			goto out;
	}
	rc = ccs_args_flush() ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", me);
	goto out;
diag:
	fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim run: bad scenario");
out:
	for (size_t i = 0; i < S.ninst; i++) {
		if (S.inst[i].built)
			ccs_comm_release(&S.inst[i].c);
		ccs_topo_free(S.inst[i].t);
	}
	for (int a = 0; a < S.nax; a++)
		ccs_free(S.ax[a].val);
	for (int w = 0; S.lax_off && w < S.nw; w++)
		for (int k = S.lax_off[w]; k < S.lax_off[w + 1]; k++)
			ccs_free(S.lax[k].val);
	ccs_free(S.lax);
	ccs_free(S.lax_off);
	ccs_free(S.ax);
	ccs_free(S.inst);
	ccs_free(S.wi);
	ccs_free(S.pt);
	ccs_free(S.at);
	ccs_free(S.gs);
	ccs_free(S.ws);
	ccs_free(S.pending);
	ccs_free(P.name);
	ccs_free(todo);
	ccs_free(res);
	ccs_free(rows);
	ccs_free(idx);
	ccs_store_close(S.db);
	ccs_ydoc_release(&doc);
	return rc;
}
