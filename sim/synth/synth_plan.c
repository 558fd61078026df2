/*
** sim/synth/synth_plan.c: the packing lowered into thread blocks and steps
** (synth.h).  Items are (chunk slot s, phase, root): a root's shard of K
** chunks has its trees' chunks in consecutive slots, and every item moves
** one chunk down its tree (out-trees: each rank receives from its parent,
** then sends to each child; in-trees: each rank receives and reduces
** from each child in turn, then sends to its parent).  Items go in the
** order (s + phase, phase, root), so that AllReduce's second phase of a
** chunk follows the first phase of the next; each rank appends a step
** to the block for that peer, so that a pair's sends and receives are in
** the same order at both ends and no block waits for one that waits for
** it.
*/
#include "synth.h"

#include "../../model/coll.h"

#include <stdlib.h>
#include <string.h>

struct pb {
	struct ccs_synth_plan *p;
	int n, K, C, CH;            /* CH: the block maps' channels per pair */
	int sets;                   /* inside groups, pair (a, b) takes channels C ((a + b) mod sets) + c */
	const struct ccs_synth *S;
	int slot;                   /* the item's chunk slot */
	uint32_t *nic_out, *nic_in; /* per rank and NIC (r 8 + i): chunks through it so far */
	int32_t *ch_of;             /* per rank: the channel of its transfer with its parent in the item */
	int32_t *stb, *rtb;         /* rank g's block sending to (receiving from) peer v on channel ch:
	                               (g n + v) C + ch, -1 none */
	uint32_t ntb;
	size_t tbcap, rankcap;
	int32_t *tb_rank;           /* per block its rank, while building */
	int32_t *have_st;           /* scratch per rank */
	int32_t *depth;             /* per rank: its depth in the tree being lowered */
	int norder;                 /* ranks in order[] (the tree's) */
	double *est;                /* per rank: when its chunk of the item is expected ready there [s] */
	double base;                /* the item's: its slot's start (slot x T) and phase's offset [s] */
	double chunk;               /* bytes a chunk */
	double delta;               /* the longest hop [s] */
	int32_t *kids, *kid0, *order;
};

/* The channel of the next transfer from a to b.  Inside a group, the
 * item's slot's (an item keeps its channel down the tree).  Across
 * groups a channel c leaves through NIC c mod k, so the transfer takes
 * the NIC i that a's sends and b's receives have used least (the program
 * spread each pair evenly over them), on channel i (the blocks of another
 * peer are other blocks, whatever their channel): a pair's chunks over
 * one NIC go one after another in one block, so that they arrive one by
 * one and are forwarded as they come, not all at the end as chunks that
 * share the NIC at once would; or (spread) on channel i + k (slot mod
 * C / k), several at once, so that one's latency overlaps another's
 * transfer. */
static int edge_ch(struct pb *B, int a, int b)
{
	const struct ccs_synth *S = B->S;
	if (S->group[a] == S->group[b] || S->nics[a] < 1 || S->nics[b] < 1)
		return B->slot % B->C;
	int k = S->nics[a] > S->nics[b] ? S->nics[a] : S->nics[b];
	k = k > 8 ? 8 : k;
	int best = 0;
	uint32_t bl = UINT32_MAX;
	for (int i = 0; i < k; i++) {
		uint32_t o = B->nic_out[(size_t)a * 8 + (size_t)(i % S->nics[a])], n = B->nic_in[(size_t)b * 8 + (size_t)(i % S->nics[b])];
		uint32_t l = (o > n ? o : n) * 2 + o + n;
		if (l < bl) {
			bl = l;
			best = i;
		}
	}
	B->nic_out[(size_t)a * 8 + (size_t)(best % S->nics[a])]++;
	B->nic_in[(size_t)b * 8 + (size_t)(best % S->nics[b])]++;
	int m = B->S->spread && B->C / k > 1 ? B->C / k : 1;
	return best + k * (B->slot % m);
}

/* Rank g's block for peer v (send or receive) on channel ch, made on
 * first use. */
