/* sim/classes_refine.c: the flow classes' partition, by colour refinement
** to the coarsest equitable partition of lanes and resources, and its exact
** check (classes_int.h). */
#include "classes_int.h"

#include "../model/ccs.h"

/* Number the distinct values of sig[0..n) in order of first appearance
 * into out (entries with skip[i] set, where skip is given, get NONE);
 * *count the number of distinct values. */
static int renumber(const uint64_t *sig, const uint8_t *skip, uint32_t n, uint32_t *out, uint32_t *count)
{
	size_t cap = 16;
	while (cap < 2 * (size_t)n)
		cap *= 2;
	uint64_t *ks = ccs_malloc(cap * sizeof *ks);
	uint32_t *vs = ccs_malloc(cap * sizeof *vs);
	if (!ks || !vs) {
		ccs_free(ks);
		ccs_free(vs);
		return CCS_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		vs[i] = NONE;
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (skip && skip[i]) {
			out[i] = NONE;
			continue;
		}
		size_t h = (size_t)mix(sig[i], 1) & (cap - 1);
		while (vs[h] != NONE && ks[h] != sig[i])
			h = (h + 1) & (cap - 1);
		if (vs[h] == NONE) {
			ks[h] = sig[i];
			vs[h] = c++;
		}
		out[i] = vs[h];
	}
	*count = c;
	ccs_free(ks);
	ccs_free(vs);
	return CCS_OK;
}

/* Lane l's colour from the last round's classes: its class, with
 * dep_refine the classes of the lanes it waits for (kind by kind, those
 * within its step or all: members of one class then wait for members of
 * one class, so a tree's levels are told apart before a run has to find
 * them by splitting), and, epoch by epoch, the multiset of its route's
 * resource classes. */
static uint64_t lane_sig(const struct ccs_classes *k, uint32_t l)
{
	uint64_t h = mix(k->lc[l], k->E);
	for (int j = 0; k->dep_refine && j < k->ln.ndep; j++)
		if (k->dep_refine == 2 || !k->ln.dt[j])
			h = mix(h, k->pj[j][l] == NONE ? NONE : k->lc[k->pj[j][l]]);
	for (uint32_t e = 0; e < k->E; e++) {
		uint32_t v[MP];
		int n;
		const uint32_t *rt = route_of(k, l, e, &n);
		for (int i = 0; i < n; i++)
			v[i] = k->rc[rt[i]];
		sort_u32(v, (uint32_t)n);
		h = mix(h, (uint64_t)n);
		for (int i = 0; i < n; i++)
			h = mix(h, v[i]);
	}
	return h;
}


/* Resource r's colour: its class and the multiset of its crossings'
 * (lane class, epoch). */
static uint64_t res_sig(const struct ccs_classes *k, uint32_t r, uint32_t *buf)
{
	uint32_t a = k->roff[r], b = k->roff[r + 1], m = 0;
	for (uint32_t x = a; x < b; x++)
		buf[m++] = crossing(k, k->rlanes[x]);
	sort_u32(buf, m);
	uint64_t h = mix(k->rc[r], m);
	for (uint32_t x = 0; x < m; x++)
		h = mix(h, buf[x]);
	return h;
}

/* Resource r's first colour: its capacity in every epoch (exact with
 * one epoch; a collision otherwise is caught by verify). */
static uint64_t cap_sig(const struct ccs_classes *k, uint32_t r)
{
	if (k->E == 1)
		return bits(k->cap_of[r]);
	uint64_t h = 0;
	for (uint32_t e = 0; e < k->E; e++)
		h = mix(h, bits(cap_at(k, e)[r]));
	return h;
}

/* Refine to the fixed point from lane colours init (and, first, resources
 * by capacity; again, from their classes); *ok 1 when settled within
 * max_q classes and max_rounds rounds, 0 when not (then no classes). */
