/*
** sim/sched/a2a.c: AllToAll, NCCL's direct algorithm, as a schedule
** (sched.h).  Rank r sends S/n bytes to every other rank in NCCL's p2p
** rounds (model/p2p.h: NCCL 2.28.9+'s ncclP2pSchedule over the ranks in
** group order, each round a permutation).  NCCL's kernel takes 8 rounds a
** work batch, one channel each, and W = min(batches, p2p channels) batches
** at once (comm's a2a_wave): send k of rank r waits for send k - 8 W of r,
** giving each rank 8 W lanes that stream their rounds one after another
** (a channel's batches in turn).  Op id = i m + k for the
** rank at position i of the group order, m = n - 1 rounds.  Each send pays
** its hop's latency (NCCL's ring hop over NVLink or the network; the base
** latency on a rank's first 8); bytes on the wire are the share over the
** protocol's wire efficiency.  A send to another group goes, as NCCL's PXN
** does by default, over the scale-up fabric to the GPU of the sender's
** node on the receiver's rail and out of that GPU's NIC (CCS_NIC_PXN), so
** it stays on one rail; without PXN it leaves through the sender's own
** NICs; lane k uses the (k mod count)-th of a GPU's best NICs.
** SendRecv (nccl-tests' sendrecv) is one send: rank r sends S to r + 1
** (op id r L + w, one part per NIC).
*/
#include "a2a_agg.h"
#include "build.h"

#include "../../model/nccl_tables.h"
#include "../../model/p2p.h"

#include <math.h>
#include <string.h>


struct a2a {
	int n, m, pxn;              /* m: rounds per rank (AllToAll: n - 1; SendRecv 1) */
	int lanes;                  /* sends in flight per rank: 8 per batch x the batches at once */
	struct ccs_p2p_order o;     /* AllToAll: NCCL's rounds over positions */
	int32_t *rank_at, *pos;     /* AllToAll: the rank at each position and back */
	const int32_t *group;
	double bytes, d_intra, d_inter, d_base;
	double bytes_inter;         /* SendRecv: bytes of a send to another group */
	int L;                      /* SendRecv: parts per send, one per NIC; 0: AllToAll */
	int agg;                    /* AllToAll merged by destination leaf (a2a_agg.h): ops from g */
	int hashed;                 /* the network hashes flows onto paths (ECMP) */
	struct ccs_a2a_agg g;
	const struct ccs_comm *c;
};

/* SendRecv: op id = r L + w, part w of rank r's send to r + 1; across
 * groups part w leaves through the sender's w-th best NIC and enters the
 * receiver's (NCCL spreads a peer's channels over the GPU's NICs). */
static void sr_get(const struct a2a *a, uint64_t id, struct ccs_op *op)
{
	int r = (int)(id / (uint64_t)a->L), w = (int)(id % (uint64_t)a->L);
	int peer = (r + 1) % a->n;
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_XFER;
	op->src = r;
	op->dst = peer;
	op->channel = (uint32_t)w;
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (a->group[r] != a->group[peer]) {
		op->nic_src = ccs_comm_nic(a->c, r, w % ccs_comm_best_nics(a->c, r));
		op->nic_dst = ccs_comm_nic(a->c, peer, w % ccs_comm_best_nics(a->c, peer));
		op->bytes = a->bytes_inter / a->L;
		op->delay_s = a->d_inter;
	} else {
		op->bytes = a->bytes / a->L;
		op->delay_s = a->d_intra;
	}
}

/* The rank that r sends to (dir 1) or receives from (dir -1) in round k. */
static int peer_of(const struct a2a *a, int r, int k, int dir)
{
	return a->rank_at[ccs_p2p_peer(&a->o, a->pos[r], k, dir)];
}

static int peer_fn(const void *ctx, int r, int k)
{
	return peer_of(ctx, r, k, 1);
}

/* A send of rank r to peer in round k, standing for cnt sends of the
 * share; its hop's latency in *d (the delay is the caller's). */