static int tb_for(struct pb *B, int g, int v, int send, int ch, int32_t *tb)
{
	int32_t *slot = (send ? B->stb : B->rtb) + ((size_t)g * (size_t)B->n + (size_t)v) * (size_t)B->CH + (size_t)ch;
	if (*slot >= 0) {
		*tb = *slot;
		return CCS_OK;
	}
	if (ccs_grow(&B->p->tb, &B->tbcap, B->ntb + 1, sizeof *B->p->tb) ||
	    ccs_grow(&B->tb_rank, &B->rankcap, B->ntb + 1, sizeof *B->tb_rank))
		return CCS_ENOMEM;
	struct ccs_synth_tb *t = &B->p->tb[B->ntb];
	memset(t, 0, sizeof *t);
	t->send = send ? v : -1;
	t->recv = send ? -1 : v;
	/* MSCCL's runtime holds at most 32 blocks of a rank in one direction
	 * on one channel (synth.h): inside a group the pairs take their C
	 * channels from one of `sets` sets, so that a rank's peers share each
	 * channel about evenly (the label changes no time: a block is one
	 * peer's, whatever its channel) */
	int label = ch;
	if (B->S->group[g] == B->S->group[v])
		label = ch + B->C * ((g + v) % B->sets);
	t->chan = label;
	if (label + 1 > B->p->C)
		B->p->C = label + 1;   /* MSCCL's nchannels: the most any block uses */
	B->tb_rank[B->ntb] = g;
	*slot = *tb = (int32_t)B->ntb++;
	return CCS_OK;
}

/* Append a step to block tb; *at its index. */
static int add_step(struct pb *B, int32_t tb, const struct ccs_synth_step *st, int32_t *at)
{
	struct ccs_synth_tb *t = &B->p->tb[tb];
	if (ccs_grow(&t->st, &t->cap, (size_t)t->n + 1, sizeof *t->st))
		return CCS_ENOMEM;
	t->st[t->n] = *st;
	*at = (int32_t)t->n++;
	return CCS_OK;
}

/* Children lists of a tree and its ranks from the root down. */
static void tree_order(struct pb *B, const struct ccs_synth_tree *t)
{
	int n = B->n;
	for (int v = 0; v <= n; v++)
		B->kid0[v] = 0;
	for (int v = 0; v < n; v++)
		if (t->parent[v] >= 0)
			B->kid0[t->parent[v] + 1]++;
	for (int v = 0; v < n; v++)
		B->kid0[v + 1] += B->kid0[v];
	int32_t *fill = B->have_st;   /* scratch: reset by the caller */
	for (int v = 0; v < n; v++)
		fill[v] = B->kid0[v];
	for (int v = 0; v < n; v++)
		if (t->parent[v] >= 0)
			B->kids[fill[t->parent[v]]++] = v;
	int h = 0, q = 0;
	B->order[q++] = t->root;
	B->depth[t->root] = 0;
	while (h < q) {
		int u = B->order[h++];
		for (int i = B->kid0[u]; i < B->kid0[u + 1]; i++) {
			B->depth[B->kids[i]] = B->depth[u] + 1;
			B->order[q++] = B->kids[i];
		}
	}
	B->norder = q;   /* a path (AllToAll) has fewer than n */
}

/* A transfer's place in its blocks (both ends): when the sender is
 * expected to hold the chunk, that is the item's base (its slot's share of
 * the bound, and AllReduce's second phase after every first-phase path)
 * plus the hops from where the chunk starts, each a latency and the chunk
 * over the pair's narrowest resource (out-trees down from the root; in-
 * trees by depth, a longest hop a level).  Each hop adds to it, so a
 * block never waits on a chunk ordered before one that arrives earlier
 * along the same path, and no block waits on one that waits on it. */
static double hop(const struct pb *B, int a, int b)
{
	size_t i = (size_t)a * (size_t)B->n + (size_t)b;
	return B->S->hop_lat[i] + B->chunk * B->S->hop_sB[i] + 1e-12;
}

