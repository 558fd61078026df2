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
** it.  Across groups a pair's chunks split evenly over its NICs; a chunk
** received from another group is forwarded inside the group in a block
** of its own stream; in-trees are lowered twice, the second time with
** each rank's network hop as long as its NICs' sharing makes it.
*/
#include "synth.h"

#include "../../model/coll.h"

#include <stdlib.h>
#include <string.h>

struct pb {
	struct ccs_synth_plan *p;
	int n, K, C, CH;            /* CH: the block maps' channels per pair */
	int CS;                     /* channels inside groups: C, or more where streams need them (stream_ch) */
	int sets;                   /* inside groups, pair (a, b) takes channels C ((a + b) mod sets) + c */
	const struct ccs_synth *S;
	int slot;                   /* the item's chunk slot */
	int32_t off0, cnt;          /* its chunks in the shard (ccs_synth_slot) */
	double fine;                /* bytes a chunk of the shard */
	uint32_t *nic_out, *nic_in; /* per rank and NIC (r 8 + i): chunks through it so far */
	uint16_t *pair_nic;         /* per pair across groups and NIC (a n + b) 8 + i: its chunks through it so far */
	int16_t *stream;            /* per rank u, parent across groups and channel ((u n + p) CH + ch): the
	                               channel u forwards that stream's chunks on inside its group, -1 none */
	int32_t *nstream;           /* per rank: streams labelled so far */
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
	double chunk;               /* bytes the item's slot holds */
	double delta;               /* the longest hop [s] */
	double *hnet;               /* per rank: a chunk's time across groups as its NICs share it [s] (in-trees'
	                               second pass; a slot of cnt chunks, cnt times it), NULL: the bare hop */
	int32_t *kids, *kid0, *order;
};

/* The channel of the next transfer from a to b.  Inside a group, the
 * item's slot's (an item keeps its channel down the tree), or, where the
 * chunk came from another group, its stream's (below).  Across groups a
 * channel c leaves through NIC c mod k: the transfer takes, of the NICs
 * both ends have to themselves (S->nic_own), the NIC i
 * this pair has used least (the program spreads each pair evenly over
 * its NICs; so every block of a pair over one NIC has the same length
 * and the blocks sharing a NIC end together), among those the one a's
 * sends and b's receives have used least, on channel i: a pair's
 * chunks over one NIC go one after another in one block, so that they
 * arrive one by one and are forwarded as they come, not all at the end
 * as chunks that share the NIC at once would; or (spread) on channel
 * i + k (slot mod C / k), several at once, so that one's latency
 * overlaps another's transfer. */
static int edge_ch(struct pb *B, int a, int b)
{
	const struct ccs_synth *S = B->S;
	if (S->group[a] == S->group[b] || S->nics[a] < 1 || S->nics[b] < 1)
		return B->slot % B->C;
	int k = S->nics[a] > S->nics[b] ? S->nics[a] : S->nics[b];
	k = k > 8 ? 8 : k;
	uint16_t *pn = B->pair_nic + ((size_t)a * (size_t)B->n + (size_t)b) * 8;
	/* the NICs both ends have to themselves, else the sender's, else all */
	unsigned ok = 0, mine = 0;
	for (int i = 0; i < k; i++) {
		unsigned x = (S->nic_own[a] >> (i % S->nics[a])) & 1u;
		mine |= x << i;
		ok |= (x & (S->nic_own[b] >> (i % S->nics[b]))) << i;
	}
	ok = S->all_nics ? (1u << k) - 1 : ok ? ok : mine ? mine : (1u << k) - 1;
	int best = 0;
	uint64_t bl = UINT64_MAX;
	for (int i = 0; i < k; i++) {
		if (!(ok >> i & 1u))
			continue;
		uint32_t o = B->nic_out[(size_t)a * 8 + (size_t)(i % S->nics[a])], n = B->nic_in[(size_t)b * 8 + (size_t)(i % S->nics[b])];
		uint64_t l = ((uint64_t)pn[i] << 40) + (uint64_t)(o > n ? o : n) * 2 + o + n;
		if (l < bl) {
			bl = l;
			best = i;
		}
	}
	pn[best]++;
	B->nic_out[(size_t)a * 8 + (size_t)(best % S->nics[a])]++;
	B->nic_in[(size_t)b * 8 + (size_t)(best % S->nics[b])]++;
	int m = B->S->spread && B->C / k > 1 ? B->C / k : 1;
	return best + k * (B->slot % m);
}