static void send_op(const struct a2a *a, int r, int peer, int k, uint32_t cnt, struct ccs_op *op, double *d)
{
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_XFER;
	op->src = r;
	op->dst = peer;
	op->channel = (uint32_t)(k % a->lanes);
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (a->group[r] != a->group[peer]) {
		/* a merged op leaves from the rank that forwards it (a2a_agg.h) */
		op->nic_src = a->pxn && !a->agg ? CCS_NIC_PXN : ccs_comm_nic(a->c, r, k % ccs_comm_best_nics(a->c, r));
		op->nic_dst = ccs_comm_nic(a->c, peer, k % ccs_comm_best_nics(a->c, peer));
	}
	op->bytes = a->bytes * cnt;
	op->by_dst = cnt > 1 && a->hashed;
	*d = a->group[r] == a->group[peer] ? a->d_intra : a->d_inter;
}

static void a_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct a2a *a = s->ctx;
	if (a->L) {
		sr_get(a, id, op);
		return;
	}
	double d;
	if (a->agg) {
		/* A merged op or hop waits for nothing and starts after the
		 * latency chain of the lane of its last send, (kl / lanes) sends
		 * before it.  A send within the group waits for the one before it
		 * in its lane, if any, and the latency of the merged sends between
		 * them (before it, where it is the first) */
		const struct ccs_a2a_op *g = &a->g.op[id];
		int k = (int)g->k;
		send_op(a, g->src, g->dst, k, g->cnt, op, &d);
		if (!g->send) {
			op->delay_s = d * (1 + (int)g->klast / a->lanes) + a->d_base;
			return;
		}
		int kp = g->kprev != CCS_A2A_NONE ? (int)g->kprev : k % a->lanes - a->lanes;
		op->delay_s = d + a->d_inter * ((k - kp) / a->lanes - 1) + (g->kprev == CCS_A2A_NONE ? a->d_base : 0);
		return;
	}
	uint64_t m = (uint64_t)a->m;
	int r = a->rank_at[id / m], k = (int)(id % m);
	send_op(a, r, peer_of(a, r, k, 1), k, 1, op, &d);
	op->delay_s = d + (k < a->lanes ? a->d_base : 0);
}

static int a_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct a2a *a = s->ctx;
	uint64_t m = (uint64_t)a->m;
	if (a->agg) {
		const struct ccs_a2a_op *g = &a->g.op[id];
		if (g->next == CCS_A2A_NONE)
			return 0;
		out[0] = a->g.off[a->pos[g->src]] + g->next;
		return 1;
	}
	if (id % m + (uint64_t)a->lanes >= m)
		return 0;
	out[0] = id + (uint64_t)a->lanes;
	return 1;
}

static uint32_t a_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct a2a *a = s->ctx;
	if (a->agg)
		return a->g.op[id].kprev != CCS_A2A_NONE;
	return id % (uint64_t)a->m >= (uint64_t)a->lanes;
}

static void a_release(struct ccs_sched *s)
{
	struct a2a *a = s->ctx;
	if (a) {
		ccs_p2p_order_release(&a->o);
		ccs_free(a->rank_at);
		ccs_free(a->pos);
		ccs_a2a_agg_release(&a->g);
	}
	ccs_free(s->ctx);
	memset(s, 0, sizeof *s);
}

/* SendRecv's lane view (sched.h): lane l is op l, part w of rank r's send.
 * AllToAll has none: its sends are lanes of one op each, and the fabric's
 * symmetry lumps too few of them to pay (docs/simulator.md). */
static int a_lanes(const struct ccs_sched *s, struct ccs_sched_lanes *out)
{
	const struct a2a *a = s->ctx;
	return a->L ? ccs_sched_lanes_single(s->nops, out) : 0;
}

static const struct ccs_sched_ops a_ops = { a_get, a_succ, a_ndeps, a_release, NULL, a_lanes };

/* The ranks in group order (positions) and NCCL's rounds over them. */
static int p2p_order(struct a2a *a, const struct ccs_comm *c)
{
	int32_t *gstart = NULL, *members = NULL, *sizes = NULL;
	int rc = ccs_comm_members(c, &gstart, &members);
	if (rc)
		return rc;
	rc = CCS_ENOMEM;
	a->pos = ccs_malloc((size_t)c->n * sizeof *a->pos);
	sizes = ccs_malloc(((size_t)c->G + 1) * sizeof *sizes);
	if (!a->pos || !sizes)
		goto out;
	for (int i = 0; i < c->n; i++)
		a->pos[members[i]] = i;
	for (int g = 0; g < c->G; g++)
		sizes[g] = gstart[g + 1] - gstart[g];
	if ((rc = ccs_p2p_order_init(&a->o, c->n, sizes, c->G)))
		goto out;
	a->rank_at = members;
	members = NULL;
	a->m = a->o.m;
out:
	ccs_free(gstart);
	ccs_free(members);
	ccs_free(sizes);
	return rc;
}

