/* sim/cli/run/scenario.c: the scenario file: designs and workloads read and checked with positions (run.h). */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ccs_scenario_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ccs_ytree_error(d, y, msg);
}

static int name_of(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *const *names, int n,
                   int *out)
{
	const struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (!y)
		return CCS_OK;
	int rc = ccs_ytree_kind(d, y, CCS_Y_SCALAR, key);
	if (rc)
		return rc;
	int k = ccs_moe_parse(names, n, y->str);
	if (k < 0)
		return ccs_scenario_error(d, y, "unknown %s '%s'", key, y->str);
	*out = k;
	return CCS_OK;
}

int ccs_scenario_load_design(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *dir, int quick, struct design *g)
{
	static const char *const keys[] = { "name", "topology", "set", "ranks", "ppn", "quick", "faults" };
	int rc;
	g->node = m;
	if ((rc = ccs_ytree_kind(d, m, CCS_Y_MAP, "a design")) || (rc = ccs_ytree_keys(d, m, keys, 7, "a design")) ||
	    (rc = ccs_ytree_need(d, m, "name", "a design")) || (rc = ccs_ytree_need(d, m, "topology", "a design")) ||
	    (rc = ccs_ytree_str(d, m, "name", &g->name)) || (rc = ccs_ytree_str(d, m, "topology", &g->topo)) ||
	    (rc = ccs_ytree_long(d, m, "ranks", 1, 1 << 20, &g->ranks, NULL)) || (rc = ccs_ytree_long(d, m, "ppn", 1, 4096, &g->ppn, NULL)))
		return rc;
	if (strlen(g->name) > CCS_RUN_NAME_MAX)
		return ccs_scenario_error(d, ccs_ytree_get(m, "name"), "a design's name has at most %d bytes", CCS_RUN_NAME_MAX);
	int pl = g->topo[0] == '/' ? snprintf(g->path, sizeof g->path, "%s", g->topo)
	                           : snprintf(g->path, sizeof g->path, "%s/%s", dir, g->topo);
	if (pl < 0 || (size_t)pl >= sizeof g->path)
		return ccs_scenario_error(d, ccs_ytree_get(m, "topology"), "a path longer than %zu bytes", sizeof g->path - 1);
	/* 'set', then in a quick run the design's 'quick' overrides after it */
	for (int pass = 0; pass < 1 + quick; pass++) {
		const struct ccs_ynode *s = ccs_ytree_get(m, pass ? "quick" : "set");
		if (!s)
			continue;
		if ((rc = ccs_ytree_kind(d, s, CCS_Y_MAP, pass ? "quick" : "set")))
			return rc;
		if (g->nsets + (int)s->n > 32)
			return ccs_ytree_error(d, s, "at most 32 overrides in 'set' and 'quick'");
		for (uint32_t i = 0; i < s->n; i++) {
			if ((rc = ccs_ytree_kind(d, s->v[i], CCS_Y_SCALAR, s->k[i]->str)))
				return rc;
			if ((size_t)snprintf(g->setbuf[g->nsets], sizeof g->setbuf[0], "%s=%s", s->k[i]->str, s->v[i]->str) >=
			    sizeof g->setbuf[0])
				return ccs_scenario_error(d, s->v[i], "an override longer than %zu bytes", sizeof g->setbuf[0] - 1);
			g->sets[g->nsets] = g->setbuf[g->nsets];
			g->nsets++;
		}
	}
	/* faults: a list of fault strings (model/fault.h), from the start */
	const struct ccs_ynode *fy = ccs_ytree_get(m, "faults");
	if (fy) {
		if ((rc = ccs_ytree_kind(d, fy, CCS_Y_SEQ, "faults")))
			return rc;
		if (g->nsets + (int)fy->n > 32)
			return ccs_ytree_error(d, fy, "at most 32 overrides in 'set', 'quick' and 'faults'");
		for (uint32_t i = 0; i < fy->n; i++) {
			if ((rc = ccs_ytree_kind(d, fy->v[i], CCS_Y_SCALAR, "a fault")))
				return rc;
			if ((size_t)snprintf(g->setbuf[g->nsets], sizeof g->setbuf[0], "faults+=%s", fy->v[i]->str) >= sizeof g->setbuf[0])
				return ccs_scenario_error(d, fy->v[i], "a fault longer than %zu bytes", sizeof g->setbuf[0] - 9);
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
	                                      "seed", "ep", "expected" };
	for (size_t k = 0; k < sizeof not_kv / sizeof not_kv[0]; k++)
		if (ccs_ytree_get(m, not_kv[k]))
			return ccs_scenario_error(d, ccs_ytree_get(m, not_kv[k]), "'%s' is not a kvcache key", not_kv[k]);
	ccs_kv_cfg_default(&w->kvc);
	struct { const char *key; int *out; long lo, hi; } ints[] = {
		{ "prefill", &w->kvc.prefill, 1, 1 << 20 }, { "decode", &w->kvc.decode, 1, 1 << 20 },
		{ "layers", &w->kvc.layers, 1, 100000 }, { "kv_dim", &w->kvc.dim, 1, 1 << 24 },
		{ "tokens", &w->kvc.tokens, 1, 1 << 26 }, { "page_tokens", &w->kvc.page_tokens, 1, 1 << 26 },
	};
	int rc;
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		long v = *ints[k].out;
		if ((rc = ccs_ytree_long(d, m, ints[k].key, ints[k].lo, ints[k].hi, &v, NULL)))
			return rc;
		*ints[k].out = (int)v;
	}
	static const char *const dt[] = { "fp8", "bf16", "fp32" };
	int di = 1;
	static const char *const yn[] = { "false", "true" };
	if ((rc = name_of(d, m, "dtype", dt, 3, &di)) || (rc = name_of(d, m, "kv_replicated", yn, 2, &w->kvc.replicated)) ||
	    (rc = ccs_ytree_qty(d, m, "layer_time", CCS_QTY_TIME, &w->kvc.layer_s)))
		return rc;
	w->kvc.dsize = di == 0 ? 1 : di == 1 ? 2 : 4;
	return CCS_OK;
}

