/*
** sim/sched/tree.c: NCCL's tree AllReduce as a schedule (sched.h).
**
** Inside each group the ranks form a chain m0 <- m1 <- ... <- m(p-1); the
** groups' heads (m0) form a binary tree, two of them (NCCL's double binary
** tree): channel c uses tree c mod 2, tree 0 an in-order binary tree over
** the groups (most edges join neighbours), tree 1 the same over the
** mirrored order (shifted by one when G is odd), so a group that is inner
** in one is a leaf in the other; and channel c's chains start c ranks
** further on, so that the channels' heads, and the NICs they reach the
** network through, differ, and every NIC carries both trees.
** Each channel moves S/C bytes in K chunks of NCCL's tree chunk size (at
** most CCS_TREE_MAXCHUNKS; larger chunks beyond that), each chunk in J
** pieces (J = 1 for Simple; LL and LL128 forward each line as it arrives,
** so where a channel holds fewer than TREE_PIECES chunks their chains move
** a chunk in up to TREE_MAXJ pieces).  Per (channel c, chunk k, piece j,
** rank r) two ops, id = (((c K + k) J + j) n + r) 2 + {0: up, 1: down}:
**   up(c,k,j,r)    r sends piece j of chunk k, reduced with its children's,
**                  to its parent; waits for its children's same piece and
**                  its own previous piece; the root's is a no-traffic op
**   down(c,k,j,r)  r receives piece j from its parent; waits for the
**                  parent's same piece (the root's own: its up) and its own
**                  previous piece
** A hop between groups moves whole chunks (the proxy sends a complete
** step): its pieces before the last are placeholders that keep the hop's
** order, the last moves the chunk; chains below it wait for that chunk,
** and the root reduces a piece once every remote child's chunk is in.
** Reduction up and broadcast down run at once, as NCCL pipelines them, and
** each link carries one piece at a time per channel and direction.  The
** leaves' first ops pay the closed form's whole latency (NVLS-tree's rail
** trees: each network hop its own), later ones the step work only (as
** bytes on the chain hops, below).  Bytes on the wire are the chunk over NCCL's tree efficiency and
** its measured tree shortfall, as the closed form counts them.
*/
#include "build.h"

#include "../../model/cost_term.h"

#include "../../model/nccl_tables.h"
#include "../../model/ring_nic.h"

#include <math.h>
#include <string.h>

#define CCS_TREE_MAXCHUNKS 256
/* pieces a channel's chains move at least (LL, LL128), at most per chunk */
#ifndef TREE_PIECES
#define TREE_PIECES 32
#endif
#define TREE_MAXJ 16

struct tree_sched {
	int n, C, K, J;
	int V;                      /* variants: one per channel */
	int32_t **parent;           /* per variant: rank's parent, -1 at the root */
	int32_t **child;            /* per variant: 3 children per rank */
	uint8_t **nchild;
	const int32_t *group;       /* the communicator's rank_group */
	const struct ccs_comm *c;
	int32_t *gsize;             /* chain trees: members of each group, for the heads' NICs; NULL (rails) */
	int32_t *peers;             /* and each rank's NIC sharers in its group (ring_nic.h) */
	uint32_t *nic;              /* groups > 1: rank r's NIC on channel c at r C + c (below),
	                               UINT32_MAX: none */
	double bytes, bytes_intra;   /* per op on the wire: network hops, chains (whole chunks) */
	double d_intra, d_inter, d_base, sync;
	double floor_net;           /* a network hop's least time: the transport's handling
	                             * of the chunks it stands for (model/transport.h) */
};

