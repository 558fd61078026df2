/*
** sim/sched/a2a_agg.c: NCCL's AllToAll merged by destination leaf
** (a2a_agg.h).
**
** A send of round k to rank p arrives through p's (k mod nb(p))-th best
** NIC and leaves through the (k mod nb)-th of the sender's (or its PXN
** proxy's), nb a GPU's count of best NICs (the schedule's lanes, a2a.c).
** So sends merge by (k mod Q, the leaf of the NIC they arrive by), Q the
** least common multiple of the best-NIC counts: every send of a merged op
** leaves and arrives by the NICs its first one uses.  The representative
** of a merged op is taken from the ranks its key reaches (a pool: the
** ranks whose (q mod nb)-th NIC hangs off that leaf), outside the sender's
** group: the one that has received the fewest bytes so far, the first
** after the pool's last pick among equals, so the senders of one leaf,
** which come one after another in group order, spread over the pool and
** every pool member ends with the bytes it would get from every flow,
** give or take one merged op.  Under D-mod-k a leaf's up port depends on
** the destination alone, and the destinations a leaf's senders pick are
** spread as their sends' were, so each uplink carries what it would.
** A merged op's transfer starts after the latency chain of the lane that
** holds its last send (a2a.c): its bytes cannot all have arrived sooner.
*/
#include "a2a_agg.h"

#include <string.h>

#define NONE UINT32_MAX

/* The lowest-numbered network switch NIC nic is linked to, or the NIC
 * itself where it joins none. */
static uint32_t leaf_dev(const struct ccs_topo *t, uint32_t nic)
{
	uint32_t best = NONE;
	for (uint32_t x = t->adj_off[nic]; x < t->adj_off[nic + 1]; x++) {
		uint32_t d = t->adj_nbr[x];
		if (t->dev[d].kind == CCS_DEV_NETSW && d < best)
			best = d;
	}
	return best == NONE ? nic : best;
}

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
	ccs_free(g->dst);
	ccs_free(g->k);
	ccs_free(g->klast);
	ccs_free(g->cnt);
	memset(g, 0, sizeof *g);
}

struct agg_tmp {
	uint32_t Q, nl;
	uint32_t *key_lid;          /* device -> leaf id */
	uint32_t *pool_of;          /* rank x Q + q -> the pool its sends of round class q arrive in */
	uint32_t *poff, *pmem;      /* pool -> its ranks' positions, ascending (CSR, Q nl + 1) */
	double *got;                /* pool member (index into pmem) -> sends received so far */
	uint32_t *cursor;           /* pool -> the member after its last pick */
	uint32_t *gbeg, *gend;      /* group -> its positions [gbeg, gend) */
	uint32_t *slot;             /* pool -> this rank's merged op, NONE */
	uint32_t *pool_of_op;       /* this rank's ops: the pool of a merged one, NONE */
};

static void tmp_free(struct agg_tmp *w)
{
	ccs_free(w->key_lid);
	ccs_free(w->pool_of);
	ccs_free(w->poff);
	ccs_free(w->pmem);
	ccs_free(w->got);
	ccs_free(w->cursor);
	ccs_free(w->gbeg);
	ccs_free(w->gend);
	ccs_free(w->slot);
	ccs_free(w->pool_of_op);
}

/* The rank's sends of round class q arrive by the leaf of its (q mod nb)-th
 * best NIC; a rank with none (one group) in a pool of its own group. */
static uint32_t arrival_dev(const struct ccs_comm *c, int r, uint32_t q)
{
	int nb = ccs_comm_best_nics(c, r);
	if (nb < 1)
		return c->t->ndev + (uint32_t)c->rank_group[r];
	return leaf_dev(c->t, ccs_comm_nic(c, r, (int)(q % (uint32_t)nb)));
}

/* Q, the pools and their members in position order, each group's positions. */
static int tmp_init(struct agg_tmp *w, const struct ccs_comm *c, const int32_t *rank_at, int m)
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
	w->got = ccs_calloc(nm, sizeof *w->got);
	w->gbeg = ccs_calloc((size_t)c->G, sizeof *w->gbeg);
	w->gend = ccs_calloc((size_t)c->G, sizeof *w->gend);
	w->pool_of_op = ccs_malloc(((size_t)m + 1) * sizeof *w->pool_of_op);
	if (!w->key_lid || !w->pool_of || !w->pmem || !w->got || !w->gbeg || !w->gend || !w->pool_of_op)
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
	}
	size_t np = (size_t)w->Q * w->nl;
	w->poff = ccs_calloc(np + 1, sizeof *w->poff);
	w->cursor = ccs_calloc(np, sizeof *w->cursor);
	w->slot = ccs_malloc(np * sizeof *w->slot);
	if (!w->poff || !w->cursor || !w->slot)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t q = 0; q < w->Q; q++) {
			int r = rank_at[i];
			uint32_t p = q * w->nl + w->key_lid[arrival_dev(c, r, q)];
			w->pool_of[(size_t)r * w->Q + q] = p;
			w->poff[p + 1]++;
		}
	for (size_t p = 0; p < np; p++) {
		w->poff[p + 1] += w->poff[p];
		w->slot[p] = w->poff[p];   /* a fill cursor first */
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t q = 0; q < w->Q; q++)
			w->pmem[w->slot[w->pool_of[(size_t)rank_at[i] * w->Q + q]]++] = i;
	for (size_t p = 0; p < np; p++)
		w->slot[p] = NONE;
	return CCS_OK;
}