/* A collective workload's size (and no MoE keys). */
static int load_coll(struct ccs_ydoc *d, const struct ccs_ynode *m, const struct ccs_ynode *cy, struct work *w)
{
	int rc;
	static const char *const moe_keys[] = { "tokens", "hidden", "dtype", "topk", "experts", "routing", "skew",
	                                        "hot", "hot_share", "expert_groups", "topk_groups", "placement",
	                                        "replicas", "seed", "ep", "expected" };
	for (size_t k = 0; k < sizeof moe_keys / sizeof moe_keys[0]; k++)
		if (ccs_ytree_get(m, moe_keys[k]))
			return ccs_scenario_error(d, ccs_ytree_get(m, moe_keys[k]), "'%s' is for dispatch and combine, not %s", moe_keys[k],
			             cy->str);
	if ((rc = ccs_ytree_need(d, m, "bytes", "a collective workload")))
		return rc;
	const struct ccs_ynode *by = ccs_ytree_get(m, "bytes");
	char err[160];
	if ((rc = ccs_ytree_kind(d, by, CCS_Y_SCALAR, "bytes")))
		return rc;
	if (ccs_parse_size(by->str, &w->bytes, err, sizeof err) || w->bytes == 0)
		return ccs_scenario_error(d, by, "bytes: '%s' is not a size such as 64KiB or 1GiB", by->str);
	return CCS_OK;
}

/* An MoE workload's configuration (and no size: it comes from tokens and
 * hidden). */
static int load_moe(struct ccs_ydoc *d, const struct ccs_ynode *m, const struct ccs_ynode *cy, struct work *w)
{
	int rc;
	if (ccs_ytree_get(m, "bytes"))
		return ccs_scenario_error(d, ccs_ytree_get(m, "bytes"), "'bytes' is for collectives; %s sizes come from tokens and hidden", cy->str);
	ccs_moe_cfg_default(&w->cfg);
	long v;
	struct { const char *key; int *out; long lo, hi; } ints[] = {
		{ "tokens", &w->cfg.tokens, 1, 1 << 20 }, { "hidden", &w->cfg.hidden, 1, 1 << 20 },
		{ "topk", &w->cfg.topk, 1, 64 }, { "experts", &w->cfg.experts, 1, 1 << 20 },
		{ "hot", &w->cfg.hot, 1, 1 << 20 }, { "expert_groups", &w->cfg.groups, 1, 1 << 20 },
		{ "topk_groups", &w->cfg.topk_groups, 1, 1 << 20 }, { "replicas", &w->cfg.replicas, 0, 1 << 20 },
		{ "ep", &w->cfg.ep, 1, 1 << 20 },
	};
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		v = *ints[k].out;
		if ((rc = ccs_ytree_long(d, m, ints[k].key, ints[k].lo, ints[k].hi, &v, NULL)))
			return rc;
		*ints[k].out = (int)v;
	}
	v = (long)w->cfg.seed;
	if ((rc = ccs_ytree_long(d, m, "seed", 0, 2147483647L, &v, NULL)))
		return rc;
	w->cfg.seed = (uint64_t)v;
	static const char *const dt[] = { "bf16", "fp8" };
	if ((rc = name_of(d, m, "dtype", dt, 2, &w->cfg.fp8)) ||
	    (rc = ccs_ytree_bool(d, m, "expected", &w->cfg.expected, NULL)) ||
	    (rc = name_of(d, m, "routing", ccs_moe_dist_name, CCS_MOE_TRACE, &w->cfg.dist)) ||
	    (rc = name_of(d, m, "placement", ccs_moe_place_name, CCS_MOE_PLACE_N, &w->cfg.place)))
		return rc;
	const char *const reals[] = { "skew", "hot_share" };
	double *rout[] = { &w->cfg.skew, &w->cfg.hot_share };
	for (int k = 0; k < 2; k++) {
		const struct ccs_ynode *y = ccs_ytree_get(m, reals[k]);
		if (!y)
			continue;
		if ((rc = ccs_ytree_kind(d, y, CCS_Y_SCALAR, reals[k])))
			return rc;
		char *end;
		double x = strtod(y->str, &end);
		if (*end || !(x > 0) || (k == 1 && !(x < 1)) || x > 10)
			return ccs_scenario_error(d, y, "'%s' must be %s", reals[k], k ? "a fraction between 0 and 1" : "above 0 and at most 10");
		*rout[k] = x;
	}
	return CCS_OK;
}