/* Op ids: ((((c K + k) J + j) n + r) << 1) | down, j the piece of chunk k. */
static void ts_split(const struct tree_sched *ts, uint64_t id, int *c, int *k, int *j, int *r, int *down)
{
	uint64_t x = id >> 1;
	*down = (int)(id & 1);
	if (x <= UINT32_MAX) {
		/* the same in 32 bits (a run's inner loop: several times an op) */
		uint32_t y = (uint32_t)x, n = (uint32_t)ts->n, J = (uint32_t)ts->J, K = (uint32_t)ts->K;
		*r = (int)(y % n);
		y /= n;
		*j = J > 1 ? (int)(y % J) : 0;
		y = J > 1 ? y / J : y;
		*k = (int)(y % K);
		*c = (int)(y / K);
		return;
	}
	*r = (int)(x % (uint64_t)ts->n);
	x /= (uint64_t)ts->n;
	if (ts->J > 1) {
		*j = (int)(x % (uint64_t)ts->J);
		x /= (uint64_t)ts->J;
	} else
		*j = 0;
	*k = (int)(x % (uint64_t)ts->K);
	*c = (int)(x / (uint64_t)ts->K);
}

static uint64_t ts_id(const struct tree_sched *ts, int c, int k, int j, int r, int down)
{
	return ((((((uint64_t)c * (uint64_t)ts->K + (uint64_t)k) * (uint64_t)ts->J + (uint64_t)j) * (uint64_t)ts->n +
	          (uint64_t)r)) << 1) | (uint64_t)down;
}

/* Channel c has its own tree and chains (below). */
static int variant(const struct tree_sched *ts, int c)
{
	(void)ts;
	return c;
}

/* r's hop (to its parent up, from it down) crosses groups. */
static int is_net(const struct tree_sched *ts, int t, int r)
{
	int par = ts->parent[t][r];
	return par >= 0 && ts->group[r] != ts->group[par];
}

/* A network hop moves whole chunks (the proxy sends a step once it is
 * complete): its pieces before the last are placeholders that only keep
 * the hop's order; the last moves the chunk. */
static int placeholder(const struct tree_sched *ts, int t, int r, int j)
{
	return j < ts->J - 1 && is_net(ts, t, r);
}

/* Each rank's NIC a channel's network hops take, looked up once (an op's
 * fill is the run's inner loop): chain trees' heads leave by the NIC
 * ring_nic.h gives them; an NVLS head's channels spread over its NICs (a
 * GPU with several, as AWS p5's four, drives them all: the closed form's
 * heads x b_nic), a hop taking them only where both ends have one. */
static int nic_table(struct tree_sched *ts)
{
	const struct ccs_comm *c = ts->c;
	ts->nic = ccs_malloc((size_t)ts->n * (size_t)ts->C * sizeof *ts->nic);
	if (!ts->nic)
		return CCS_ENOMEM;
	for (int r = 0; r < ts->n; r++) {
		int m = ts->gsize ? 0 : ccs_comm_best_nics(c, r);
		for (int ch = 0; ch < ts->C; ch++) {
			uint32_t *x = &ts->nic[(size_t)r * (size_t)ts->C + (size_t)ch];
			if (ts->gsize)
				*x = ccs_ring_nic_head(c->t, c->rank_gpu[r], ts->gsize[ts->group[r]], ch, ts->peers[r]);
			else
				*x = m > 0 ? ccs_comm_nic(c, r, ch % m) : UINT32_MAX;
		}
	}
	return CCS_OK;
}

