/*
** sim/sched/expert_agg.c: an expert-parallel plan merged by leaf pair
** (expert_agg.h has the rule and what it keeps).
**
** The plan's transfers across groups are sorted by bundle (sender's leaf,
** receiver's leaf, copy ports) and sender; the forwards behind them by
** (bundle, forwarder, rank forwarded to).  Each bundle worth merging gets
** pieces on a circulant balanced by Sinkhorn, or else filled north-west
** corner with a piece that would stay in a group exchanged against
** another, or else stays as it is; each piece is emitted with its share of
** the forwards of its receiver.
*/
#include "expert_agg.h"

#include "../../model/topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* A transfer across groups, and a forward behind one (i: its index in the plan). */
struct bent {
	uint32_t ls, ld;
	int32_t src, dst;
	uint32_t i;
	uint8_t sm;
};

struct cent {
	uint32_t b;                 /* its parent's bundle */
	int32_t d, e;
	uint32_t i;
	uint8_t sm;
};

/* A bundle's sender or receiver: tokens in all, and still to place. */
struct side {
	int32_t r;
	double tot, left;
};

/* A piece: tokens from s to d, bd the receiver's tokens over the bundle. */
struct piece {
	int32_t s, d;
	double tok, bd;
};

struct agg_w {
	const struct ccs_comm *c;
	const struct ccs_moe_plan *p;
	struct ccs_moe_agg *out;
	size_t xcap, tcap, scap, rcap, pcap;
	struct side *S, *R;
	struct piece *pc;
	size_t nS, nR, npc;
	uint32_t *newidx;           /* plan index -> index in out (kept transfers) */
	uint32_t *pj;               /* a piece's receiver, as an index into R (circulant) */
	size_t pjcap;
	int hashed;
};

