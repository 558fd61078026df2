/*
** sim/sched/expert.c: an expert-parallel plan (model/moe.h) as a schedule.
**
** Every transfer of the plan becomes XFER ops over the fabric; transfers on
** DeepEP's SM channels (sm) also cross both ranks' copy ports.  A transfer
** that others forward (deepep_normal's RDMA hop) and those forwarding it
** move in K = min(8, tokens) chunks, chunk j of a forward waiting for chunk
** j of what it forwards and chunk j-1 of itself, so that the scale-up hop
** runs behind the network hop as DeepEP's chunked queues let it.  Combine
** runs the same transfers the other way: the forwarder's RDMA chunk j waits
** for chunk j of every partial sum it reduces.  A merged dispatch piece's
** forwards (expert_agg.h) go in groups of its chunks instead (fwd_span).
** Transfers with no forward
** are one op.  The first op of every chain waits the plan's fixed latency
** (ccs_moe_latency); a parent with more than 62 forwards reaches them
** through relay waits (an op releases at most CCS_SCHED_MAXSUCC).
*/
#include "build.h"
#include "expert_agg.h"

#include "../../model/moe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAN 62

/* ccs_sched_expert's arrays, per transfer: its first op (the K chunks follow
 * it), its children and its index among its parent's, the first relay
 * (dispatch fan-out above FAN), K. */
struct moe_ops {
	const struct ccs_comm *c;
	const uint32_t *lane_nic;       /* LANES per rank: its own NICs */
	const uint8_t *nl;              /* how many */
	double *load_out, *load_in;     /* LANES per rank: bytes given to each lane so far */
	const struct ccs_moe_plan *p;
	const struct ccs_moe_agg *agg;  /* the merge p comes from (expert_agg.h); NULL: p as planned */
	int comb;
	uint32_t *first, *nch, *sib, *relay;
	uint8_t *K;
	uint8_t *G;                     /* a dispatch piece's forward group (fwd_span), 1: none */
};

/* Lane NICs: at most 8 a rank. */
#define LANES 8

/* How many of a transfer's chunks are in flight at once: one inside a group
 * (a chain), and across groups one per NIC of the sender's own, each chunk on
 * its own NIC, so that a rank drives all its NICs as DeepEP's channels do. */
static int moe_lanes(const struct moe_ops *m, const struct ccs_moe_xfer *x)
{
	int a = m->comb ? x->dst : x->src, b = m->comb ? x->src : x->dst;
	if (m->c->rank_group[a] == m->c->rank_group[b])
		return 1;
	return m->nl[a];
}

static int least_loaded(const double *load, int n)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		if (load[i] < load[b])
			b = i;
	return b;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Each rank's own NICs: its nearest ones, split evenly among the ranks of
 * its group that share the same nearest set (two GPUs behind one PCIe
 * switch with four NICs take two each), in NIC order. */
/* Rank r's share of its nearest NICs, the k-th of sh ranks sharing them. */
static void split_nics(const struct ccs_comm *c, int r, int k, int sh, uint32_t *lane_nic, uint8_t *nl)
{
	int best = ccs_comm_best_nics(c, r);
	nl[r] = 0;
	if (best < 1)
		return;
	uint32_t all[64];
	int na = best < 64 ? best : 64;
	for (int i = 0; i < na; i++)
		all[i] = ccs_comm_nic(c, r, i);
	qsort(all, (size_t)na, sizeof *all, cmp_u32);
	int per = na / sh;
	if (per < 1) {
		/* more ranks than NICs: round the NICs */
		lane_nic[(size_t)r * LANES] = all[k % na];
		nl[r] = 1;
		return;
	}
	per = per > LANES ? LANES : per;
	for (int i = 0; i < per; i++)
		lane_nic[(size_t)r * LANES + (size_t)i] = all[k * (na / sh) + i];
	nl[r] = (uint8_t)per;
}

/* Ranks sorted by (group, key, rank): the ranks that share a nearest NIC
 * set (key: its lowest NIC) sit together. */
struct nk {
	int32_t g, r;
	uint32_t key;
};

static int cmp_nk(const void *a, const void *b)
{
	const struct nk *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r;
}

static int own_nics(const struct ccs_comm *c, uint32_t *lane_nic, uint8_t *nl)
{
	struct nk *v = ccs_malloc(((size_t)c->n + 1) * sizeof *v);
	if (!v)
		return CCS_ENOMEM;
	for (int r = 0; r < c->n; r++) {
		int best = ccs_comm_best_nics(c, r);
		v[r] = (struct nk){ c->rank_group[r], r, UINT32_MAX };
		for (int i = 0; i < best; i++)
			if (ccs_comm_nic(c, r, i) < v[r].key)
				v[r].key = ccs_comm_nic(c, r, i);
	}
	qsort(v, (size_t)c->n, sizeof *v, cmp_nk);
	for (int i = 0, j; i < c->n; i = j) {
		for (j = i; j < c->n && v[j].g == v[i].g && v[j].key == v[i].key; j++)
			;
		for (int q = i; q < j; q++)
			split_nics(c, v[q].r, q - i, j - i, lane_nic, nl);
	}
	ccs_free(v);
	return CCS_OK;
}