int ccs_sched_a2a(const struct ccs_comm *c, int coll, int proto, uint64_t bytes, int flags, struct ccs_sched *s,
                  const char **why)
{
	memset(s, 0, sizeof *s);
	if (c->n < 2) {
		*why = coll == CCS_COLL_SENDRECV ? "sendrecv needs two ranks or more" : "alltoall needs two ranks or more";
		return CCS_EINPUT;
	}
	struct a2a *a = ccs_calloc(1, sizeof *a);
	if (!a) {
		*why = "out of memory";
		return CCS_ENOMEM;
	}
	double e = ccs_nccl_proto_data_share(proto);
	a->n = c->n;
	a->m = coll == CCS_COLL_SENDRECV ? 1 : c->n - 1;
	a->lanes = CCS_P2P_BATCH * (c->a2a_wave > 0 ? c->a2a_wave : 1);
	a->pxn = !(flags & CCS_SCHED_NO_PXN);
	a->group = c->rank_group;
	a->bytes = (double)bytes / (coll == CCS_COLL_SENDRECV ? 1 : c->n) / e;
	a->d_base = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, proto, 0, 0);
	a->d_intra = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, proto, 1, 0) - a->d_base;
	a->d_inter = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, proto, 0, 1) - a->d_base +
	             ccs_cost_rdv_of(c, coll, CCS_ALGO_DIRECT, proto, 0, bytes);
	if (coll == CCS_COLL_SENDRECV) {
		/* As the closed form counts them: a send inside a group moves S at
		 * min(b_su e, protocol cap) (bytes scaled so that the flow at b_su
		 * takes that long), one across groups at the NIC's b_nic e unless
		 * the GPU side (the protocol cap) is slower; each pays the
		 * latency of its one hop, and of the chunk steps what the closed
		 * form's max(GPU side + steps, network) leaves over the flow */
		double S = (double)bytes, cap = ccs_cost_proto_cap(c, CCS_ALGO_DIRECT, proto);
		double bi = c->b_su * e < cap ? c->b_su * e : cap;
		a->bytes = c->b_su > 0 ? S * c->b_su / bi : S / e;
		a->bytes_inter = c->b_nic1 > 0 && isfinite(cap) && cap < c->b_nic1 * e ? S * c->b_nic1 / cap : S / e;
		double C = ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
		double K = ceil(S / (C * ccs_cost_chunk(c, coll, CCS_ALGO_DIRECT, proto, (int)C, S)));
		double step = (K < 1 ? 1 : K) * c->prm.step_s[proto];
		double t_in = c->b_su > 0 ? S / bi : 0;
		double t_cap = isfinite(cap) ? S / cap : 0, t_net = c->b_nic1 > 0 ? S / (c->b_nic1 * e) : 0;
		double t_flow = t_net > t_cap ? t_net : t_cap;
		a->d_intra += a->d_base + (t_in > 0 ? step : 0);
		a->d_inter += a->d_base + (t_cap + step > t_flow ? t_cap + step - t_flow : 0);
		a->d_base = 0;
		a->L = c->G > 1 ? ccs_comm_fewest_nics(c, 64) : 1;
		if (a->L < 1)
			a->L = 1;
	}
	a->c = c;
	if (coll == CCS_COLL_ALLTOALL) {
		int rc = p2p_order(a, c);
		if (rc || ((flags & CCS_SCHED_AGGREGATE) && (rc = ccs_a2a_agg_build(c, a->rank_at, a->m, a->lanes, a->pxn && c->intra_nvl && c->p > 1, peer_fn, a, &a->g)))) {
			struct ccs_sched tmp = { .ctx = a };
			a_release(&tmp);
			*why = "out of memory";
			return rc;
		}
		a->agg = (flags & CCS_SCHED_AGGREGATE) != 0;
		a->hashed = ccs_topo_routing(c->t) == CCS_ROUTE_ECMP;
	}
	s->ctx = a;
	s->nops = a->agg ? a->g.nops : (uint64_t)c->n * (uint64_t)(a->L ? a->L : a->m);
	s->ops = &a_ops;
	return CCS_OK;
}