static void ts_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct tree_sched *ts = s->ctx;
	int c, k, j, r, down;
	ts_split(ts, id, &c, &k, &j, &r, &down);
	int t = variant(ts, c);
	int par = ts->parent[t][r];
	memset(op, 0, sizeof *op);
	op->channel = (uint32_t)c;
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (par < 0 || placeholder(ts, t, r, j)) {
		op->kind = CCS_OP_DELAY;
		op->src = op->dst = r;
		return;
	}
	op->kind = CCS_OP_XFER;
	op->src = down ? par : r;
	op->dst = down ? r : par;
	int inter = ts->group[r] != ts->group[par];
	if (inter) {
		uint32_t ns = ts->nic[(size_t)op->src * (size_t)ts->C + (size_t)c];
		uint32_t nd = ts->nic[(size_t)op->dst * (size_t)ts->C + (size_t)c];
		/* rails: both ends or neither (nic_table) */
		if (ts->gsize || (ns != UINT32_MAX && nd != UINT32_MAX)) {
			op->nic_src = ns;
			op->nic_dst = nd;
		}
	}
	op->bytes = inter ? ts->bytes : ts->bytes_intra / ts->J;
	/* a network hop takes at least the transport's handling of the chunks
	 * it stands for (model/transport.h); the first chunk's is in the
	 * latency */
	op->floor_s = inter && k > 0 ? ts->floor_net : 0;
	/* the first chunk pays the hop's latency (NCCL's per-hop figure, its
	 * step work included); later ones arrive while the receiver works on
	 * earlier ones (NCCL_STEPS-deep buffers) and pay the step work only */
	int first = k == 0 && (inter || j == 0);
	op->delay_s = first ? (inter ? ts->d_inter : ts->d_intra) : 0;
	if (first && !down && ts->nchild[t][r] == 0)
		op->delay_s += ts->d_base;
}

static int ts_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct tree_sched *ts = s->ctx;
	int c, k, j, r, down, n = 0;
	ts_split(ts, id, &c, &k, &j, &r, &down);
	int t = variant(ts, c), J = ts->J;
	/* the next piece on the same hop */
	if (j + 1 < J)
		out[n++] = ts_id(ts, c, k, j + 1, r, down);
	else if (k + 1 < ts->K)
		out[n++] = ts_id(ts, c, k + 1, 0, r, down);
	if (placeholder(ts, t, r, j))
		return n;
	int par = ts->parent[t][r];
	if (!down) {
		if (par < 0)
			out[n++] = ts_id(ts, c, k, j, r, 1);
		else if (is_net(ts, t, r)) {
			/* j == J - 1 here: the parent's network op, or every piece
			 * of the root's reduction */
			if (ts->parent[t][par] < 0)
				for (int y = 0; y < J; y++)
					out[n++] = ts_id(ts, c, k, y, par, 0);
			else
				out[n++] = ts_id(ts, c, k, J - 1, par, 0);
		}
		else if (!placeholder(ts, t, par, j))
			out[n++] = ts_id(ts, c, k, j, par, 0);
		return n;
	}
	for (int x = 0; x < ts->nchild[t][r]; x++) {
		int ch = ts->child[t][3 * r + x];
		if (is_net(ts, t, ch)) {
			if (j == J - 1)
				out[n++] = ts_id(ts, c, k, J - 1, ch, 1);
		} else if (par >= 0 && is_net(ts, t, r)) {
			/* r got the whole chunk at once: every piece of its chain child may go */
			for (int y = 0; y < J; y++)
				out[n++] = ts_id(ts, c, k, y, ch, 1);
		} else
			out[n++] = ts_id(ts, c, k, j, ch, 1);
	}
	return n;
}

static uint32_t ts_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct tree_sched *ts = s->ctx;
	int c, k, j, r, down;
	ts_split(ts, id, &c, &k, &j, &r, &down);
	int t = variant(ts, c);
	uint32_t d = k > 0 || j > 0;   /* the op before it on the same hop */
	if (placeholder(ts, t, r, j))
		return d;
	if (down)
		return d + 1;           /* the parent's piece (or the whole chunk), or the root's own up */
	int root = ts->parent[t][r] < 0;
	for (int x = 0; x < ts->nchild[t][r]; x++) {
		int ch = ts->child[t][3 * r + x];
		d += !is_net(ts, t, ch) || j == ts->J - 1 || root;
	}
	return d;
}