/* A merged dispatch piece's forwards (expert_agg.h): the piece's Kp
 * chunks land one after another where the st transfers it stands for
 * would land theirs side by side, so its forwards go in groups of g ~ st
 * chunks (one exact wave), with the last ones graded 4, 2, 1, 1 chunks so that
 * what is left to forward once the last chunk lands stays one chunk.
 * Group t counted from the end has min(g, 2^(t-1)) chunks (t = 0: 1); the
 * first group takes what is left.  fwd_span gives op j's chunks [lo, hi)
 * of its parent's and returns the op count; g = 1: one op a chunk. */
static int grp_size(int t, int g)
{
	if (t == 0)
		return 1;
	return t - 1 < 8 && (1 << (t - 1)) < g ? 1 << (t - 1) : g;
}

static int fwd_span(int Kp, int g, int j, int *lo, int *hi)
{
	int n = 0;
	for (int pos = Kp; pos > 0; n++)
		pos -= grp_size(n, g);
	int end = Kp, t = n - 1 - j;    /* op j is group t from the end */
	for (int u = 0; u < t; u++)
		end -= grp_size(u, g);
	*hi = end;
	*lo = end > grp_size(t, g) ? end - grp_size(t, g) : 0;
	return n;
}

/* What transfer i's op j moves, of its tb bytes. */
static double op_bytes(const struct moe_ops *m, size_t i, int j, double tb)
{
	int32_t par = m->p->x[i].parent;
	if (m->comb || par < 0 || m->G[par] <= 1)
		return tb / m->K[i];
	int lo, hi;
	fwd_span(m->K[par], m->G[par], j, &lo, &hi);
	return tb * (hi - lo) / m->K[par];
}

/* The ops: K per transfer, a chain's first paying the latency L. */
static int moe_xfer_ops(struct ccs_dag *d, const struct moe_ops *m, double L)
{
	size_t nx = m->p->nx;
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &m->p->x[i];
		double tb = x->tokens * m->p->tok_bytes;
		/* a chain starts at a transfer with no predecessor: dispatch's
		 * parents and lone transfers, combine's forwards and lone ones */
		int starts = m->comb ? (x->parent >= 0 || !m->nch[i]) : x->parent < 0;
		int ls = 0, ld = 0;
		for (int j = 0; j < m->K[i]; j++) {
			double bytes = op_bytes(m, i, j, tb);
			struct ccs_op op;
			memset(&op, 0, sizeof op);
			op.kind = CCS_OP_XFER;
			op.src = m->comb ? x->dst : x->src;
			op.dst = m->comb ? x->src : x->dst;
			op.nic_src = op.nic_dst = UINT32_MAX;
			/* across groups a rank spreads its transfers and their chunks
			 * over the NICs nearest it, as NCCL's channels and DeepEP's
			 * queue pairs do (p5en: two or four EFA NICs per GPU) */
			if (m->c->rank_group[op.src] != m->c->rank_group[op.dst]) {
				/* a transfer's first chunk takes the sender's and the
				 * receiver's least loaded lane (by bytes so far), the next
				 * ones the lanes after them: NICs fill evenly, and the chunks
				 * in flight together are on different NICs */
				if (j == 0) {
					ls = least_loaded(m->load_out + (size_t)op.src * LANES, m->nl[op.src]);
					ld = least_loaded(m->load_in + (size_t)op.dst * LANES, m->nl[op.dst]);
				}
				if (m->nl[op.src]) {
					size_t w = (size_t)op.src * LANES + ((size_t)ls + (size_t)j) % m->nl[op.src];
					op.nic_src = m->lane_nic[w];
					m->load_out[w] += bytes;
				}
				if (m->nl[op.dst]) {
					size_t w = (size_t)op.dst * LANES + ((size_t)ld + (size_t)j) % m->nl[op.dst];
					op.nic_dst = m->lane_nic[w];
					m->load_in[w] += bytes;
				}
			}
			op.bytes = bytes;
			op.sm = x->sm;
			op.by_dst = m->agg && m->agg->tx[i].by_dst;
			op.delay_s = starts && j < moe_lanes(m, x) ? L : 0;
			uint32_t id;
			if (ccs_dag_op(d, &op, &id))
				return CCS_ENOMEM;
			if (j == 0)
				m->first[i] = id;
		}
	}
	return CCS_OK;
}

