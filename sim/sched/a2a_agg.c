/*
** sim/sched/a2a_agg.c: NCCL's AllToAll merged by destination leaf
** (a2a_agg.h).
**
** A send of round k to rank p arrives through p's (k mod nb(p))-th best
** NIC and leaves through the (k mod nb)-th of the sender's (or its PXN
** proxy's), nb a GPU's count of best NICs (the schedule's lanes, a2a.c).
** So sends merge by (the GPU they leave from, k mod Q, the leaf of the NIC
** they arrive by), Q the least common multiple of the best-NIC counts:
** every send of a merged op leaves and arrives by the NICs its first one
** uses.  The ops are built group by group (entries, then each rank's in
** round order: its group's sends, its hops, the merged ops it forwards).
** The representative of a merged op is taken from the ranks its key
** reaches (a pool: the ranks whose (q mod nb)-th NIC hangs off that leaf),
** outside the sender's group: the member still owed the most sends (at
** first what every flow brings it through that pool), the first after the
** source leaf's last pick among equals, so that one leaf's merged ops
** spread over the pool as its sends would (under D-mod-k a leaf's up port
** depends on the destination alone, so its uplinks then carry what they
** would).  An op larger than what that member is owed gives it its due and
** passes the rest to the next, so every receiver gets exactly its bytes
** unless the last groups find only their own members owed (the fallback
** gives the whole op to the member owed most).  Sends within a group keep
** their lanes: each waits for the one before it in its lane, after the
** latency of the merged sends between them; merged ops and hops wait for
** nothing and start after the latency chain of their last send's lane
** (a2a.c): their bytes cannot all have arrived sooner.
*/
#include "a2a_agg.h"

#include <stdlib.h>
#include <string.h>

#define NONE CCS_A2A_NONE

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

void ccs_a2a_agg_release(struct ccs_a2a_agg *g)
{
	ccs_free(g->off);
	ccs_free(g->op);
	memset(g, 0, sizeof *g);
}

/* A merged op, a hop to a proxy or a send of a group being built. */
struct ent {
	uint32_t owner;             /* the sender's place in its group */
	int32_t dst;                /* -1: a merged op's, chosen at the end */
	uint32_t k, kl, cnt, pool;  /* pool: a merged op's, else NONE */
	uint32_t hop;               /* a hop to the forwarding GPU */
};

struct agg_tmp {
	uint32_t Q, nl;
	uint32_t *key_lid;          /* device -> leaf id */
	uint32_t *pool_of;          /* rank x Q + q -> the pool its sends of round class q arrive in */
	uint32_t *poff, *pmem;      /* pool -> its ranks' positions, ascending (CSR, Q nl + 1) */
	int64_t *left;              /* pool member (index into pmem) -> sends it is still owed: at first
	                             * what every flow brings it through that pool */
	uint32_t *memidx;           /* rank x Q + q -> its index into pmem */
	uint32_t *cursor;           /* (source leaf, pool) -> the member after that leaf's last pick */
	uint32_t *gbeg, *gend;      /* group -> its positions [gbeg, gend) */
	uint32_t *pos;              /* rank -> its position */
	int pxn, L;                 /* PXN on; local indices per node */
	int32_t *at_local;          /* node x L + local index -> the rank there, -1 */
	uint32_t *mslot;            /* a group's (forwarding place x pools + pool) -> its merged entry, NONE */
	uint32_t *hslot;            /* a group's (place x group size + proxy place) -> its hop entry, NONE */
	struct ent *ent;            /* the group's entries */
	uint32_t *lane_last;        /* a rank's last send within its group in each lane, NONE */
	size_t nent, ent_cap;
};

static void tmp_free(struct agg_tmp *w)
{
	ccs_free(w->key_lid);
	ccs_free(w->pool_of);
	ccs_free(w->poff);
	ccs_free(w->pmem);
	ccs_free(w->left);
	ccs_free(w->memidx);
	ccs_free(w->cursor);
	ccs_free(w->gbeg);
	ccs_free(w->gend);
	ccs_free(w->pos);
	ccs_free(w->at_local);
	ccs_free(w->mslot);
	ccs_free(w->hslot);
	ccs_free(w->ent);
	ccs_free(w->lane_last);
}

/* The rank's sends of round class q arrive by the leaf of its (q mod nb)-th
 * best NIC; a rank with none (one group) in a pool of its own group. */
static uint32_t arrival_dev(const struct ccs_comm *c, int r, uint32_t q)
{
	int nb = ccs_comm_best_nics(c, r);
	if (nb < 1)
		return c->t->ndev + (uint32_t)c->rank_group[r];
	return ccs_topo_nic_leaf(c->t, ccs_comm_nic(c, r, (int)(q % (uint32_t)nb)));
}