static void estimate(struct pb *B, const struct ccs_synth_tree *t)
{
	if (t->phase) {
		for (int i = 0; i < B->norder; i++) {
			int u = B->order[i];
			B->est[u] = u == t->root ? 0 : B->est[t->parent[u]] + hop(B, t->parent[u], u);
		}
		return;
	}
	/* in-trees: by depth, one longest hop a level, so that a child's
	 * transfers are ordered at its parent as at itself (an MSCCL++
	 * plan's signals pair with its waits in order) */
	for (int i = 0; i < B->norder; i++)
		B->est[B->order[i]] = (B->n - B->depth[B->order[i]]) * B->delta;
}

/* Where rank u keeps chunk s of tree t: a root's own in its input (an
 * AllToAll path's at its destination's place), a relay's in scratch,
 * everything else in the output at the root's place. */
static void where(const struct pb *B, const struct ccs_synth_tree *t, int s, int u, int ar, struct ccs_synth_step *st)
{
	int K = B->K;
	if (t->dst >= 0) {
		st->buf = u == t->root ? 'i' : u == t->dst ? 'o' : 's';
		st->off = u == t->root ? t->dst * K + s : u == t->dst ? t->root * K + s : (t->root * B->n + t->dst) * K + s;
	} else {
		st->buf = u == t->root && !ar ? 'i' : 'o';
		st->off = u == t->root && !ar ? s : t->root * K + s;
	}
}

/* Steps in one block with the same expected time go by slot, root and
 * destination. */
static uint64_t tie(const struct pb *B, const struct ccs_synth_tree *t, int s)
{
	return ((uint64_t)s * (uint64_t)B->n + (uint64_t)t->root) * ((uint64_t)B->n + 1) + (uint64_t)(t->dst + 1);
}

/* One chunk (slot s) of tree t: out-tree (or an AllToAll path), received
 * then forwarded (*root_dep: the step after which the root holds it, -1
 * tb: its input). */
static int item_out(struct pb *B, const struct ccs_synth_tree *t, int s, int ar, const int32_t *root_dep)
{
	int r = t->root;
	for (int i = 0; i < B->norder; i++) {
		int u = B->order[i];
		int32_t dtb = -1, dst = -1;
		if (u != r) {
			int32_t tb, at;
			CCS_TRY(tb_for(B, u, t->parent[u], 0, B->ch_of[u], &tb));
			struct ccs_synth_step st = { CCS_SYNTH_RECV, 'o', 0, 1, -1, -1, B->base + B->est[t->parent[u]], tie(B, t, s) };
			where(B, t, s, u, ar, &st);
			CCS_TRY(add_step(B, tb, &st, &at));
			dtb = tb;
			dst = at;
		} else if (root_dep) {
			dtb = root_dep[0];
			dst = root_dep[1];
		}
		for (int k = B->kid0[u]; k < B->kid0[u + 1]; k++) {
			int32_t tb, at;
			int v = B->kids[k];
			B->ch_of[v] = edge_ch(B, u, v);
			CCS_TRY(tb_for(B, u, v, 1, B->ch_of[v], &tb));
			struct ccs_synth_step st = { CCS_SYNTH_SEND, 'o', 0, 1, dtb, dst, B->base + B->est[u], tie(B, t, s) };
			where(B, t, s, u, ar, &st);
			CCS_TRY(add_step(B, tb, &st, &at));
		}
	}
	return CCS_OK;
}

/* One chunk of in-tree t: each rank reduces what its children send, in
 * turn, then sends to its parent; root_dep gets the root's last step. */
static int item_in(struct pb *B, const struct ccs_synth_tree *t, int s, int32_t *root_dep)
{
	int r = t->root;
	int32_t off = r * B->K + s;
	for (int i = B->norder - 1; i >= 0; i--) {
		int u = B->order[i];
		int32_t dtb = -1, dst = -1;
		for (int k = B->kid0[u]; k < B->kid0[u + 1]; k++) {
			int32_t tb, at;
			CCS_TRY(tb_for(B, u, B->kids[k], 0, B->ch_of[B->kids[k]], &tb));
			int last = k + 1 == B->kid0[u + 1] && u == r;
			struct ccs_synth_step st = { CCS_SYNTH_RRC, last ? 'o' : 'i', last ? s : off, 1, dtb, dst,
			                             B->base + B->est[B->kids[k]], tie(B, t, s) };
			if (last && B->p->coll == CCS_COLL_ALLREDUCE)
				st.off = off;
			CCS_TRY(add_step(B, tb, &st, &at));
			dtb = tb;
			dst = at;
		}
		if (u == r) {
			root_dep[0] = dtb;
			root_dep[1] = dst;
			continue;
		}
		int32_t tb, at;
		B->ch_of[u] = edge_ch(B, u, t->parent[u]);
		CCS_TRY(tb_for(B, u, t->parent[u], 1, B->ch_of[u], &tb));
		struct ccs_synth_step st = { CCS_SYNTH_SEND, 'i', off, 1, dtb, dst, B->base + B->est[u], tie(B, t, s) };
		CCS_TRY(add_step(B, tb, &st, &at));
	}
	return CCS_OK;
}