/* Relays: a dispatch transfer with more than FAN children releases them
 * through DELAY ops, FAN each. */
static int moe_relays(struct ccs_dag *d, const struct moe_ops *m)
{
	size_t nx = m->p->nx;
	for (size_t i = 0; i < nx; i++) {
		m->relay[i] = UINT32_MAX;
		if (m->comb || m->nch[i] <= FAN)
			continue;
		uint32_t per = (m->nch[i] + FAN - 1) / FAN;
		for (int j = 0; j < m->K[i]; j++)
			for (uint32_t r = 0; r < per; r++) {
				struct ccs_op op;
				memset(&op, 0, sizeof op);
				op.kind = CCS_OP_DELAY;
				op.src = op.dst = m->comb ? m->p->x[i].dst : m->p->x[i].src;
				op.nic_src = op.nic_dst = UINT32_MAX;
				uint32_t id;
				if (ccs_dag_op(d, &op, &id))
					return CCS_ENOMEM;
				if (j == 0 && r == 0)
					m->relay[i] = id;
				if (ccs_dag_edge(d, m->first[i] + (uint32_t)j, id))
					return CCS_ENOMEM;
			}
	}
	return CCS_OK;
}

/* Dispatch forward i's op j (me) after the parent's chunks it forwards:
 * chunk j, or of a group (fwd_span) its last ones, one a lane of the
 * parent's, which the earlier ones precede; through the relays where the
 * parent has them. */
static int fwd_edges(struct ccs_dag *d, const struct moe_ops *m, size_t i, int j, uint32_t me)
{
	int32_t pi = m->p->x[i].parent;
	int lo = j, hi = j + 1;
	if (m->G[pi] > 1) {
		fwd_span(m->K[pi], m->G[pi], j, &lo, &hi);
		int lp = moe_lanes(m, &m->p->x[pi]);
		lo = hi - lp > lo ? hi - lp : lo;
	}
	for (int c = lo; c < hi; c++) {
		uint32_t from = m->first[pi] + (uint32_t)c;
		if (m->relay[pi] != UINT32_MAX) {
			uint32_t per = (m->nch[pi] + FAN - 1) / FAN;
			from = m->relay[pi] + (uint32_t)c * per + m->sib[i] / FAN;
		}
		if (ccs_dag_edge(d, from, me))
			return CCS_ENOMEM;
	}
	return CCS_OK;
}

/* The edges: chunk j after chunk j - lanes; a forward after its parent's chunk
 * (dispatch, through the relays) or before it (combine). */
static int moe_edges(struct ccs_dag *d, const struct moe_ops *m)
{
	size_t nx = m->p->nx;
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &m->p->x[i];
		int lanes = moe_lanes(m, x);
		for (int j = 0; j < m->K[i]; j++) {
			uint32_t me = m->first[i] + (uint32_t)j;
			if (j >= lanes && ccs_dag_edge(d, me - (uint32_t)lanes, me))
				return CCS_ENOMEM;
			if (x->parent < 0)
				continue;
			if (m->comb) {
				if (ccs_dag_edge(d, me, m->first[x->parent] + (uint32_t)j))
					return CCS_ENOMEM;
			} else if (fwd_edges(d, m, i, j, me)) {
				return CCS_ENOMEM;
			}
		}
	}
	return CCS_OK;
}

/* Each transfer's op count K and, for a merged dispatch piece, the group
 * its forwards take (fwd_span; 1: one op a chunk); CCS_EINPUT with *why
 * for a combine forwarder past 250 partial sums. */