static void ts_release(struct ccs_sched *s)
{
	struct tree_sched *ts = s->ctx;
	if (ts) {
		/* after a failed allocation any of the three arrays may be missing */
		for (int t = 0; t < ts->V; t++) {
			ccs_free(ts->parent ? ts->parent[t] : NULL);
			ccs_free(ts->child ? ts->child[t] : NULL);
			ccs_free(ts->nchild ? ts->nchild[t] : NULL);
		}
		ccs_free(ts->parent);
		ccs_free(ts->child);
		ccs_free(ts->nchild);
		ccs_free(ts->gsize);
		ccs_free(ts->peers);
		ccs_free(ts->nic);
		ccs_free(ts);
	}
	memset(s, 0, sizeof *s);
}

/* The lane view (sched.h) where chunks move whole (J = 1: Simple): lane
 * (c n + r) 2 + down is channel c's rank r going up or down, t its chunk;
 * op (t, lane) is ts_id(c, t, 0, r, down).  Kind 0: its own previous
 * chunk (dt 1); kinds 1-3, within the chunk (dt 0): going up its
 * children's up, going down its parent's down (the root's: its own up). */
static uint64_t tl_id(const struct ccs_sched *s, uint64_t t, uint32_t l)
{
	const struct tree_sched *ts = s->ctx;
	uint64_t nn = 2 * (uint64_t)ts->n;
	return ((uint64_t)(l / nn) * (uint64_t)ts->K + t) * nn + l % nn;
}

static uint32_t tl_pred(const struct ccs_sched *s, int j, uint32_t l)
{
	const struct tree_sched *ts = s->ctx;
	uint32_t nn = 2 * (uint32_t)ts->n, c = l / nn, r = (l % nn) / 2, down = l & 1;
	int t = variant(ts, (int)c);
	if (j == 0)
		return l;
	if (down) {
		int par = ts->parent[t][r];
		return j > 1 ? CCS_SCHED_NOLANE : par < 0 ? l - 1 : c * nn + (uint32_t)par * 2 + 1;
	}
	if (j - 1 >= ts->nchild[t][r])
		return CCS_SCHED_NOLANE;
	return c * nn + (uint32_t)ts->child[t][3 * r + (uint32_t)(j - 1)] * 2;
}

static uint64_t tl_key(const struct ccs_sched *s, uint32_t l)
{
	const struct tree_sched *ts = s->ctx;
	uint32_t nn = 2 * (uint32_t)ts->n, c = l / nn, r = (l % nn) / 2;
	int t = variant(ts, (int)c);
	return (uint64_t)is_net(ts, t, (int)r) | (uint64_t)(l & 1) << 1 | (uint64_t)(ts->nchild[t][r] == 0) << 2 |
	       (uint64_t)(ts->parent[t][r] < 0) << 3;
}

static int tl_lanes(const struct ccs_sched *s, struct ccs_sched_lanes *out)
{
	const struct tree_sched *ts = s->ctx;
	if (ts->J != 1 || 2 * (uint64_t)ts->C * (uint64_t)ts->n >= UINT32_MAX)
		return 0;
	memset(out, 0, sizeof *out);
	out->L = 2 * (uint32_t)ts->C * (uint32_t)ts->n;
	out->T = (uint64_t)ts->K;
	out->ndep = 4;
	out->dt[0] = 1;
	out->id = tl_id;
	out->pred = tl_pred;
	out->key = tl_key;
	return 1;
}

static const struct ccs_sched_ops ts_ops = { ts_get, ts_succ, ts_ndeps, ts_release, NULL, tl_lanes };

/* Parent of position k in an in-order binary tree over 0..G-1 rooted at 0
 * (NCCL's btree shape): with b the lowest set bit of k, the parent is k
 * with b cleared and 2b set, or with b cleared alone when that is past the
 * end; positions then sit between their children k - b/2 and k + b/2. */
static void add_child(struct tree_sched *ts, int t, int par, int r)
{
	ts->parent[t][r] = par;
	if (par >= 0)
		ts->child[t][3 * par + ts->nchild[t][par]++] = r;
}