int ccs_classes_refine(struct ccs_classes *k, const uint64_t *init, int again, int *ok)
{
	uint32_t max_q = k->max_q, max_rounds = k->max_rounds;
	size_t bufn = 0;
	for (uint32_t r = 0; r < k->nres; r++)
		if (k->roff[r + 1] - k->roff[r] > bufn)
			bufn = k->roff[r + 1] - k->roff[r];
	size_t nsig = k->L > k->nres ? k->L : k->nres;
	uint64_t *sig = ccs_malloc((nsig + 1) * sizeof *sig);
	uint32_t *buf = ccs_malloc((bufn + 1) * sizeof *buf);
	uint8_t *unused = ccs_malloc((size_t)k->nres + 1);
	uint32_t *nlc = ccs_malloc(((size_t)k->L + 1) * sizeof *nlc);   /* the next round's lane classes */
	int rc = sig && buf && unused && nlc ? CCS_OK : CCS_ENOMEM;
	for (uint32_t r = 0; !rc && r < k->nres; r++) {
		unused[r] = k->roff[r + 1] == k->roff[r];
		sig[r] = again ? k->rc[r] : cap_sig(k, r);
	}
	if (!rc)
		rc = renumber(sig, unused, k->nres, k->rc, &k->R);
	if (!rc)
		rc = renumber(init, NULL, k->L, k->lc, &k->Q);
	*ok = 0;
	for (uint32_t round = 0; !rc && round < max_rounds && k->Q <= max_q; round++) {
		uint32_t Q = k->Q, R = k->R;
		/* lanes first into sig, then renumbered into a copy, as both
		 * must read the last round's classes */
		for (uint32_t l = 0; l < k->L; l++)
			sig[l] = lane_sig(k, l);
		if ((rc = renumber(sig, NULL, k->L, nlc, &k->Q)))
			break;
		for (uint32_t r = 0; r < k->nres; r++)
			sig[r] = unused[r] ? 0 : res_sig(k, r, buf);
		rc = renumber(sig, unused, k->nres, k->rc, &k->R);
		uint32_t *old = k->lc;
		k->lc = nlc;
		nlc = old;
		if (k->Q == Q && k->R == R) {
			*ok = k->Q <= max_q;
			break;
		}
	}
	ccs_free(sig);
	ccs_free(buf);
	ccs_free(unused);
	ccs_free(nlc);
	return rc;
}

/* Multisets equal: a[0..n) and b[0..n) sorted in place. */
static int same_multiset(uint32_t *a, uint32_t *b, uint32_t n)
{
	sort_u32(a, n);
	sort_u32(b, n);
	return !memcmp(a, b, (size_t)n * sizeof *a);
}

/* Exact check of what the hashes claimed: every lane like its class's
 * representative (first colour, route classes), every resource like its
 * class's (capacity, crossing classes).  0 on a hash collision. */
static int lanes_equitable(const struct ccs_classes *k, uint32_t *ba, uint32_t *bb)
{
	for (uint32_t l = 0; l < k->L; l++) {
		uint32_t r0 = k->rep[k->lc[l]];
		if (k->sig0[l] != k->sig0[r0])
			return 0;
		for (uint32_t e = 0; e < k->E; e++) {
			int n, n0;
			const uint32_t *a = route_of(k, l, e, &n), *b = route_of(k, r0, e, &n0);
			if (n != n0)
				return 0;
			for (int i = 0; i < n; i++) {
				ba[i] = k->rc[a[i]];
				bb[i] = k->rc[b[i]];
			}
			if (!same_multiset(ba, bb, (uint32_t)n))
				return 0;
		}
	}
	return 1;
}

static int res_equitable(const struct ccs_classes *k, uint32_t *ba, uint32_t *bb, uint32_t *rrep)
{
	for (uint32_t r = 0; r < k->nres; r++)
		if (k->rc[r] != NONE && rrep[k->rc[r]] == NONE)
			rrep[k->rc[r]] = r;
	for (uint32_t r = 0; r < k->nres; r++) {
		if (k->rc[r] == NONE)
			continue;
		uint32_t r0 = rrep[k->rc[r]], n = k->roff[r + 1] - k->roff[r];
		if (n != k->roff[r0 + 1] - k->roff[r0])
			return 0;
		for (uint32_t e = 0; e < k->E; e++)
			if (bits(cap_at(k, e)[r]) != bits(cap_at(k, e)[r0]))
				return 0;
		for (uint32_t x = 0; x < n; x++) {
			ba[x] = crossing(k, k->rlanes[k->roff[r] + x]);
			bb[x] = crossing(k, k->rlanes[k->roff[r0] + x]);
		}
		if (!same_multiset(ba, bb, n))
			return 0;
	}
	return 1;
}

int ccs_classes_refine_verify(struct ccs_classes *k, int *ok)
{
	size_t bufn = MP;
	for (uint32_t r = 0; r < k->nres; r++)
		if (k->roff[r + 1] - k->roff[r] > bufn)
			bufn = k->roff[r + 1] - k->roff[r];
	uint32_t *ba = ccs_malloc(bufn * sizeof *ba), *bb = ccs_malloc(bufn * sizeof *bb);
	uint32_t *rrep = ccs_malloc(((size_t)k->R + 1) * sizeof *rrep);
	int rc = ba && bb && rrep ? CCS_OK : CCS_ENOMEM;
	if (!rc) {
		for (uint32_t i = 0; i < k->R; i++)
			rrep[i] = NONE;
		*ok = lanes_equitable(k, ba, bb) && res_equitable(k, ba, bb, rrep);
		for (uint32_t r = 0; *ok && r < k->nres; r++)
			for (uint32_t e = 0; k->rc[r] != NONE && e < k->E; e++)
				k->rcap[(size_t)e * k->R + k->rc[r]] = cap_at(k, e)[r];
	}
	ccs_free(ba);
	ccs_free(bb);
	ccs_free(rrep);
	return rc;
}