/* The channel rank u forwards inside its group a chunk it received from
 * parent p in another group on channel ch: one per such stream (in the
 * order u first meets them), so that a block forwarding one stream's
 * chunks holds them in the order they arrive and never waits behind
 * another stream's chunk that has not (a stream's chunks arrive in its
 * block's order; two streams' interleave as their NICs' sharing decides,
 * not as the expected times say).  Past CS streams they share. */
static int stream_ch(struct pb *B, int u, int p, int ch)
{
	int16_t *x = B->stream + ((size_t)u * (size_t)B->n + (size_t)p) * (size_t)B->CH + (size_t)ch;
	if (*x < 0)
		*x = (int16_t)(B->nstream[u]++ % B->CS);
	return *x;
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
		label = ch + B->CS * ((g + v) % B->sets);
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
	/* in-trees: as late as the path still to go allows (a child's
	 * transfers are ordered at its parent as at itself, both keyed by the
	 * child's estimate, as an MSCCL++ plan's signals pair with its waits
	 * in order).  A hop across groups takes, on the second pass, what the
	 * sender's NICs take to move a chunk of every block sharing them
	 * (hnet): so partials whose path ends inside the root's group go that
	 * much after those that still cross the network, the bottleneck, and
	 * feed it first; the first pass orders by depth, one longest hop a
	 * level. */
	if (!B->hnet) {
		for (int i = 0; i < B->norder; i++)
			B->est[B->order[i]] = (B->n - B->depth[B->order[i]]) * B->delta;
		return;
	}
	for (int i = 0; i < B->norder; i++) {
		int u = B->order[i], p = t->parent[u];
		if (u == t->root) {
			B->est[u] = 0;
			continue;
		}
		double h = hop(B, u, p);
		if (B->S->group[u] != B->S->group[p] && B->hnet[u] * B->cnt > h)
			h = B->hnet[u] * B->cnt;
		B->est[u] = B->est[p] - h;
	}
}

/* Where rank u keeps the item's chunks (of tree t): a root's own in its input (an
 * AllToAll path's at its destination's place), a relay's in scratch,
 * everything else in the output at the root's place. */