/* Grow the op arrays to hold at least want ops. */
static int grow(struct ccs_a2a_agg *g, uint64_t *cap, uint64_t want)
{
	if (want <= *cap)
		return CCS_OK;
	uint64_t nc = *cap ? *cap * 2 : 1024;
	while (nc < want)
		nc *= 2;
	int32_t *d = ccs_realloc(g->dst, nc * sizeof *d);
	if (d)
		g->dst = d;
	uint32_t *k = ccs_realloc(g->k, nc * sizeof *k);
	if (k)
		g->k = k;
	uint32_t *q = ccs_realloc(g->cnt, nc * sizeof *q);
	if (q)
		g->cnt = q;
	uint32_t *kl = ccs_realloc(g->klast, nc * sizeof *kl);
	if (kl)
		g->klast = kl;
	if (!d || !k || !q || !kl)
		return CCS_ENOMEM;
	*cap = nc;
	return CCS_OK;
}

/* The representative of cnt merged sends into pool p from a rank of group
 * grp: the member outside grp with the fewest sends received, the first
 * from the pool's cursor among equals; it is charged cnt. */
static int32_t representative(struct agg_tmp *w, const int32_t *rank_at, uint32_t p, int grp, uint32_t cnt)
{
	uint32_t b = w->poff[p], nm = w->poff[p + 1] - b, best = NONE;
	for (uint32_t x = 0; x < nm; x++) {
		uint32_t y = (w->cursor[p] + x) % nm, pos = w->pmem[b + y];
		if (pos >= w->gbeg[grp] && pos < w->gend[grp])
			continue;
		if (best == NONE || w->got[b + y] < w->got[b + best])
			best = y;
	}
	w->got[b + best] += cnt;
	w->cursor[p] = (best + 1) % nm;
	return rank_at[w->pmem[b + best]];
}

int ccs_a2a_agg_build(const struct ccs_comm *c, const int32_t *rank_at, int m, ccs_a2a_peer_fn *peer,
                      const void *ctx, struct ccs_a2a_agg *g)
{
	struct agg_tmp w = { 0 };
	uint64_t cap = 0;
	memset(g, 0, sizeof *g);
	int rc = CCS_ENOMEM;
	g->off = ccs_malloc(((size_t)c->n + 1) * sizeof *g->off);
	if (!g->off || (rc = tmp_init(&w, c, rank_at, m)))
		goto fail;
	for (uint32_t i = 0; i < (uint32_t)c->n; i++) {
		int r = rank_at[i], grp = c->rank_group[r];
		uint64_t o0 = g->nops;
		g->off[i] = o0;
		if ((rc = grow(g, &cap, o0 + (uint64_t)m)))
			goto fail;
		for (int k = 0; k < m; k++) {
			int p = peer(ctx, r, k);
			uint32_t pool = NONE;
			if (c->rank_group[p] != grp) {
				pool = w.pool_of[(size_t)p * w.Q + (uint32_t)k % w.Q];
				if (w.slot[pool] != NONE) {
					g->cnt[o0 + w.slot[pool]]++;
					g->klast[o0 + w.slot[pool]] = (uint32_t)k;
					continue;
				}
				w.slot[pool] = (uint32_t)(g->nops - o0);
			}
			w.pool_of_op[g->nops - o0] = pool;
			g->dst[g->nops] = p;
			g->k[g->nops] = g->klast[g->nops] = (uint32_t)k;
			g->cnt[g->nops] = 1;
			g->nops++;
		}
		for (uint64_t x = o0; x < g->nops; x++) {
			uint32_t pool = w.pool_of_op[x - o0];
			if (pool == NONE)
				continue;
			g->dst[x] = representative(&w, rank_at, pool, grp, g->cnt[x]);
			w.slot[pool] = NONE;
		}
	}
	g->off[c->n] = g->nops;
	tmp_free(&w);
	return CCS_OK;
fail:
	tmp_free(&w);
	ccs_a2a_agg_release(g);
	return rc;
}