/* One variant per channel: its parent, children and child count per rank. */
static int tree_alloc(struct tree_sched *ts, int n)
{
	ts->V = ts->C;
	ts->parent = ccs_calloc((size_t)ts->V, sizeof *ts->parent);
	ts->child = ccs_calloc((size_t)ts->V, sizeof *ts->child);
	ts->nchild = ccs_calloc((size_t)ts->V, sizeof *ts->nchild);
	if (!ts->parent || !ts->child || !ts->nchild)
		return CCS_ENOMEM;
	for (int t = 0; t < ts->V; t++) {
		ts->parent[t] = ccs_malloc(((size_t)n + 1) * sizeof *ts->parent[t]);
		ts->child[t] = ccs_malloc(((size_t)n * 3 + 1) * sizeof *ts->child[t]);
		ts->nchild[t] = ccs_calloc((size_t)n + 1, 1);
		if (!ts->parent[t] || !ts->child[t] || !ts->nchild[t])
			return CCS_ENOMEM;
		/* a rank in no tree (not an NVLS head) is a root alone */
		for (int r = 0; r < n; r++)
			ts->parent[t][r] = -1;
	}
	return CCS_OK;
}

/* NVLS-tree's network part: one tree per NVLS head h (ccs_cost_term_nvls_heads:
 * NCCL's NVLS graph has at most 32, the same count in every domain) over
 * the groups' h-th heads, each carrying its own slice S/H. */
static void rail_trees(const struct ccs_comm *c, struct tree_sched *ts, const int32_t *gstart, const int32_t *members)
{
	int G = c->G, H = ccs_cost_term_nvls_heads(c);
	/* head h of group g: its member h p_g / H (groups may differ in size) */
#define HEAD(g, h) members[gstart[g] + (int)((long)(h) * (gstart[(g) + 1] - gstart[g]) / H)]
	for (int v = 0; v < ts->V; v++) {
		/* one tree per head h over the groups' h-th heads: each carries its
		 * own slice (NVLS-tree's network part); other ranks stay out */
		int t = 2 * v >= ts->C && ts->C > 1;
		for (int h = 0; h < H; h++)
			for (int k = 0; k < G; k++) {
				int pk = ccs_btree_parent(k, G);
				int g = ccs_btree_place(t, k, G);
				int pg = pk < 0 ? -1 : ccs_btree_place(t, pk, G);
				add_child(ts, v, pg >= 0 ? HEAD(pg, h) : -1, HEAD(g, h));
			}
	}
#undef HEAD
}

/* The tree AllReduce's shape per variant: the groups' heads in NCCL's
 * double binary tree, chains inside the groups, rotated per channel. */
static int chain_trees(const struct ccs_comm *c, struct tree_sched *ts, const int32_t *gstart, const int32_t *members)
{
	int G = c->G;
	for (int v = 0; v < ts->V; v++) {
		int t = 2 * v >= ts->C && ts->C > 1, rot = v;
		/* member j of group g in this variant's chain order */
#define MEMBER(g, j) members[gstart[g] + ((j) + rot) % (gstart[(g) + 1] - gstart[g])]
		/* the groups' heads: an in-order binary tree over positions, so that
		 * most edges join neighbouring groups; tree 1 over the mirrored
		 * positions (G even) or those shifted by one (G odd) */
		for (int k = 0; k < G; k++) {
			int pk = ccs_btree_parent(k, G);
			int g = ccs_btree_place(t, k, G);
			int pg = pk < 0 ? -1 : ccs_btree_place(t, pk, G);
			if (pg >= 0 && ts->nchild[v][MEMBER(pg, 0)] >= 3) {
				return CCS_EINTERNAL;
			}
			add_child(ts, v, pg >= 0 ? MEMBER(pg, 0) : -1, MEMBER(g, 0));
		}
		/* the chains inside the groups */
		for (int g = 0; g < G; g++)
			for (int j = 1; j < gstart[g + 1] - gstart[g]; j++)
				add_child(ts, v, MEMBER(g, j - 1), MEMBER(g, j));
#undef MEMBER
	}
	return CCS_OK;
}