/* Items in order: per slot s, the first phase's trees then the second's
 * of slot s - 1, by root. */
static int items(struct pb *B, const struct ccs_synth *S)
{
	int n = B->n, K = B->K, ar = S->coll == CCS_COLL_ALLREDUCE;
	int nph = ar ? 2 : 1;
	/* slot of each tree's first chunk: trees of a (root, phase) in turn */
	int *first = ccs_malloc(((size_t)S->ntree + 1) * sizeof *first);
	int *next = ccs_calloc((size_t)(2 * n) * (size_t)(n + 1), sizeof *next);
	int32_t *dep = ccs_malloc(((size_t)n * (size_t)K * 2 + 2) * sizeof *dep);
	if (!first || !next || !dep) {
		ccs_free(first);
		ccs_free(next);
		ccs_free(dep);
		return CCS_ENOMEM;
	}
	for (int j = 0; j < S->ntree; j++) {
		int g = ((ar ? S->tree[j].phase : 0) * n + S->tree[j].root) * (n + 1) + S->tree[j].dst + 1;
		first[j] = next[g];
		next[g] += S->tree[j].chunks;
	}
	/* a slot's share of the bound; the second phase after the longest path */
	double slot_s = S->round_s / K, after = 0;
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		after = S->hop_lat[i] + B->chunk * S->hop_sB[i] > after ? S->hop_lat[i] + B->chunk * S->hop_sB[i] : after;
	B->delta = after;
	after *= n;
	int rc = CCS_OK;
	for (int step = 0; step < K + nph - 1 && !rc; step++)
		for (int ph = 0; ph < nph && !rc; ph++) {
			int s = step - ph;
			if (s < 0 || s >= K)
				continue;
			for (int j = 0; j < S->ntree && !rc; j++) {
				const struct ccs_synth_tree *t = &S->tree[j];
				if ((ar && t->phase != ph) || s < first[j] || s >= first[j] + t->chunks)
					continue;
				for (int v = 0; v < n; v++)
					B->have_st[v] = 0;
				tree_order(B, t);
				B->slot = s;
				B->base = s * slot_s + ph * after;
				estimate(B, t);
				int32_t *rd = dep + ((size_t)t->root * (size_t)K + (size_t)s) * 2;
				if (t->phase == 0)
					rc = item_in(B, t, s, rd);
				else
					rc = item_out(B, t, s, ar, ar ? rd : NULL);
			}
		}
	ccs_free(first);
	ccs_free(next);
	ccs_free(dep);
	return rc;
}

/* Each block's steps in key order, the steps' references renumbered. */
static const struct ccs_synth_step *sort_st;

