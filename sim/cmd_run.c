/*
** sim/cmd_run.c: `ccsim run SCENARIO.yaml`: several designs (a topology,
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
#include "cli.h"

#include "../model/kv.h"
#include "../model/moe.h"
#include "../model/topo_yaml.h"
#include "../model/ytree.h"
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim run";

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
	int moe, kv, op, coll, algo; /* algo -1: auto */
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

static int load_design(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *dir, struct design *g)
{
	static const char *const keys[] = { "name", "topology", "set", "ranks", "ppn" };
	int rc;
	g->node = m;
	if ((rc = ccs_y_kind(d, m, CCS_Y_MAP, "a design")) || (rc = ccs_y_keys(d, m, keys, 5, "a design")) ||
	    (rc = ccs_y_need(d, m, "name", "a design")) || (rc = ccs_y_need(d, m, "topology", "a design")) ||
	    (rc = ccs_y_str(d, m, "name", &g->name)) || (rc = ccs_y_str(d, m, "topology", &g->topo)) ||
	    (rc = ccs_y_long(d, m, "ranks", 1, 1 << 20, &g->ranks)) || (rc = ccs_y_long(d, m, "ppn", 1, 4096, &g->ppn)))
		return rc;
	if (g->topo[0] == '/')
		snprintf(g->path, sizeof g->path, "%s", g->topo);
	else
		snprintf(g->path, sizeof g->path, "%s/%s", dir, g->topo);
	const struct ccs_ynode *s = ccs_y_get(m, "set");
	if (s) {
		if ((rc = ccs_y_kind(d, s, CCS_Y_MAP, "set")))
			return rc;
		if (s->n > 32)
			return ccs_y_error(d, s, "at most 32 overrides in 'set'");
		for (uint32_t i = 0; i < s->n; i++) {
			if ((rc = ccs_y_kind(d, s->v[i], CCS_Y_SCALAR, s->k[i]->str)))
				return rc;
			snprintf(g->setbuf[i], sizeof g->setbuf[i], "%s=%s", s->k[i]->str, s->v[i]->str);
			g->sets[g->nsets++] = g->setbuf[i];
		}
	}
	return CCS_OK;
}