/* NVLS-tree's chunks, bytes and delays: each head's tree moves S/H. */
static void rail_costs(const struct ccs_comm *c, int proto, double S, struct tree_sched *ts)
{
	/* each head's tree moves S/H in NVLS chunks; the network streams
	 * from its own buffers (no step work), and the first chunk pays
	 * NVLS-tree's network latency per hop */
	double Sr = S / ccs_cost_term_nvls_heads(c);
	double chunk = ccs_cost_chunk(c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, proto, ts->C, S);
	double K = ceil(Sr / ((double)ts->C * chunk));
	K = K < 1 ? 1 : K > CCS_TREE_MAXCHUNKS ? CCS_TREE_MAXCHUNKS : K;
	ts->K = (int)K;
	ts->bytes = ts->bytes_intra = Sr / ((double)ts->C * K) / ccs_nccl_proto_data_share(proto);
	ts->d_base = ccs_nccl_latency(&c->nccl, CCS_ALGO_NVLS_TREE, proto, 0, 0);
	ts->d_intra = 0;
	ts->d_inter = ccs_nccl_latency(&c->nccl, CCS_ALGO_NVLS_TREE, proto, 0, 1) - ts->d_base +
	              ccs_cost_rdv_of(c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, proto, ts->C, (uint64_t)S);
	ts->sync = 0;
	ts->floor_net = ccs_comm_tr(c)->chunk_s * Sr / ((double)ts->C * K * chunk);
}

/* The tree's chunks, bytes and delays as the closed form counts them. */
static void tree_costs(const struct ccs_comm *c, int proto, double S, struct tree_sched *ts)
{
	int G = c->G;
	double chunk = ccs_cost_chunk(c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, proto, ts->C, S);
	double K = ceil(S / ((double)ts->C * chunk));
	if (K < 1)
		K = 1;
	if (K > CCS_TREE_MAXCHUNKS)
		K = CCS_TREE_MAXCHUNKS;
	ts->K = (int)K;
	double e = ccs_nccl_tree_proto_eff(proto, G);
	e *= ccs_nccl_tree_correction(proto, S);
	ts->bytes = S / ((double)ts->C * K) / e;
	/* NCCL's protocol cap on the GPU side slows the chains as the closed
	 * form's Bi = min(b_su / share x e, cap) */
	ts->bytes_intra = ts->bytes;
	{
		double share = ccs_cost_term_tree_share(c->p, ts->C);
		double cap = ccs_cost_proto_cap(c, CCS_ALGO_TREE, proto);
		double bi = share > 0 ? c->b_su / share * e : HUGE_VAL;
		if (cap < bi)
			ts->bytes_intra = ts->bytes * bi / cap;
	}
	/* synchronisation: one step per NCCL chunk the op stands for */
	double real_k = ceil(S / ((double)ts->C * chunk));
	double sync = c->prm.step_s[proto] * (real_k < 1 ? 1 : real_k) / K;
	{
		int lg = 0;
		while ((1 << lg) < G)
			lg++;
		ts->d_base = ccs_nccl_latency(&c->nccl, CCS_ALGO_TREE, proto, 2 * (c->p - 1), 2 * lg) +
		             2 * lg * ccs_cost_rdv_of(c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, proto, ts->C, (uint64_t)S);
	}
	ts->d_intra = ts->d_inter = 0;
	ts->sync = sync;
	ts->floor_net = G > 1 ? ccs_comm_tr(c)->chunk_s * S / ((double)ts->C * K * chunk) : 0;
	/* The step work occupies the channel's SM, and NCCL's channels move in
	 * step, so it costs port time: each chain transfer carries it as bytes
	 * at the channel's share of its port (the closed form adds the steps
	 * to the GPU side); the network streams from its own buffers. */
	{
		double share = ccs_cost_term_tree_share(c->p, ts->C);
		if (share > 0)
			ts->bytes_intra += sync * c->b_su / (share * ts->C);
	}
	/* LL and LL128 forward each line as it arrives (cut-through inside a
	 * node): the chains move each chunk in J pieces, so that a chunk
	 * crosses a chain in about one piece time per hop, not one chunk time;
	 * the network still moves whole chunks */
	if (proto != CCS_PROTO_SIMPLE && c->p > 1) {
		int J = ts->K >= TREE_PIECES ? 1 : (TREE_PIECES + ts->K - 1) / ts->K;
		ts->J = J > TREE_MAXJ ? TREE_MAXJ : J;
	}
}

