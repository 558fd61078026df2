/* model/moe_route.c: which experts each token picks and where they live
** (moe.h, "Routing"): popularity, placement and replicas, the draw per
** token (top-k of the allowed experts, group-limited), its pairs' counts. */
#include "moe.h"

#include "ccs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s)
{
	return ((double)(sm64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* index of the first cumulative weight above u (cw increasing, n > 0) */
static int pick_cum(const double *cw, int n, double u)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (cw[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* k distinct items of [0, n) with weights w (cumulative cw), those with
 * allow[i] == 0 excluded (allow NULL: all): rejection, then Efraimidis-
 * Spirakis keys when rejection stalls.  seen is scratch of n bytes, zero on
 * entry and on return. */
static void draw(const double *w, const double *cw, int n, const uint8_t *allow, int k, uint64_t *rng,
                 uint8_t *seen, int32_t *out)
{
	int got = 0, tries = 0;
	double total = cw[n - 1];
	while (got < k && tries < 64 * k) {
		tries++;
		int e = pick_cum(cw, n, unif(rng) * total);
		if (seen[e] || (allow && !allow[e]) || !(w[e] > 0))
			continue;
		seen[e] = 1;
		out[got++] = e;
	}
	while (got < k) {
		/* the largest u^(1/w) among what is left */
		int best = -1;
		double bk = -1;
		for (int e = 0; e < n; e++) {
			if (seen[e] || (allow && !allow[e]) || !(w[e] > 0))
				continue;
			double key = log(unif(rng)) / w[e];
			if (best < 0 || key > bk) {
				best = e;
				bk = key;
			}
		}
		if (best < 0)
			break;              /* cannot happen after ccs_moe_check */
		seen[best] = 1;
		out[got++] = best;
	}
	for (int j = 0; j < got; j++)
		seen[out[j]] = 0;
}

/* Popularity order: a seeded permutation (pi[e] expert e's place, order[i]
 * the expert at place i), the weights by the routing distribution and
 * their running sums. */
static void popularity(const struct ccs_moe_cfg *cfg, int32_t *order, int32_t *pi, double *w, double *cw)
{
	int E = cfg->experts, H = cfg->hot;
	uint64_t prng = cfg->seed ^ 0x2545f4914f6cdd1dull;
	for (int e = 0; e < E; e++)
		order[e] = e;
	for (int i = E - 1; i > 0; i--) {
		int j = (int)(sm64(&prng) % (uint64_t)(i + 1));
		int32_t tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (int i = 0; i < E; i++)
		pi[order[i]] = i;
	for (int e = 0; e < E; e++) {
		if (cfg->dist == CCS_MOE_ZIPF)
			w[e] = pow(1.0 + pi[e], -cfg->skew);
		else if (cfg->dist == CCS_MOE_HOT)
			w[e] = pi[e] < H ? cfg->hot_share * (E - H) / (H * (1 - cfg->hot_share)) : 1.0;
		else
			w[e] = 1.0;
		cw[e] = (e ? cw[e - 1] : 0) + w[e];
	}
}

/* Each expert's home rank in an EP group of n ranks, and where the H
 * hottest have their R copies. */
static void placement(const struct ccs_moe_cfg *cfg, int n, const int32_t *pi, int32_t *home, int32_t *copy)
{
	int E = cfg->experts, R = cfg->replicas, H = cfg->hot;
	int per = (E + n - 1) / n;
	for (int e = 0; e < E; e++)
		home[e] = cfg->place == CCS_MOE_ROUND_ROBIN ? e % n : e / per;
	if (R > 0)
		for (int e = 0; e < E; e++)
			for (int j = 0; j <= R; j++)
				copy[(size_t)e * (size_t)(R + 1) + (size_t)j] =
				    pi[e] < H ? (int32_t)((home[e] + (long)j * n / (R + 1)) % n) : home[e];
}

/* The rank serving a pick of expert e: its home, or with R replicas copy
 * (rank + token) mod (R + 1), in the EP group starting at rank q0. */
static int32_t pick_rank(int q0, const int32_t *home, const int32_t *copy, int R, int e, int rt)
{
	return q0 + (R > 0 ? copy[(size_t)e * (size_t)(R + 1) + (size_t)(rt % (R + 1))] : home[e]);
}

int ccs_moe_route(const struct ccs_moe_cfg *cfg, const struct ccs_comm *c, const int32_t *trace,
                  struct ccs_moe_routing *out)
{
	int n = c->n, E = cfg->experts, k = cfg->topk, T = cfg->tokens;
	size_t picks = (size_t)n * (size_t)T * (size_t)k;
	memset(out, 0, sizeof *out);
	double *w = ccs_calloc((size_t)E + 1, sizeof *w), *cw = ccs_calloc((size_t)E + 1, sizeof *cw);
	int32_t *pi = ccs_malloc(((size_t)E + 1) * sizeof *pi), *order = ccs_malloc(((size_t)E + 1) * sizeof *order);
	int32_t *home = ccs_malloc(((size_t)E + 1) * sizeof *home);
	int32_t *copy = NULL;
	uint8_t *seen = ccs_calloc((size_t)E + 1, 1), *allow = ccs_calloc((size_t)E + 1, 1);
	int P = cfg->ep > 0 && cfg->ep < n ? cfg->ep : n;
	/* expert groups: one per scale-up group an EP group spans */
	int Ge = cfg->groups > 0 ? cfg->groups : (int)((long)c->G * P / n > 0 ? (long)c->G * P / n : 1);
	if (Ge > E)
		Ge = E;
	double *gw = ccs_calloc((size_t)Ge + 1, sizeof *gw), *gcw = ccs_calloc((size_t)Ge + 1, sizeof *gcw);
	uint8_t *gseen = ccs_calloc((size_t)Ge + 1, 1);
	int32_t *gpick = ccs_malloc(((size_t)Ge + 1) * sizeof *gpick);
	out->expert = ccs_malloc((picks + 1) * sizeof *out->expert);
	out->rank = ccs_malloc((picks + 1) * sizeof *out->rank);
	int R = cfg->replicas;
	if (R > 0)
		copy = ccs_malloc(((size_t)E * (size_t)(R + 1) + 1) * sizeof *copy);
	int rc = CCS_ENOMEM;
	if (!w || !cw || !pi || !order || !home || !seen || !allow || !gw || !gcw || !gseen || !gpick ||
	    !out->expert || !out->rank || (R > 0 && !copy))
		goto out;
	out->n = n;
	out->tokens = T;
	out->topk = k;
	popularity(cfg, order, pi, w, cw);
	placement(cfg, P, pi, home, copy);
	/* groups: contiguous ranges of experts */
	int glimit = cfg->topk_groups > 0 && cfg->topk_groups < Ge;
	for (int e = 0; e < E; e++)
		gw[(long)e * Ge / E] += w[e];
	for (int g = 0; g < Ge; g++)
		gcw[g] = (g ? gcw[g - 1] : 0) + gw[g];
	for (int r = 0; r < n; r++) {
		uint64_t rng = cfg->seed * 0x9e3779b97f4a7c15ull + (uint64_t)r * 0xd1b54a32d192ed03ull + 1;
		for (int t = 0; t < T; t++) {
			size_t base = ((size_t)r * (size_t)T + (size_t)t) * (size_t)k;
			int32_t *ex = out->expert + base;
			if (trace) {
				memcpy(ex, trace + base, (size_t)k * sizeof *ex);
			} else if (glimit) {
				draw(gw, gcw, Ge, NULL, cfg->topk_groups, &rng, gseen, gpick);
				for (int j = 0; j < cfg->topk_groups; j++)
					for (long e = ((long)gpick[j] * E + Ge - 1) / Ge; e < E && e * Ge / E == gpick[j]; e++)
						allow[e] = 1;
				draw(w, cw, E, allow, k, &rng, seen, ex);
				for (int j = 0; j < cfg->topk_groups; j++)
					for (long e = ((long)gpick[j] * E + Ge - 1) / Ge; e < E && e * Ge / E == gpick[j]; e++)
						allow[e] = 0;
			} else {
				draw(w, cw, E, NULL, k, &rng, seen, ex);
			}
			for (int j = 0; j < k; j++)
				out->rank[base + (size_t)j] = pick_rank(r / P * P, home, copy, R, ex[j], r + t);
		}
	}
	rc = CCS_OK;
out:
	ccs_free(w);
	ccs_free(cw);
	ccs_free(pi);
	ccs_free(order);
	ccs_free(home);
	ccs_free(copy);
	ccs_free(seen);
	ccs_free(allow);
	ccs_free(gw);
	ccs_free(gcw);
	ccs_free(gseen);
	ccs_free(gpick);
	if (rc)
		ccs_moe_routing_release(out);
	return rc;
}

void ccs_moe_routing_release(struct ccs_moe_routing *r)
{
	ccs_free(r->expert);
	ccs_free(r->rank);
	memset(r, 0, sizeof *r);
}