/* A kvcache workload (model/kv.h): its own keys, tokens, dtype; no algo. */
static int load_kv(struct ccs_ydoc *d, const struct ccs_ynode *m, struct work *w)
{
	static const char *const not_kv[] = { "algo", "bytes", "hidden", "topk", "experts", "routing", "skew", "hot",
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
	static const char *const keys[] = { "name", "collective", "algo", "bytes", "tokens", "hidden", "dtype", "topk",
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
struct cell {
	double t_model, t_sim, bw;
	char algo[32];
};

static int run_cell2(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                     size_t errn);

/* Run s (released here) on a fresh fabric of c: its time in *t. */
static int sim_sched(const struct ccs_comm *c, struct ccs_sched *s, double *t, char *err, size_t errn)
{
	struct ccs_fabric *fab = NULL;
	struct ccs_sim_stats st;
	int rc = ccs_fabric_new(c, &fab);
	if (!rc)
		rc = ccs_sim_run(fab, s, &st, NULL, err, errn);
	ccs_fabric_free(fab);
	s->release(s);
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
			rc = sim_sched(c, &s, &out->t_sim, err, errn);
	}
	ccs_kv_plan_release(&p);
	return rc;
}

/* Whether a kvcache workload fits the design (its ranks), before anything
 * runs: 0, or -1 with the reason in err. */
static int kv_check(const struct design *g, const struct work *w, char *err, size_t errn)
{
	struct ccs_comm c;
	const struct ccs_comm *cp = &g->c;
	int own = w->ranks && w->ranks != g->c.n;
	if (own) {
		if (ccs_comm_build(g->t, (int)w->ranks, (int)g->ppn, &c, err, errn))
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
static int run_cell(const struct design *g, const struct work *w, int engine, struct cell *out, char *err, size_t errn)
{
	if (!w->ranks || w->ranks == g->c.n)
		return run_cell2(&g->c, w, engine, out, err, errn);
	struct ccs_comm c;
	if (ccs_comm_build(g->t, (int)w->ranks, (int)g->ppn, &c, err, errn))
		return CCS_EINPUT;
	int rc = run_cell2(&c, w, engine, out, err, errn);
	ccs_comm_release(&c);
	return rc;
}

static int run_cell2(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                     size_t errn)
{
	memset(out, 0, sizeof *out);
	out->t_model = out->t_sim = -1;
	if (w->kv)
		return kv_cell(c, w, engine, out, err, errn);
	if (!w->moe) {
		unsigned amask = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
		int a, q;
		struct ccs_cost cc;
		if (ccs_select(c, w->coll, w->bytes, amask, (1u << CCS_PROTO_N) - 1, w->algo < 0, &a, &q) ||
		    ccs_cost_eval(c, w->coll, a, q, 0, w->bytes, &cc, NULL)) {
			snprintf(err, errn, "no algorithm applies");
			return CCS_EINPUT;
		}
		snprintf(out->algo, sizeof out->algo, "%s/%s", ccs_algo_name[a], ccs_proto_name[q]);
		out->t_model = cc.time_s;
		out->bw = (double)w->bytes / cc.time_s * ccs_busbw_factor(w->coll, c->n);
		if (engine) {
			struct ccs_sched s;
			const char *why;
			if (ccs_sched_build(c, w->coll, a, q, 0, w->bytes, &s, &why)) {
				snprintf(err, errn, "%s", why);
				return CCS_EINPUT;
			}
			int rc = sim_sched(c, &s, &out->t_sim, err, errn);
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
				rc = sim_sched(c, &s, &out->t_sim, err, errn);
		}
	}
	ccs_moe_routing_release(&r);
	return rc;
}

int ccs_cmd_run(int argc, char **argv)
{
	const char *path = NULL, *format = "table", *engine_s = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s SCENARIO.yaml [--engine model|sim|both] [--format table|csv]\n", me);
			return 0;
		}
		if ((!strcmp(argv[i], "--format") || !strcmp(argv[i], "--engine")) && i + 1 < argc) {
			*(argv[i][2] == 'f' ? &format : &engine_s) = argv[i + 1];
			i++;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "%s: unexpected argument '%s'\n", me, argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "usage: %s SCENARIO.yaml [--engine model|sim|both] [--format table|csv]\n", me);
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
	struct design *gs = NULL;
	struct work *ws = NULL;
	struct cell *cells = NULL;
	int ng = 0, nw = 0, rc = 1;
	if (ccs_ydoc_load(&doc, path, &diag, &root)) {
		fprintf(stderr, "%s\n", diag.msg);
		return 1;
	}
	static const char *const keys[] = { "name", "description", "engine", "designs", "workloads" };
	const char *name = path, *eng = "model";
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (ccs_y_keys(&doc, root, keys, 5, "the scenario") || ccs_y_need(&doc, root, "designs", "the scenario") ||
	    ccs_y_need(&doc, root, "workloads", "the scenario") || ccs_y_str(&doc, root, "name", &name) ||
	    ccs_y_str(&doc, root, "engine", &eng))
		goto diag;
	if (engine_s)
		eng = engine_s;
	int engine = !strcmp(eng, "model") ? 0 : !strcmp(eng, "sim") ? 1 : !strcmp(eng, "both") ? 2 : -1;
	if (engine < 0) {
		if (engine_s)
			fprintf(stderr, "%s: unknown engine '%s'; one of: model, sim, both\n", me, eng);
		else {
			ydiag(&doc, ccs_y_get(root, "engine"), "unknown engine '%s'; one of: model, sim, both", eng);
			goto diag;
		}
		goto out;
	}
	const struct ccs_ynode *dy = ccs_y_get(root, "designs"), *wy = ccs_y_get(root, "workloads");
	if (ccs_y_kind(&doc, dy, CCS_Y_SEQ, "designs") || ccs_y_kind(&doc, wy, CCS_Y_SEQ, "workloads"))
		goto diag;
	if (!dy->n || !wy->n) {
		ccs_y_error(&doc, !dy->n ? dy : wy, "needs at least one entry");
		goto diag;
	}
	gs = ccs_calloc(dy->n, sizeof *gs);
	ws = ccs_calloc(wy->n, sizeof *ws);
	cells = ccs_calloc((size_t)dy->n * wy->n, sizeof *cells);
	if (!gs || !ws || !cells) {
		fprintf(stderr, "%s: out of memory\n", me);
		goto out;
	}
	for (uint32_t i = 0; i < dy->n; i++, ng++)
		if (load_design(&doc, dy->v[i], dir, &gs[i]))
			goto diag;
	for (uint32_t i = 0; i < wy->n; i++, nw++)
		if (load_work(&doc, wy->v[i], &ws[i]))
			goto diag;
	/* every topology loads and every workload applies, before anything runs */
	for (int i = 0; i < ng; i++) {
		struct design *g = &gs[i];
		struct ccs_diag td;
		memset(&td, 0, sizeof td);
		if (ccs_topo_load(g->path, g->sets, g->nsets, &g->t, &td)) {
			ccs_y_error(&doc, ccs_y_get(g->node, "topology"), td.msg);
			goto diag;
		}
		char err[256];
		if (ccs_comm_build(g->t, (int)g->ranks, (int)g->ppn, &g->c, err, sizeof err)) {
			ccs_y_error(&doc, g->node, err);
			goto diag;
		}
		g->built = 1;
		for (int j = 0; j < nw; j++)
			if ((ws[j].moe && ccs_moe_check(&ws[j].cfg, g->c.n, err, sizeof err)) ||
			    (ws[j].kv && kv_check(g, &ws[j], err, sizeof err))) {
				char msg[512];
				snprintf(msg, sizeof msg, "on design '%s': %s", g->name, err);
				ccs_y_error(&doc, ws[j].node, msg);
				goto diag;
			}
	}
	for (int j = 0; j < nw; j++)
		for (int i = 0; i < ng; i++) {
			char err[256] = "";
			int r = run_cell(&gs[i], &ws[j], engine, &cells[(size_t)j * ng + i], err, sizeof err);
			if (r) {
				fprintf(stderr, "%s: %s: workload '%s' on design '%s': %s\n", me, path, ws[j].name, gs[i].name,
				        r == CCS_ENOMEM ? "out of memory" : err);
				goto out;
			}
		}
	if (!strcmp(format, "csv")) {
		printf("scenario,workload,design,ranks,algo,model_us,sim_us,bandwidth_GBps\n");
		for (int j = 0; j < nw; j++)
			for (int i = 0; i < ng; i++) {
				const struct cell *ce = &cells[(size_t)j * ng + i];
				printf("%s,%s,%s,%d,%s,%.6g,%.6g,%.6g\n", name, ws[j].name, gs[i].name, gs[i].c.n, ce->algo,
				       ce->t_model * 1e6, ce->t_sim >= 0 ? ce->t_sim * 1e6 : -1, ce->bw / 1e9);
			}
	} else {
		printf("# %s: %s (%s)\n#\n", me, name, engine == 0 ? "closed form" : engine == 1 ? "simulator" : "closed form / simulator");
		printf("# %-24s", "design");
		for (int i = 0; i < ng; i++)
			printf(" | %-28.28s", gs[i].name);
		printf("\n# %-24s", "ranks (groups x size)");
		for (int i = 0; i < ng; i++) {
			char b[64];
			snprintf(b, sizeof b, "%d (%d x %d)", gs[i].c.n, gs[i].c.G, gs[i].c.p);
			printf(" | %-28s", b);
		}
		printf("\n");
		for (int j = 0; j < nw; j++) {
			printf("  %-24.24s", ws[j].name);
			for (int i = 0; i < ng; i++) {
				const struct cell *ce = &cells[(size_t)j * ng + i];
				char b[96];
				if (engine == 0)
					snprintf(b, sizeof b, "%.1f us %s", ce->t_model * 1e6, ce->algo);
				else if (engine == 1)
					snprintf(b, sizeof b, "%.1f us %s", ce->t_sim * 1e6, ce->algo);
				else
					snprintf(b, sizeof b, "%.1f/%.1f us %s", ce->t_model * 1e6, ce->t_sim * 1e6, ce->algo);
				printf(" | %-28.28s", b);
			}
			printf("\n");
		}
		printf("#\n# bandwidth: MoE rows DeepEP's bottleneck bandwidth, kvcache what a decode rank receives per second, collectives busbw (GB/s, closed form)\n");
		for (int j = 0; j < nw; j++) {
			printf("  %-24.24s", ws[j].name);
			for (int i = 0; i < ng; i++) {
				char b[64];
				snprintf(b, sizeof b, "%.1f GB/s", cells[(size_t)j * ng + i].bw / 1e9);
				printf(" | %-28s", b);
			}
			printf("\n");
		}
	}
	rc = ccs_flush_stdout() ? 1 : 0;
	goto out;
diag:
	fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim run: bad scenario");
out:
	for (int i = 0; i < ng && gs; i++) {
		if (gs[i].built)
			ccs_comm_release(&gs[i].c);
		ccs_topo_free(gs[i].t);
	}
	ccs_free(gs);
	ccs_free(ws);
	ccs_free(cells);
	ccs_ydoc_release(&doc);
	return rc;
}