static int by_key(const void *a, const void *b)
{
	const struct ccs_synth_step *x = &sort_st[*(const uint32_t *)a], *y = &sort_st[*(const uint32_t *)b];
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

static int sort_blocks(struct pb *B)
{
	struct ccs_synth_plan *p = B->p;
	uint32_t **pos = ccs_calloc((size_t)B->ntb + 1, sizeof *pos);
	int rc = pos ? CCS_OK : CCS_ENOMEM;
	for (uint32_t i = 0; i < B->ntb && !rc; i++) {
		struct ccs_synth_tb *t = &p->tb[i];
		uint32_t *idx = ccs_malloc(((size_t)t->n + 1) * sizeof *idx);
		struct ccs_synth_step *st = ccs_malloc(((size_t)t->n + 1) * sizeof *st);
		pos[i] = ccs_malloc(((size_t)t->n + 1) * sizeof *pos[i]);
		if (!idx || !st || !pos[i]) {
			ccs_free(idx);
			ccs_free(st);
			rc = CCS_ENOMEM;
			break;
		}
		for (uint32_t k = 0; k < t->n; k++)
			idx[k] = k;
		sort_st = t->st;
		qsort(idx, t->n, sizeof *idx, by_key);
		for (uint32_t k = 0; k < t->n; k++) {
			st[k] = t->st[idx[k]];
			pos[i][idx[k]] = k;
		}
		ccs_free(t->st);
		t->st = st;
		t->cap = t->n;
		ccs_free(idx);
	}
	for (uint32_t i = 0; i < B->ntb && !rc; i++)
		for (uint32_t k = 0; k < p->tb[i].n; k++) {
			struct ccs_synth_step *st = &p->tb[i].st[k];
			if (st->dep_tb >= 0)
				st->dep_step = (int32_t)pos[st->dep_tb][st->dep_step];
		}
	for (uint32_t i = 0; pos && i < B->ntb; i++)
		ccs_free(pos[i]);
	ccs_free(pos);
	return rc;
}

/* Blocks grouped by rank (as XML and JSON list them), steps' block
 * references renumbered: a rank's blocks that some step waits on first
 * (MSCCL keeps the block a step waits on in an int8_t: synth.h), then the
 * others, each in the order they were made. */
static int group_by_rank(struct pb *B)
{
	struct ccs_synth_plan *p = B->p;
	uint32_t *newid = ccs_malloc(((size_t)B->ntb + 1) * sizeof *newid);
	struct ccs_synth_tb *tb = ccs_malloc(((size_t)B->ntb + 1) * sizeof *tb);
	p->tb0 = ccs_calloc((size_t)B->n + 1, sizeof *p->tb0);
	if (!newid || !tb || !p->tb0) {
		ccs_free(newid);
		ccs_free(tb);
		return CCS_ENOMEM;
	}
	for (uint32_t i = 0; i < B->ntb; i++)
		p->tb0[B->tb_rank[i] + 1]++;
	for (int g = 0; g < B->n; g++)
		p->tb0[g + 1] += p->tb0[g];
	uint32_t *fill = ccs_malloc(((size_t)B->n + 1) * sizeof *fill);
	if (!fill) {
		ccs_free(newid);
		ccs_free(tb);
		return CCS_ENOMEM;
	}
	memcpy(fill, p->tb0, (size_t)B->n * sizeof *fill);
	/* newid first marks the blocks waited on (UINT32_MAX), then holds the
	 * new ids with the top bit set until all are given */
	for (uint32_t i = 0; i < B->ntb; i++)
		newid[i] = 0;
	for (uint32_t i = 0; i < B->ntb; i++)
		for (uint32_t k = 0; k < p->tb[i].n; k++)
			if (p->tb[i].st[k].dep_tb >= 0)
				newid[p->tb[i].st[k].dep_tb] = UINT32_MAX;
	for (int waited = 1; waited >= 0; waited--)
		for (uint32_t i = 0; i < B->ntb; i++)
			if (waited ? newid[i] == UINT32_MAX : newid[i] == 0)
				newid[i] = fill[B->tb_rank[i]]++ | 0x80000000u;
	for (uint32_t i = 0; i < B->ntb; i++)
		newid[i] &= 0x7fffffffu;
	for (uint32_t i = 0; i < B->ntb; i++) {
		tb[newid[i]] = p->tb[i];
		for (uint32_t k = 0; k < p->tb[i].n; k++) {
			struct ccs_synth_step *st = &tb[newid[i]].st[k];
			if (st->dep_tb >= 0)
				st->dep_tb = (int32_t)(newid[st->dep_tb] - p->tb0[B->tb_rank[i]]);
		}
	}
	ccs_free(p->tb);
	p->tb = tb;
	p->ntb = B->ntb;
	ccs_free(fill);
	ccs_free(newid);
	return CCS_OK;
}

int ccs_synth_plan_build(const struct ccs_synth *S, struct ccs_synth_plan *p)
{
	memset(p, 0, sizeof *p);
	int n = S->n;
	p->n = n;
	p->coll = S->coll;
	p->C = 1;
	p->nchunks = (long)n * S->K;
	p->i_chunks = S->coll == CCS_COLL_ALLGATHER ? S->K : p->nchunks;
	p->o_chunks = S->coll == CCS_COLL_REDUCESCATTER ? S->K : p->nchunks;
	p->s_chunks = S->coll == CCS_COLL_ALLTOALL ? p->nchunks * n : 0;   /* relays' */
	struct pb B;
	memset(&B, 0, sizeof B);
	B.p = p;
	B.n = n;
	B.K = S->K;
	B.C = S->C;
	B.CH = S->C > 8 ? S->C : 8;   /* channels inside groups, or a NIC's (at most 8) */
	{
		int32_t *gs = ccs_calloc((size_t)n + 1, sizeof *gs), big = 1;
		if (!gs)
			return CCS_ENOMEM;
		for (int v = 0; v < n; v++)
			if (++gs[S->group[v]] > big)
				big = gs[S->group[v]];
		ccs_free(gs);
		B.sets = (big - 1 + CCS_SYNTH_MSCCL_PER_CHAN - 1) / CCS_SYNTH_MSCCL_PER_CHAN;
		if (B.sets < 1)
			B.sets = 1;
		p->nic_mod = 1;
		for (int v = 0; big < n && v < n; v++)
			if (S->nics[v] > p->nic_mod)
				p->nic_mod = S->nics[v] > 8 ? 8 : S->nics[v];
	}
	size_t nn = (size_t)n * (size_t)n * (size_t)B.CH;
	B.stb = ccs_malloc(nn * sizeof *B.stb);
	B.rtb = ccs_malloc(nn * sizeof *B.rtb);
	B.have_st = ccs_malloc(((size_t)n + 1) * sizeof *B.have_st);
	B.depth = ccs_malloc(((size_t)n + 1) * sizeof *B.depth);
	B.est = ccs_malloc(((size_t)n + 1) * sizeof *B.est);
	B.chunk = S->bytes_lowered / (double)p->nchunks;
	B.ch_of = ccs_malloc(((size_t)n + 1) * sizeof *B.ch_of);
	B.nic_out = ccs_calloc((size_t)n * 8 + 1, sizeof *B.nic_out);
	B.nic_in = ccs_calloc((size_t)n * 8 + 1, sizeof *B.nic_in);
	B.S = S;
	B.kids = ccs_malloc(((size_t)n + 1) * sizeof *B.kids);
	B.kid0 = ccs_malloc(((size_t)n + 2) * sizeof *B.kid0);
	B.order = ccs_malloc(((size_t)n + 1) * sizeof *B.order);
	int rc = CCS_ENOMEM;
	if (B.stb && B.rtb && B.have_st && B.depth && B.est && B.ch_of && B.nic_out && B.nic_in && B.kids && B.kid0 && B.order) {
		for (size_t i = 0; i < nn; i++)
			B.stb[i] = B.rtb[i] = -1;
		rc = items(&B, S);
		p->ntb = B.ntb;
		if (!rc)
			rc = sort_blocks(&B);
		if (!rc)
			rc = group_by_rank(&B);
	}
	ccs_free(B.stb);
	ccs_free(B.rtb);
	ccs_free(B.have_st);
	ccs_free(B.depth);
	ccs_free(B.est);
	ccs_free(B.ch_of);
	ccs_free(B.nic_out);
	ccs_free(B.nic_in);
	ccs_free(B.kids);
	ccs_free(B.kid0);
	ccs_free(B.order);
	ccs_free(B.tb_rank);
	if (rc)
		ccs_synth_plan_release(p);
	return rc;
}

void ccs_synth_plan_release(struct ccs_synth_plan *p)
{
	for (uint32_t i = 0; p->tb && i < p->ntb; i++)
		ccs_free(p->tb[i].st);
	ccs_free(p->tb);
	ccs_free(p->tb0);
	memset(p, 0, sizeof *p);
}