int ccs_scenario_load_work(struct ccs_ydoc *d, const struct ccs_ynode *m, struct work *w)
{
	static const char *const keys[] = { "name", "collective", "algo", "proto", "bytes", "tokens", "hidden", "dtype", "topk",
	                                    "experts", "routing", "skew", "hot", "hot_share", "expert_groups",
	                                    "topk_groups", "placement", "replicas", "seed", "ep", "expected", "ranks", "prefill", "decode",
	                                    "layers", "kv_dim", "kv_replicated", "page_tokens", "layer_time" };
	int rc;
	w->node = m;
	if ((rc = ccs_ytree_kind(d, m, CCS_Y_MAP, "a workload")) || (rc = ccs_ytree_keys(d, m, keys, (int)(sizeof keys / sizeof keys[0]), "a workload")) ||
	    (rc = ccs_ytree_long(d, m, "ranks", 1, 1 << 20, &w->ranks, NULL)) ||
	    (rc = ccs_ytree_need(d, m, "name", "a workload")) || (rc = ccs_ytree_need(d, m, "collective", "a workload")) ||
	    (rc = ccs_ytree_str(d, m, "name", &w->name)))
		return rc;
	if (strlen(w->name) > CCS_RUN_NAME_MAX)
		return ccs_scenario_error(d, ccs_ytree_get(m, "name"), "a workload's name has at most %d bytes", CCS_RUN_NAME_MAX);
	const struct ccs_ynode *cy = ccs_ytree_get(m, "collective");
	if ((rc = ccs_ytree_kind(d, cy, CCS_Y_SCALAR, "collective")))
		return rc;
	w->op = ccs_moe_parse(ccs_moe_op_name, CCS_MOE_OP_N, cy->str);
	w->moe = w->op == CCS_MOE_DISPATCH || w->op == CCS_MOE_COMBINE;
	w->kv = !strcmp(cy->str, "kvcache");
	w->coll = w->moe || w->kv ? -1 : ccs_coll_parse(cy->str);
	if (!w->moe && !w->kv && w->coll < 0)
		return ccs_scenario_error(d, cy, "unknown collective '%s'; one of: dispatch, combine, kvcache, allreduce, allgather, "
		             "reducescatter, broadcast, reduce, alltoall, sendrecv", cy->str);
	static const char *const kv_keys[] = { "prefill", "decode", "layers", "kv_dim", "kv_replicated", "page_tokens",
	                                       "layer_time" };
	if (!w->kv)
		for (size_t k = 0; k < sizeof kv_keys / sizeof kv_keys[0]; k++)
			if (ccs_ytree_get(m, kv_keys[k]))
				return ccs_scenario_error(d, ccs_ytree_get(m, kv_keys[k]), "'%s' is for kvcache, not %s", kv_keys[k], cy->str);
	if (w->kv)
		return load_kv(d, m, w);
	w->algo = -1;
	w->proto = -1;
	const struct ccs_ynode *py = ccs_ytree_get(m, "proto");
	if (py) {
		if ((rc = ccs_ytree_kind(d, py, CCS_Y_SCALAR, "proto")))
			return rc;
		if (w->moe)
			return ccs_scenario_error(d, py, "'proto' is for collectives, not %s", cy->str);
		if (strcmp(py->str, "auto") && (w->proto = ccs_proto_parse(py->str)) < 0)
			return ccs_scenario_error(d, py, "unknown protocol '%s'; one of: ll, ll128, simple, auto", py->str);
	}
	const struct ccs_ynode *ay = ccs_ytree_get(m, "algo");
	if (ay && (rc = ccs_ytree_kind(d, ay, CCS_Y_SCALAR, "algo")))
		return rc;
	w->synth = 0;
	if (ay && !w->moe && !strcmp(ay->str, "synth")) {
		/* a schedule synthesized for the design: the LP bound as its
		 * closed form, its simulated time (docs/synthesis.md) */
		if (w->coll != CCS_COLL_ALLGATHER && w->coll != CCS_COLL_REDUCESCATTER && w->coll != CCS_COLL_ALLREDUCE &&
		    w->coll != CCS_COLL_ALLTOALL)
			return ccs_scenario_error(d, ay, "'synth' makes allgather, reducescatter, allreduce and alltoall, not %s",
			                          cy->str);
		w->synth = 1;
	} else if (ay && strcmp(ay->str, "auto")) {
		w->algo = w->moe ? ccs_moe_parse(ccs_moe_algo_name, CCS_MOE_ALGO_N, ay->str) : ccs_algo_parse(ay->str);
		if (w->algo < 0)
			return ccs_scenario_error(d, ay, "unknown algorithm '%s' for %s", ay->str, cy->str);
	}
	return w->moe ? load_moe(d, m, cy, w) : load_coll(d, m, cy, w);
}