static int cmp_bent(const void *a, const void *b)
{
	const struct bent *x = a, *y = b;
	if (x->ls != y->ls)
		return x->ls < y->ls ? -1 : 1;
	if (x->ld != y->ld)
		return x->ld < y->ld ? -1 : 1;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static int cmp_cent(const void *a, const void *b)
{
	const struct cent *x = a, *y = b;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_side(const void *a, const void *b)
{
	const struct side *x = a, *y = b;
	return x->r < y->r ? -1 : x->r > y->r;
}

static int emit(struct agg_w *w, int32_t src, int32_t dst, int32_t parent, double tok, uint8_t sm, uint8_t by_dst,
                double stand)
{
	struct ccs_moe_plan *o = &w->out->p;
	if (ccs_grow(&o->x, &w->xcap, o->nx + 1, sizeof *o->x) ||
	    ccs_grow(&w->out->tx, &w->tcap, o->nx + 1, sizeof *w->out->tx))
		return CCS_ENOMEM;
	w->out->tx[o->nx] = (struct ccs_moe_agg_tx){ (float)stand, by_dst };
	o->x[o->nx++] = (struct ccs_moe_xfer){ src, dst, parent, tok, sm };
	return CCS_OK;
}

static int add_piece(struct agg_w *w, int32_t s, int32_t d, double tok, double bd)
{
	if (ccs_grow(&w->pc, &w->pcap, w->npc + 1, sizeof *w->pc))
		return CCS_ENOMEM;
	w->pc[w->npc++] = (struct piece){ s, d, tok, bd };
	return CCS_OK;
}

static int same_group(const struct agg_w *w, int32_t a, int32_t b)
{
	return w->c->rank_group[a] == w->c->rank_group[b];
}

/* The bundle's senders (e sorted by sender) and receivers (sorted by rank,
 * then rotated by half: a sender meets receivers away from its own place). */
static int sides(struct agg_w *w, const struct bent *e, size_t m)
{
	const struct ccs_moe_xfer *x = w->p->x;
	if (ccs_grow(&w->S, &w->scap, m, sizeof *w->S) || ccs_grow(&w->R, &w->rcap, 2 * m, sizeof *w->R))
		return CCS_ENOMEM;
	w->nS = w->nR = 0;
	for (size_t k = 0; k < m; k++) {
		double t = x[e[k].i].tokens;
		if (w->nS && w->S[w->nS - 1].r == e[k].src)
			w->S[w->nS - 1].tot += t;
		else
			w->S[w->nS++] = (struct side){ e[k].src, t, 0 };
		w->R[m + k] = (struct side){ e[k].dst, t, 0 };
	}
	qsort(w->R + m, m, sizeof *w->R, cmp_side);
	size_t nr = 0;
	for (size_t k = 0; k < m; k++) {
		const struct side *r = &w->R[m + k];
		if (nr && w->R[m + nr - 1].r == r->r)
			w->R[m + nr - 1].tot += r->tot;
		else
			w->R[m + nr++] = *r;
	}
	for (size_t k = 0; k < nr; k++)
		w->R[k] = w->R[m + (k + nr / 2) % nr];
	w->nR = nr;
	return CCS_OK;
}

/* North-west corner: a receiver in the sender's group swapped for the next
 * one outside it; where none is left the piece stays in the group (fixed
 * by exchange()).  eps: what counts as none left. */
static int corner(struct agg_w *w, double eps)
{
	size_t i = 0, j = 0;
	w->npc = 0;
	for (size_t k = 0; k < w->nS; k++)
		w->S[k].left = w->S[k].tot;
	for (size_t k = 0; k < w->nR; k++)
		w->R[k].left = w->R[k].tot;
	while (i < w->nS && j < w->nR) {
		if (!(w->S[i].left > eps)) {
			i++;
			continue;
		}
		if (!(w->R[j].left > eps)) {
			j++;
			continue;
		}
		if (same_group(w, w->S[i].r, w->R[j].r)) {
			size_t k = j + 1;
			while (k < w->nR && (!(w->R[k].left > eps) || same_group(w, w->S[i].r, w->R[k].r)))
				k++;
			if (k < w->nR) {
				struct side t = w->R[j];
				w->R[j] = w->R[k];
				w->R[k] = t;
			}
		}
		double t = w->S[i].left < w->R[j].left ? w->S[i].left : w->R[j].left;
		CCS_TRY(add_piece(w, w->S[i].r, w->R[j].r, t, w->R[j].tot));
		w->S[i].left -= t;
		w->R[j].left -= t;
	}
	return CCS_OK;
}

/* Pieces on a circulant support: sender i (of nS) sends to the q receivers
 * from place i nR / nS on (rotated by half already), skipping its own
 * group; their tokens scaled row and column alternately (Sinkhorn) until
 * every sender sends a_s (exact after each row pass) and every receiver
 * takes b_d within 1e-9 of it.  *ok 0 where they do not: a receiver the
 * support misses, or one owed more than its q senders have. */
static int circulant(struct agg_w *w, size_t q, double eps, int *ok)
{
	*ok = 0;
	w->npc = 0;
	for (size_t i = 0; i < w->nS; i++) {
		size_t j0 = i * w->nR / w->nS, got = 0;
		for (size_t t = 0; t < w->nR && got < q; t++) {
			size_t j = (j0 + t) % w->nR;
			if (same_group(w, w->S[i].r, w->R[j].r))
				continue;
			if (ccs_grow(&w->pj, &w->pjcap, w->npc + 1, sizeof *w->pj))
				return CCS_ENOMEM;
			w->pj[w->npc] = (uint32_t)j;
			CCS_TRY(add_piece(w, w->S[i].r, w->R[j].r, 0, w->R[j].tot));
			got++;
		}
		if (!got)
			return CCS_OK;      /* every receiver in its group */
		for (size_t k = w->npc - got; k < w->npc; k++)
			w->pc[k].tok = w->S[i].tot / (double)got;
	}
	/* a receiver the support misses can never be fed */
	for (size_t j = 0; j < w->nR; j++)
		w->R[j].left = 0;
	for (size_t k = 0; k < w->npc; k++)
		w->R[w->pj[k]].left = 1;
	for (size_t j = 0; j < w->nR; j++)
		if (!(w->R[j].left > 0))
			return CCS_OK;
	for (int it = 0; it < 1000; it++) {
		for (size_t j = 0; j < w->nR; j++)
			w->R[j].left = 0;
		for (size_t k = 0; k < w->npc; k++)
			w->R[w->pj[k]].left += w->pc[k].tok;
		int off = 0;
		for (size_t j = 0; j < w->nR && !off; j++)
			off = fabs(w->R[j].left - w->R[j].tot) > 1e-9 * w->R[j].tot + eps;
		if (!off) {
			*ok = 1;
			return CCS_OK;
		}
		for (size_t k = 0; k < w->npc; k++)
			if (w->R[w->pj[k]].left > 0)
				w->pc[k].tok *= w->R[w->pj[k]].tot / w->R[w->pj[k]].left;
		/* the pieces are in sender order, each sender's in a run */
		for (size_t a = 0, b, i = 0; a < w->npc; a = b, i++) {
			double r = 0;
			for (b = a; b < w->npc && w->pc[b].s == w->pc[a].s; b++)
				r += w->pc[b].tok;
			for (size_t k = a; k < b && r > 0; k++)
				w->pc[k].tok *= w->S[i].tot / r;
		}
	}
	return CCS_OK;
}

/* A piece q inside a group traded with pieces o outside: o.s -> q.d and
 * q.s -> o.d, where both cross groups.  1 where some piece stays inside. */
static int exchange(struct agg_w *w, double eps, int *stuck)
{
	*stuck = 0;
	for (size_t q = 0; q < w->npc; q++) {
		if (!same_group(w, w->pc[q].s, w->pc[q].d))
			continue;
		for (size_t o = 0; w->pc[q].tok > eps && o < w->npc; o++) {
			struct piece Q = w->pc[q], O = w->pc[o];
			if (!(O.tok > eps) || same_group(w, O.s, O.d) || same_group(w, O.s, Q.d) || same_group(w, Q.s, O.d))
				continue;
			double t = O.tok < Q.tok ? O.tok : Q.tok;
			w->pc[o].tok -= t;
			w->pc[q].tok -= t;
			CCS_TRY(add_piece(w, O.s, Q.d, t, Q.bd));
			CCS_TRY(add_piece(w, Q.s, O.d, t, O.bd));
		}
		if (w->pc[q].tok > eps && same_group(w, w->pc[q].s, w->pc[q].d))
			*stuck = 1;
	}
	return CCS_OK;
}

/* The first forward of bundle b from receiver d in ch[0, nc) (sorted). */
static size_t first_fwd(const struct cent *ch, size_t nc, uint32_t b, int32_t d)
{
	size_t lo = 0, hi = nc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ch[mid].b < b || (ch[mid].b == b && ch[mid].d < d))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The pieces of bundle b (m transfers of A tokens in all), each with its
 * share of its receiver's forwards (summed per rank forwarded to): their
 * tokens x piece / receiver's. */
static int emit_pieces(struct agg_w *w, uint32_t b, uint8_t sm, size_t m, double A, const struct cent *ch, size_t nc,
                       double eps)
{
	size_t np = 0;
	for (size_t q = 0; q < w->npc; q++)
		np += w->pc[q].tok > eps;
	double mean = A / (double)m;
	/* under ECMP a piece standing for about two transfers or more */
	uint8_t by_dst = w->hashed && np && lround((double)m / (double)np) > 1;
	for (size_t q = 0; q < w->npc; q++) {
		const struct piece *P = &w->pc[q];
		if (!(P->tok > eps))
			continue;
		int32_t par = (int32_t)w->out->p.nx;
		CCS_TRY(emit(w, P->s, P->d, -1, P->tok, sm, by_dst, P->tok / mean));
		double share = P->bd > 0 ? P->tok / P->bd : 0;
		for (size_t k = first_fwd(ch, nc, b, P->d); k < nc && ch[k].b == b && ch[k].d == P->d;) {
			double tok = 0;
			size_t j = k;
			for (; j < nc && ch[j].b == b && ch[j].d == P->d && ch[j].e == ch[k].e && ch[j].sm == ch[k].sm; j++)
				tok += w->p->x[ch[j].i].tokens;
			CCS_TRY(emit(w, P->d, ch[k].e, par, tok * share, ch[k].sm, 0, 0));
			k = j;
		}
	}
	return CCS_OK;
}

/* A bundle that could not be merged, as it was: its transfers, then their
 * forwards. */
static int emit_as_is(struct agg_w *w, const struct bent *e, size_t m, uint32_t b, const struct cent *ch, size_t nc)
{
	const struct ccs_moe_xfer *x = w->p->x;
	for (size_t k = 0; k < m; k++) {
		w->newidx[e[k].i] = (uint32_t)w->out->p.nx;
		CCS_TRY(emit(w, x[e[k].i].src, x[e[k].i].dst, -1, x[e[k].i].tokens, x[e[k].i].sm, 0, 0));
	}
	for (size_t k = first_fwd(ch, nc, b, INT32_MIN); k < nc && ch[k].b == b; k++) {
		const struct ccs_moe_xfer *f = &x[ch[k].i];
		CCS_TRY(emit(w, f->src, f->dst, (int32_t)w->newidx[f->parent], f->tokens, f->sm, 0, 0));
	}
	return CCS_OK;
}

/* Bundle b (transfers e[0, m)). */
static int bundle(struct agg_w *w, const struct bent *e, size_t m, uint32_t b, const struct cent *ch, size_t nc)
{
	CCS_TRY(sides(w, e, m));
	/* at most F receivers a sender on average: the pieces would be as many
	 * as the transfers */
	if (m <= CCS_MOE_AGG_FAN * w->nS)
		return emit_as_is(w, e, m, b, ch, nc);
	double A = 0;
	for (size_t k = 0; k < w->nS; k++)
		A += w->S[k].tot;
	double eps = A * 1e-12;
	int stuck = 0, ok = 0;
	CCS_TRY(circulant(w, CCS_MOE_AGG_FAN, eps, &ok));
	if (!ok) {
		CCS_TRY(corner(w, eps));
		CCS_TRY(exchange(w, eps, &stuck));
	}
	if (stuck)
		return emit_as_is(w, e, m, b, ch, nc);
	w->out->cornered += !ok;
	w->out->bundles++;
	w->out->merged += m;
	return emit_pieces(w, b, e[0].sm, m, A, ch, nc, eps);
}

/* Each rank's leaf (NONE: no NIC); the transfers across groups and the
 * forwards behind them, sorted; everything else emitted as it is. */
static int split(struct agg_w *w, struct bent **pe, size_t *pm, struct cent **pch, size_t *pnc, uint32_t **pbun)
{
	const struct ccs_comm *c = w->c;
	const struct ccs_moe_plan *p = w->p;
	uint32_t *leaf = ccs_malloc(((size_t)c->n + 1) * sizeof *leaf);
	uint32_t *bun = *pbun = ccs_malloc((p->nx + 1) * sizeof *bun);
	struct bent *e = *pe = ccs_malloc((p->nx + 1) * sizeof *e);
	struct cent *ch = *pch = ccs_malloc((p->nx + 1) * sizeof *ch);
	int rc = !leaf || !bun || !e || !ch ? CCS_ENOMEM : CCS_OK;
	for (int r = 0; r < c->n && !rc; r++)
		leaf[r] = ccs_comm_best_nics(c, r) > 0 ? ccs_topo_nic_leaf(c->t, ccs_comm_nic(c, r, 0)) : NONE;
	size_t m = 0, nc = 0;
	for (size_t i = 0; i < p->nx && !rc; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		bun[i] = NONE;
		w->newidx[i] = NONE;
		/* what the planners promise (model/moe.h), checked: a parent before
		 * its forwards, a forward leaving from where its parent lands and
		 * no forward of a forward, finite tokens */
		if (!(x->tokens >= 0 && isfinite(x->tokens)) || x->parent >= (int32_t)i ||
		    (x->parent >= 0 && (p->x[x->parent].dst != x->src ||
		                        (bun[x->parent] == NONE && w->newidx[x->parent] == NONE)))) {
			rc = CCS_EINPUT;
			break;
		}
		if (x->parent >= 0 && bun[x->parent] != NONE) {
			ch[nc++] = (struct cent){ 0, x->src, x->dst, (uint32_t)i, x->sm };
			continue;
		}
		if (x->parent < 0 && !same_group(w, x->src, x->dst) && leaf[x->src] != NONE && leaf[x->dst] != NONE) {
			bun[i] = 0;
			e[m++] = (struct bent){ leaf[x->src], leaf[x->dst], x->src, x->dst, (uint32_t)i, x->sm };
			continue;
		}
		w->newidx[i] = (uint32_t)w->out->p.nx;
		rc = emit(w, x->src, x->dst, x->parent < 0 ? -1 : (int32_t)w->newidx[x->parent], x->tokens, x->sm, 0, 0);
	}
	ccs_free(leaf);
	if (rc)
		return rc;
	qsort(e, m, sizeof *e, cmp_bent);
	uint32_t nb = 0;
	for (size_t k = 0; k < m; k++) {
		if (k && (e[k].ls != e[k - 1].ls || e[k].ld != e[k - 1].ld || e[k].sm != e[k - 1].sm))
			nb++;
		bun[e[k].i] = nb;
	}
	for (size_t k = 0; k < nc; k++)
		ch[k].b = bun[p->x[ch[k].i].parent];
	qsort(ch, nc, sizeof *ch, cmp_cent);
	*pm = m;
	*pnc = nc;
	return CCS_OK;
}

int ccs_moe_agg_build(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_moe_agg *out)
{
	memset(out, 0, sizeof *out);
	out->p.n = p->n;
	out->p.op = p->op;
	out->p.algo = p->algo;
	out->p.tok_bytes = p->tok_bytes;
	out->p.copy_Bps = p->copy_Bps;
	struct agg_w w = { .c = c, .p = p, .out = out, .hashed = ccs_topo_routing(c->t) == CCS_ROUTE_ECMP };
	struct bent *e = NULL;
	struct cent *ch = NULL;
	uint32_t *bun = NULL;
	size_t m = 0, nc = 0;
	w.newidx = ccs_malloc((p->nx + 1) * sizeof *w.newidx);
	int rc = w.newidx ? split(&w, &e, &m, &ch, &nc, &bun) : CCS_ENOMEM;
	for (size_t a = 0, b; a < m && !rc; a = b) {
		for (b = a + 1; b < m && bun[e[b].i] == bun[e[a].i]; b++)
			;
		rc = bundle(&w, e + a, b - a, bun[e[a].i], ch, nc);
	}
	ccs_free(e);
	ccs_free(ch);
	ccs_free(bun);
	ccs_free(w.newidx);
	ccs_free(w.S);
	ccs_free(w.R);
	ccs_free(w.pc);
	ccs_free(w.pj);
	if (rc)
		ccs_moe_agg_release(out);
	return rc;
}

void ccs_moe_agg_release(struct ccs_moe_agg *a)
{
	ccs_free(a->p.x);
	ccs_free(a->tx);
	memset(a, 0, sizeof *a);
}