static void where(const struct pb *B, const struct ccs_synth_tree *t, int u, int ar, struct ccs_synth_step *st)
{
	int K = B->K, s = B->off0;
	st->cnt = B->cnt;
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
			where(B, t, u, ar, &st);
			CCS_TRY(add_step(B, tb, &st, &at));
			dtb = tb;
			dst = at;
		} else if (root_dep) {
			dtb = root_dep[0];
			dst = root_dep[1];
		}
		int fwd = u != r && B->S->group[t->parent[u]] != B->S->group[u];
		for (int k = B->kid0[u]; k < B->kid0[u + 1]; k++) {
			int32_t tb, at;
			int v = B->kids[k];
			B->ch_of[v] = fwd && B->S->group[v] == B->S->group[u] ? stream_ch(B, u, t->parent[u], B->ch_of[u])
			                                                      : edge_ch(B, u, v);
			CCS_TRY(tb_for(B, u, v, 1, B->ch_of[v], &tb));
			struct ccs_synth_step st = { CCS_SYNTH_SEND, 'o', 0, 1, dtb, dst, B->base + B->est[u], tie(B, t, s) };
			where(B, t, u, ar, &st);
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
	int32_t off = r * B->K + B->off0;
	for (int i = B->norder - 1; i >= 0; i--) {
		int u = B->order[i];
		int32_t dtb = -1, dst = -1;
		for (int k = B->kid0[u]; k < B->kid0[u + 1]; k++) {
			int32_t tb, at;
			CCS_TRY(tb_for(B, u, B->kids[k], 0, B->ch_of[B->kids[k]], &tb));
			int last = k + 1 == B->kid0[u + 1] && u == r;
			/* keyed when the partial is expected here: the child's
			 * send's key plus the pair's hop, so the pair's steps are
			 * in the same order at both ends, and every reduction at u
			 * (each waits on the one before) has the same key */
			struct ccs_synth_step st = { CCS_SYNTH_RRC, last ? 'o' : 'i', last ? B->off0 : off, B->cnt, dtb, dst,
			                             B->base + B->est[u], tie(B, t, s) };
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
		/* keyed as its parent's reduction of it, to the bit: both ends
		 * of a pair hold its steps in one order */
		struct ccs_synth_step st = { CCS_SYNTH_SEND, 'i', off, B->cnt, dtb, dst, B->base + B->est[t->parent[u]],
		                             tie(B, t, s) };
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
	/* a chunk's share of the bound; the second phase after the longest
	 * path of a slot of the most chunks */
	double slot_s = S->round_s / K, after = 0, big = B->fine * (1 << S->L);
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		after = S->hop_lat[i] + big * S->hop_sB[i] > after ? S->hop_lat[i] + big * S->hop_sB[i] : after;
	B->delta = after;
	after *= n;
	int rc = CCS_OK, U = S->U;
	for (int step = 0; step < U + nph - 1 && !rc; step++)
		for (int ph = 0; ph < nph && !rc; ph++) {
			int s = step - ph;
			if (s < 0 || s >= U)
				continue;
			for (int j = 0; j < S->ntree && !rc; j++) {
				const struct ccs_synth_tree *t = &S->tree[j];
				if ((ar && t->phase != ph) || s < first[j] || s >= first[j] + t->chunks)
					continue;
				for (int v = 0; v < n; v++)
					B->have_st[v] = 0;
				tree_order(B, t);
				B->slot = s;
				ccs_synth_slot(S, s, &B->off0, &B->cnt);
				B->chunk = B->fine * B->cnt;
				B->base = B->off0 * slot_s + ph * after;
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

/* The sets of channels inside groups (tb_for) and the plan's NIC
 * modulus. */
static int group_sets(const struct ccs_synth *S, struct pb *B)
{
	int n = S->n;
	int32_t *gs = ccs_calloc((size_t)n + 1, sizeof *gs), big = 1;
	if (!gs)
		return CCS_ENOMEM;
	for (int v = 0; v < n; v++)
		if (++gs[S->group[v]] > big)
			big = gs[S->group[v]];
	ccs_free(gs);
	B->sets = (big - 1 + CCS_SYNTH_MSCCL_PER_CHAN - 1) / CCS_SYNTH_MSCCL_PER_CHAN;
	if (B->sets < 1)
		B->sets = 1;
	B->p->nic_mod = 1;
	for (int v = 0; big < n && v < n; v++)
		if (S->nics[v] > B->p->nic_mod)
			B->p->nic_mod = S->nics[v] > 8 ? 8 : S->nics[v];
	return CCS_OK;
}

/* Channels inside groups: C, or as many as the most streams a rank
 * receives from other groups and forwards (stream_ch: a pair across
 * groups over k NICs, each on C / k channels when spread), as long as the
 * block maps (n n channels a side) stay within 16 M entries; past that
 * streams share. */
static int inside_channels(const struct ccs_synth *S, int n)
{
	int C = S->C, most = 0, k = 1;
	for (int v = 0; v < n; v++)
		k = S->nics[v] > k ? (S->nics[v] > 8 ? 8 : S->nics[v]) : k;
	int m = S->spread && C / k > 1 ? C / k : 1;
	uint8_t *seen = ccs_calloc((size_t)n * (size_t)n + 1, 1);
	int32_t *cnt = ccs_calloc((size_t)n + 1, sizeof *cnt);
	for (int j = 0; seen && cnt && j < S->ntree; j++) {
		const struct ccs_synth_tree *t = &S->tree[j];
		if (!t->phase)
			continue;
		for (int u = 0; u < n; u++) {
			int p = t->parent[u];
			if (p >= 0 && S->group[p] != S->group[u] && !seen[(size_t)u * (size_t)n + (size_t)p]++)
				most = ++cnt[u] > most ? cnt[u] : most;
		}
	}
	ccs_free(seen);
	ccs_free(cnt);
	long want = (long)most * k * m, cap = (1L << 24) / ((long)n * n);
	want = want > cap ? cap : want;
	want = want > 32767 ? 32767 : want;
	return want > C ? (int)want : C;
}

/* In-trees again, each rank's hop across groups taken as what its NICs
 * take to move one chunk of each of its blocks across groups, which the
 * first pass counted: its blocks there hold about one chunk each in
 * flight, and its chunks there a slot move in the bound's slot time
 * (S->round_s / K), so hnet = round_s x blocks / chunks.  The blocks are
 * made again from nothing (the same blocks: channels do not depend on
 * the estimates), their steps in the new order. */
static int second_pass(struct pb *B, const struct ccs_synth *S, size_t nn)
{
	int n = B->n;
	B->hnet = ccs_calloc((size_t)n + 1, sizeof *B->hnet);
	double *steps = ccs_calloc((size_t)n + 1, sizeof *steps);
	if (!B->hnet || !steps) {
		ccs_free(steps);
		ccs_free(B->hnet);
		B->hnet = NULL;
		return CCS_ENOMEM;
	}
	for (uint32_t i = 0; i < B->ntb; i++) {
		const struct ccs_synth_tb *t = &B->p->tb[i];
		int g = B->tb_rank[i];
		if (t->send >= 0 && S->group[t->send] != S->group[g]) {
			B->hnet[g] += 1;
			for (uint32_t k = 0; k < t->n; k++)
				steps[g] += t->st[k].cnt;
		}
	}
	for (int g = 0; g < n; g++)
		B->hnet[g] = steps[g] > 0 ? S->round_s * B->hnet[g] / steps[g] : 0;
	ccs_free(steps);
	for (uint32_t i = 0; i < B->ntb; i++)
		ccs_free(B->p->tb[i].st);
	B->ntb = 0;
	B->p->C = 1;
	for (size_t i = 0; i < nn; i++) {
		B->stb[i] = B->rtb[i] = -1;
		B->stream[i] = -1;
	}
	memset(B->nstream, 0, (size_t)n * sizeof *B->nstream);
	memset(B->nic_out, 0, (size_t)n * 8 * sizeof *B->nic_out);
	memset(B->nic_in, 0, (size_t)n * 8 * sizeof *B->nic_in);
	memset(B->pair_nic, 0, (size_t)n * (size_t)n * 8 * sizeof *B->pair_nic);
	int rc = items(B, S);
	ccs_free(B->hnet);
	B->hnet = NULL;
	return rc;
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
	B.CS = inside_channels(S, n);
	B.CH = B.CS > 8 ? B.CS : 8;   /* channels inside groups, or a NIC's (at most 8) */
	if (group_sets(S, &B))
		return CCS_ENOMEM;
	size_t nn = (size_t)n * (size_t)n * (size_t)B.CH;
	B.stb = ccs_malloc(nn * sizeof *B.stb);
	B.rtb = ccs_malloc(nn * sizeof *B.rtb);
	B.have_st = ccs_malloc(((size_t)n + 1) * sizeof *B.have_st);
	B.depth = ccs_malloc(((size_t)n + 1) * sizeof *B.depth);
	B.est = ccs_malloc(((size_t)n + 1) * sizeof *B.est);
	B.fine = S->bytes_lowered / (double)p->nchunks;
	B.ch_of = ccs_malloc(((size_t)n + 1) * sizeof *B.ch_of);
	B.nic_out = ccs_calloc((size_t)n * 8 + 1, sizeof *B.nic_out);
	B.nic_in = ccs_calloc((size_t)n * 8 + 1, sizeof *B.nic_in);
	B.pair_nic = ccs_calloc((size_t)n * (size_t)n * 8 + 1, sizeof *B.pair_nic);
	B.stream = ccs_malloc((nn + 1) * sizeof *B.stream);
	B.nstream = ccs_calloc((size_t)n + 1, sizeof *B.nstream);
	B.S = S;
	B.kids = ccs_malloc(((size_t)n + 1) * sizeof *B.kids);
	B.kid0 = ccs_malloc(((size_t)n + 2) * sizeof *B.kid0);
	B.order = ccs_malloc(((size_t)n + 1) * sizeof *B.order);
	int rc = CCS_ENOMEM;
	if (B.stb && B.rtb && B.have_st && B.depth && B.est && B.ch_of && B.nic_out && B.nic_in && B.pair_nic && B.stream && B.nstream && B.kids && B.kid0 && B.order) {
		for (size_t i = 0; i < nn; i++) {
			B.stb[i] = B.rtb[i] = -1;
			B.stream[i] = -1;
		}
		rc = items(&B, S);
		if (!rc && !S->bare_hop && S->coll != CCS_COLL_ALLGATHER && S->coll != CCS_COLL_ALLTOALL)
			rc = second_pass(&B, S, nn);
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
	ccs_free(B.pair_nic);
	ccs_free(B.stream);
	ccs_free(B.nstream);
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