/* PXN's table: the rank at each (node, local index), -1. */
static int local_init(struct agg_tmp *w, const struct ccs_comm *c)
{
	w->L = 1;
	for (int r = 0; r < c->n; r++)
		if (c->t->gpu[c->rank_gpu[r]].local + 1 > w->L)
			w->L = c->t->gpu[c->rank_gpu[r]].local + 1;
	size_t nloc = (size_t)(c->t->nnodes > 0 ? c->t->nnodes : 1) * (size_t)w->L;
	w->at_local = ccs_malloc(nloc * sizeof *w->at_local);
	if (!w->at_local)
		return CCS_ENOMEM;
	for (size_t x = 0; x < nloc; x++)
		w->at_local[x] = -1;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &c->t->gpu[c->rank_gpu[r]];
		if (gp->node >= 0 && gp->node < c->t->nnodes && gp->local >= 0)
			w->at_local[(size_t)gp->node * (size_t)w->L + (size_t)gp->local] = r;
	}
	return CCS_OK;
}

/* The pools' members (CSR, each rank's index in its pools) and the slot
 * tables a group's build uses. */
static int pools_init(struct agg_tmp *w, const struct ccs_comm *c, const int32_t *rank_at)
{
	uint32_t n = (uint32_t)c->n;
	size_t np = (size_t)w->Q * w->nl, gmax = 1;
	for (int g = 0; g < c->G; g++)
		if (w->gend[g] - w->gbeg[g] > gmax)
			gmax = w->gend[g] - w->gbeg[g];
	w->poff = ccs_calloc(np + 1, sizeof *w->poff);
	w->cursor = ccs_calloc(np * w->nl, sizeof *w->cursor);
	w->mslot = ccs_malloc(gmax * np * sizeof *w->mslot);
	w->hslot = ccs_malloc(gmax * gmax * sizeof *w->hslot);
	if (!w->poff || !w->cursor || !w->mslot || !w->hslot)
		return CCS_ENOMEM;
	for (size_t x = 0; x < gmax * np; x++)
		w->mslot[x] = NONE;
	for (size_t x = 0; x < gmax * gmax; x++)
		w->hslot[x] = NONE;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t q = 0; q < w->Q; q++) {
			int r = rank_at[i];
			uint32_t p = q * w->nl + w->key_lid[arrival_dev(c, r, q)];
			w->pool_of[(size_t)r * w->Q + q] = p;
			w->poff[p + 1]++;
		}
	for (size_t p = 0; p < np; p++) {
		w->poff[p + 1] += w->poff[p];
		w->cursor[p] = w->poff[p];   /* a fill cursor first */
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t q = 0; q < w->Q; q++) {
			size_t rq = (size_t)rank_at[i] * w->Q + q;
			w->memidx[rq] = w->cursor[w->pool_of[rq]];
			w->pmem[w->cursor[w->pool_of[rq]]++] = i;
		}
	for (size_t p = 0; p < np * w->nl; p++)
		w->cursor[p] = 0;
	return CCS_OK;
}

/* Q, the pools and their members in position order, each group's positions. */
static int tmp_init(struct agg_tmp *w, const struct ccs_comm *c, const int32_t *rank_at)
{
	uint32_t nkey = c->t->ndev + (uint32_t)c->G, n = (uint32_t)c->n;
	w->Q = 1;
	for (int r = 0; r < c->n; r++) {
		uint32_t nb = (uint32_t)(ccs_comm_best_nics(c, r) > 0 ? ccs_comm_best_nics(c, r) : 1);
		if (w->Q * nb / gcd(w->Q, nb) <= 64)
			w->Q = w->Q * nb / gcd(w->Q, nb);
	}
	size_t nm = (size_t)n * w->Q;
	w->key_lid = ccs_malloc(nkey * sizeof *w->key_lid);
	w->pool_of = ccs_malloc(nm * sizeof *w->pool_of);
	w->pmem = ccs_malloc(nm * sizeof *w->pmem);
	w->left = ccs_calloc(nm, sizeof *w->left);
	w->memidx = ccs_malloc(nm * sizeof *w->memidx);
	w->gbeg = ccs_calloc((size_t)c->G, sizeof *w->gbeg);
	w->gend = ccs_calloc((size_t)c->G, sizeof *w->gend);
	w->pos = ccs_malloc(n * sizeof *w->pos);
	if (!w->key_lid || !w->pool_of || !w->pmem || !w->left || !w->memidx || !w->gbeg || !w->gend || !w->pos ||
	    local_init(w, c))
		return CCS_ENOMEM;
	for (uint32_t x = 0; x < nkey; x++)
		w->key_lid[x] = NONE;
	for (uint32_t i = 0; i < n; i++) {
		int r = rank_at[i], g = c->rank_group[r];
		for (uint32_t q = 0; q < w->Q; q++) {
			uint32_t key = arrival_dev(c, r, q);
			if (w->key_lid[key] == NONE)
				w->key_lid[key] = w->nl++;
		}
		if (i == 0 || c->rank_group[rank_at[i - 1]] != g)
			w->gbeg[g] = i;
		w->gend[g] = i + 1;
		w->pos[r] = i;
	}
	return pools_init(w, c, rank_at);
}