static int build_tree(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, int rails,
                      struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	int n = c->n;
	struct tree_sched *ts = ccs_calloc(1, sizeof *ts);
	int32_t *gstart = NULL, *members = NULL;
	int rc = CCS_ENOMEM;
	s->ctx = ts;
	s->ops = &ts_ops;
	if (!ts || ccs_comm_members(c, &gstart, &members))
		goto out;
	ts->n = n;
	ts->J = 1;
	ts->C = channels > 0 ? channels : rails ? c->nccl.nvls_channels : ccs_nccl_channels(&c->nccl, CCS_ALGO_TREE);
	if (ts->C < 1)
		ts->C = 1;
	ts->group = c->rank_group;
	/* one variant per channel: the first half of the channels on tree 0,
	 * the second on tree 1 (NCCL's split), channel c's chains starting c
	 * ranks further on, so that the channels reach the network through
	 * different NICs and every NIC carries both trees */
	if ((rc = tree_alloc(ts, n)))
		goto out;
	ts->c = c;
	if (rails)
		rail_trees(c, ts, gstart, members);
	else if ((rc = chain_trees(c, ts, gstart, members)))
		goto out;
	if (!rails && c->G > 1) {
		rc = CCS_ENOMEM;
		if (!(ts->gsize = ccs_malloc((size_t)c->G * sizeof *ts->gsize)) ||
		    !(ts->peers = ccs_malloc((size_t)n * sizeof *ts->peers)))
			goto out;
		for (int g = 0; g < c->G; g++) {
			int m = gstart[g + 1] - gstart[g];
			ts->gsize[g] = m;
			for (int k = 0; k < m; k++)
				ts->peers[members[gstart[g] + k]] = ccs_ring_nic_peers(c->t, c->rank_gpu, members + gstart[g], m, k);
		}
	}
	if (c->G > 1 && (rc = nic_table(ts)))
		goto out;
	/* chunks, bytes and delays as the closed form counts them */
	double S = (double)bytes;
	if (rails) {
		rail_costs(c, proto, S, ts);
		s->nops = (uint64_t)ts->C * (uint64_t)ts->K * (uint64_t)ts->J * (uint64_t)n * 2;
		rc = CCS_OK;
		goto out;
	}
	tree_costs(c, proto, S, ts);
	s->nops = (uint64_t)ts->C * (uint64_t)ts->K * (uint64_t)ts->J * (uint64_t)n * 2;
	rc = CCS_OK;
out:
	ccs_free(gstart);
	ccs_free(members);
	if (rc) {
		ts_release(s);
		if (why)
			*why = rc == CCS_ENOMEM ? "out of memory" : "internal: a tree position with more than two children";
	}
	return rc;
}

int ccs_sched_tree(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                   const char **why)
{
	return build_tree(c, proto, channels, bytes, 0, s, why);
}

int ccs_sched_tree_rails(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                         const char **why)
{
	if (c->G < 2) {
		*why = "the rail trees need several groups";
		return CCS_EINPUT;
	}
	return build_tree(c, proto, channels, bytes, 1, s, why);
}