static int plan_chunks(const struct moe_ops *m0, const uint32_t *nch, uint8_t *K, uint8_t *G, const char **why)
{
	const struct ccs_moe_plan *p = m0->p;
	const struct ccs_moe_agg *agg = m0->agg;
	const struct ccs_comm *c = m0->c;
	int comb = m0->comb;
	for (size_t i = 0; i < p->nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		G[i] = 1;
		if (x->parent >= 0) {
			int lo, hi, gp = G[x->parent];
			K[i] = gp > 1 ? (uint8_t)fwd_span(K[x->parent], gp, 0, &lo, &hi) : K[x->parent];
		} else {
			/* 8 chunks on one lane, 4 a lane on more (at most 16): the
			 * forwarding tail behind the last chunks stays small while
			 * the flows in flight stay few */
			int k = moe_lanes(m0, x);
			k = 8 * k;
			k = k > 32 ? 32 : k;
			/* a lone transfer across groups goes in one piece a lane
			 * where its sender has too few peers across groups to fill
			 * its lanes evenly (fewer than 8 a lane); with more, whole
			 * transfers onto the least loaded lanes balance them */
			int lone = moe_lanes(m0, x);
			if (lone > 1 && c->p * (c->G - 1) >= 8 * lone)
				lone = 1;
			/* chunks: as many as its tokens, at most k (a mean's fraction
			 * of a token rounds up) */
			int whole = x->tokens < 1 ? 1 : (int)ceil(x->tokens);
			K[i] = (uint8_t)(nch[i] ? (whole < k ? whole : k) : lone);
			/* a merged dispatch piece standing for st of its bundle's
			 * transfers (expert_agg.h) moves in chunks of the size
			 * theirs would, at most 255 (K's width; larger chunks
			 * past that); its forwards in groups of about st chunks,
			 * one wave of the transfers it stands for */
			double st = agg ? agg->tx[i].stand : 0;
			if (st > 1 && nch[i] && !comb) {
				double tb = ceil(x->tokens / st), kb = tb < k ? tb : k, kk = ceil(kb * st);
				K[i] = (uint8_t)(kk > 255 ? 255 : kk);
				long g = lround(K[i] / kb);
				G[i] = (uint8_t)(g < 1 ? 1 : g > 255 ? 255 : g);
			}
		}
		if (comb && nch[i] > 250) {
			*why = "a forwarder reduces more than 250 partial sums in one chunk";
			return CCS_EINPUT;
		}
	}
	return CCS_OK;
}

static int expert_lower(const struct ccs_comm *c, const struct ccs_moe_plan *p, const struct ccs_moe_agg *agg,
                        struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	size_t nx = p->nx;
	struct ccs_dag *d = NULL;
	uint32_t *first = ccs_malloc((nx + 1) * sizeof *first);
	uint32_t *nch = ccs_calloc(nx + 1, sizeof *nch), *sib = ccs_malloc((nx + 1) * sizeof *sib);
	uint32_t *relay = ccs_malloc((nx + 1) * sizeof *relay);
	uint8_t *K = ccs_malloc(nx + 1), *G = ccs_malloc(nx + 1);
	uint32_t *lane_nic = ccs_malloc(((size_t)c->n * LANES + 1) * sizeof *lane_nic);
	uint8_t *nl = ccs_malloc((size_t)c->n + 1);
	double *load = ccs_calloc((size_t)c->n * 2 * LANES + 1, sizeof *load);
	int rc = CCS_ENOMEM;
	*why = "out of memory";
	if (!first || !nch || !sib || !relay || !K || !G || !lane_nic || !nl || !load || ccs_dag_new(&d) ||
	    own_nics(c, lane_nic, nl))
		goto out;
	int comb = p->op == CCS_MOE_COMBINE;
	double L = ccs_moe_latency(c, p->algo);
	struct moe_ops m0 = { c, lane_nic, nl, NULL, NULL, p, agg, comb, NULL, NULL, NULL, NULL, NULL, NULL };
	for (size_t i = 0; i < nx; i++)
		if (p->x[i].parent >= 0)
			sib[i] = nch[p->x[i].parent]++;
	if (plan_chunks(&m0, nch, K, G, why)) {
		rc = CCS_EINPUT;
		goto out;
	}
	struct moe_ops m = { c, lane_nic, nl, load, load + (size_t)c->n * LANES, p, agg, comb, first, nch, sib, relay, K, G };
	if (moe_xfer_ops(d, &m, L) || moe_relays(d, &m) || moe_edges(d, &m))
		goto out;
	rc = ccs_dag_take(&d, s, why);
out:
	if (rc == CCS_ENOMEM)
		*why = "out of memory";
	ccs_dag_free(d);
	ccs_free(first);
	ccs_free(nch);
	ccs_free(sib);
	ccs_free(relay);
	ccs_free(K);
	ccs_free(G);
	ccs_free(lane_nic);
	ccs_free(nl);
	ccs_free(load);
	return rc;
}

int ccs_sched_expert(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_sched *s, const char **why)
{
	return expert_lower(c, p, NULL, s, why);
}

int ccs_sched_expert_flags(const struct ccs_comm *c, const struct ccs_moe_plan *p, int flags, struct ccs_sched *s,
                           const char **why)
{
	if (!(flags & CCS_SCHED_AGGREGATE))
		return expert_lower(c, p, NULL, s, why);
	struct ccs_moe_agg g;
	int rc = ccs_moe_agg_build(c, p, &g);
	if (rc) {
		memset(s, 0, sizeof *s);
		*why = rc == CCS_ENOMEM ? "out of memory" : "the plan's forwards are not as the planners make them: no aggregate for it";
		return rc;
	}
	rc = expert_lower(c, &g.p, &g, s, why);
	ccs_moe_agg_release(&g);
	return rc;
}