/* A receiver for (some of) cnt merged sends into pool p from a rank of
 * group grp leaving through source leaf `from`: the member outside grp
 * that is owed the most, the first from that leaf's cursor among equals
 * (so that one leaf's merged sends spread over the pool as its sends
 * would, and over its uplinks under D-mod-k); *take gets how many it takes:
 * all, or what it is owed where that is less (the rest goes to the next). */
static int32_t representative(struct agg_tmp *w, const int32_t *rank_at, uint32_t p, int grp, uint32_t cnt,
                              uint32_t from, uint32_t *take)
{
	uint32_t b = w->poff[p], nm = w->poff[p + 1] - b, best = NONE;
	uint32_t *cur = &w->cursor[(size_t)from * w->Q * w->nl + p];
	for (uint32_t x = 0; x < nm; x++) {
		uint32_t y = (*cur + x) % nm, pos = w->pmem[b + y];
		if (pos >= w->gbeg[grp] && pos < w->gend[grp])
			continue;
		if (best == NONE || w->left[b + y] > w->left[b + best])
			best = y;
	}
	int64_t owed = w->left[b + best];
	*take = owed > 0 && owed < (int64_t)cnt ? (uint32_t)owed : cnt;
	w->left[b + best] -= *take;
	*cur = (best + 1) % nm;
	return rank_at[w->pmem[b + best]];
}

static int ent_cmp(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	if ((a->pool == NONE) != (b->pool == NONE))
		return (a->pool == NONE) - (b->pool == NONE);
	return (int)a->hop - (int)b->hop;
}

/* The rank that forwards r's send to p under PXN: the GPU of r's node on
 * p's rail (its local index), where that is another GPU of r's group with
 * a NIC (the fabric's rule, fabric.c); else r. */
static int proxy_of(const struct agg_tmp *w, const struct ccs_comm *c, int r, int p)
{
	const struct ccs_topo *t = c->t;
	const struct ccs_gpu *ga = &t->gpu[c->rank_gpu[r]], *gb = &t->gpu[c->rank_gpu[p]];
	if (!w->pxn || ga->node < 0 || ga->node >= t->nnodes || gb->local < 0 || gb->local >= w->L)
		return r;
	int x = w->at_local[(size_t)ga->node * (size_t)w->L + (size_t)gb->local];
	if (x < 0 || x == r || c->rank_group[x] != c->rank_group[r] || t->gpu[c->rank_gpu[x]].domain != ga->domain ||
	    !t->gpu[c->rank_gpu[x]].nic_count)
		return r;
	return x;
}

/* Add a send of round k to the group's entries: into the merged op or hop
 * whose slot is *slot, or a new one. */
static int ent_add(struct agg_tmp *w, uint32_t *slot, uint32_t owner, int32_t dst, uint32_t k, uint32_t pool,
                   uint32_t hop)
{
	if (slot && *slot != NONE) {
		struct ent *e = &w->ent[*slot];
		e->cnt++;
		e->k = k < e->k ? k : e->k;
		e->kl = k > e->kl ? k : e->kl;
		return CCS_OK;
	}
	if (ccs_grow(&w->ent, &w->ent_cap, w->nent + 1, sizeof *w->ent))
		return CCS_ENOMEM;
	if (slot)
		*slot = (uint32_t)w->nent;
	w->ent[w->nent++] = (struct ent){ owner, dst, k, k, 1, pool, hop };
	return CCS_OK;
}

/* What every flow brings each pool member: one send from each rank of
 * another group, through the pool of that send's round class. */
static void owed(struct agg_tmp *w, const struct ccs_comm *c, const int32_t *rank_at, int m, ccs_a2a_peer_fn *peer,
                 const void *ctx)
{
	for (int i = 0; i < c->n; i++) {
		int r = rank_at[i];
		for (int k = 0; k < m; k++) {
			int p = peer(ctx, r, k);
			if (c->rank_group[p] != c->rank_group[r])
				w->left[w->memidx[(size_t)p * w->Q + (uint32_t)k % w->Q]]++;
		}
	}
}

/* Group grp's ranks (positions [b, e)): their sends in NCCL's rounds
 * as entries (a send in its group as it is; one to another group merged by
 * (forwarding rank, pool), with a hop from the sender to its proxy under
 * PXN), then as ops position by position in round order. */
static int group_ops(struct agg_tmp *w, const struct ccs_comm *c, const int32_t *rank_at, int m, int lanes,
                     ccs_a2a_peer_fn *peer, const void *ctx, int grp, struct ccs_a2a_agg *g, size_t *cap)
{
	uint32_t b = w->gbeg[grp], gs = w->gend[grp] - b;
	size_t np = (size_t)w->Q * w->nl;
	w->nent = 0;
	for (uint32_t i = b; i < b + gs; i++) {
		int r = rank_at[i];
		for (int k = 0; k < m; k++) {
			int p = peer(ctx, r, k);
			if (c->rank_group[p] == grp) {
				CCS_TRY(ent_add(w, NULL, i - b, p, (uint32_t)k, NONE, 0));
				continue;
			}
			int x = proxy_of(w, c, r, p);
			uint32_t xo = w->pos[x] - b, pool = w->pool_of[(size_t)p * w->Q + (uint32_t)k % w->Q];
			CCS_TRY(ent_add(w, &w->mslot[xo * np + pool], xo, -1, (uint32_t)k, pool, 0));
			if (x != r)
				CCS_TRY(ent_add(w, &w->hslot[(i - b) * gs + xo], i - b, x, (uint32_t)k, NONE, 1));
		}
	}
	for (size_t x = 0; x < w->nent; x++) {
		const struct ent *e = &w->ent[x];
		if (e->pool != NONE)
			w->mslot[e->owner * np + e->pool] = NONE;
		else if (e->hop)
			w->hslot[e->owner * gs + (w->pos[e->dst] - b)] = NONE;
	}
	qsort(w->ent, w->nent, sizeof *w->ent, ent_cmp);
	size_t x = 0;
	for (uint32_t o = 0; o < gs; o++) {
		uint64_t o0 = g->nops;
		g->off[b + o] = o0;
		for (int l = 0; l < lanes; l++)
			w->lane_last[l] = NONE;
		for (; x < w->nent && w->ent[x].owner == o; x++) {
			const struct ent *e = &w->ent[x];
			/* the leaf it leaves by: its sender's NIC of that round class */
			uint32_t from = e->pool == NONE ? 0 : w->pool_of[(size_t)rank_at[b + o] * w->Q + e->pool / w->nl] % w->nl;
			for (uint32_t rest = e->cnt; rest > 0;) {
				uint32_t take = rest;
				if (ccs_grow(&g->op, cap, g->nops + 1, sizeof *g->op))
					return CCS_ENOMEM;
				struct ccs_a2a_op *y = &g->op[g->nops++];
				y->src = rank_at[b + o];
				y->dst = e->pool == NONE ? e->dst : representative(w, rank_at, e->pool, grp, rest, from, &take);
				rest -= take;
				y->k = e->k;
				/* a hop runs beside the network part it feeds: no lane chain of its own */
				y->klast = e->pool == NONE ? e->k : e->kl;
				y->cnt = take;
				y->kprev = y->next = NONE;
				y->send = e->pool == NONE && !e->hop;
				if (!y->send)
					continue;
				/* a send within the group keeps its lane: it waits for the
				 * one before it there */
				uint32_t *last = &w->lane_last[e->k % (uint32_t)lanes];
				if (*last != NONE) {
					y->kprev = g->op[o0 + *last].k;
					g->op[o0 + *last].next = (uint32_t)(y - g->op - o0);
				}
				*last = (uint32_t)(y - g->op - o0);
			}
		}
	}
	return CCS_OK;
}

int ccs_a2a_agg_build(const struct ccs_comm *c, const int32_t *rank_at, int m, int lanes, int pxn,
                      ccs_a2a_peer_fn *peer, const void *ctx, struct ccs_a2a_agg *g)
{
	struct agg_tmp w = { 0 };
	size_t cap = 0;
	memset(g, 0, sizeof *g);
	w.pxn = pxn;
	int rc = CCS_ENOMEM;
	g->off = ccs_malloc(((size_t)c->n + 1) * sizeof *g->off);
	w.lane_last = ccs_malloc(((size_t)lanes + 1) * sizeof *w.lane_last);
	if (!g->off || !w.lane_last || (rc = tmp_init(&w, c, rank_at)))
		goto fail;
	owed(&w, c, rank_at, m, peer, ctx);
	for (int grp = 0; grp < c->G; grp++)
		if ((rc = group_ops(&w, c, rank_at, m, lanes, peer, ctx, grp, g, &cap)))
			goto fail;
	g->off[c->n] = g->nops;
	tmp_free(&w);
	return CCS_OK;
fail:
	tmp_free(&w);
	ccs_a2a_agg_release(g);
	return rc;
}
