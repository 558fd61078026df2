/*
** sim/sched/a2a.c: AllToAll, NCCL's direct algorithm, as a schedule
** (sched.h).  Rank r sends S/n bytes to every other rank; its k-th send
** (k = 0 .. n-2) goes to rank (r + k + 1) mod n, so that at every moment
** the ranks' destinations are spread over the ranks.  NCCL posts up to 8
** peers at a time: send k waits for send k - 8 of the same rank, giving
** each rank 8 lanes that stream their peers one after another.  Op id =
** r (n - 1) + k.  Each send pays its hop's latency (NCCL's ring hop over
** NVLink or the network; the base latency on a rank's first 8); bytes on
** the wire are the share over the protocol's wire efficiency.  A send to
** another group goes, as NCCL's PXN does by default, over the scale-up
** fabric to the sender-side GPU on the receiver's rail and out of that
** GPU's NIC (CCS_NIC_PXN), so it stays on one rail; without PXN it leaves
** through the sender's own NIC and crosses the spine to another rail.
** SendRecv (nccl-tests' sendrecv) is the same with one peer: rank r sends
** S to r + 1 (op id r).
*/
#include "sched.h"
#include "../fabric.h"

#include "../../model/nccl_tables.h"

#include <math.h>
#include <string.h>

#define LANES 8

struct a2a {
	int n, m, pxn;              /* m: peers per rank (n - 1; SendRecv 1) */
	const int32_t *group;
	double bytes, d_intra, d_inter, d_base;
	double bytes_inter;         /* SendRecv: bytes of a send to another group */
	int L;                      /* SendRecv: parts per send, one per NIC; 0: AllToAll */
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

static void a_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct a2a *a = s->ctx;
	if (a->L) {
		sr_get(a, id, op);
		return;
	}
	uint64_t m = (uint64_t)a->m;
	int r = (int)(id / m), k = (int)(id % m);
	int peer = (r + k + 1) % a->n;
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_XFER;
	op->src = r;
	op->dst = peer;
	op->channel = (uint32_t)(k % LANES);
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (a->pxn && a->group[r] != a->group[peer])
		op->nic_src = CCS_NIC_PXN;
	op->bytes = a->bytes;
	op->delay_s = a->group[r] == a->group[peer] ? a->d_intra : a->d_inter;
	if (k < LANES)
		op->delay_s += a->d_base;
}

static int a_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct a2a *a = s->ctx;
	uint64_t m = (uint64_t)a->m;
	if (id % m + LANES >= m)
		return 0;
	out[0] = id + LANES;
	return 1;
}

static uint32_t a_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct a2a *a = s->ctx;
	return id % (uint64_t)a->m >= LANES;
}

static void a_release(struct ccs_sched *s)
{
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

int ccs_sched_alltoall(const struct ccs_comm *c, int coll, int proto, uint64_t bytes, int pxn, struct ccs_sched *s,
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
	double e = proto == CCS_PROTO_LL ? 0.5 : proto == CCS_PROTO_LL128 ? 120.0 / 128.0 : 1.0;
	a->n = c->n;
	a->m = coll == CCS_COLL_SENDRECV ? 1 : c->n - 1;
	a->pxn = pxn;
	a->group = c->rank_group;
	a->bytes = (double)bytes / (coll == CCS_COLL_SENDRECV ? 1 : c->n) / e;
	a->d_base = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 0, 0);
	a->d_intra = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 1, 0) - a->d_base;
	a->d_inter = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 0, 1) - a->d_base;
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
		double C = ccs_nccl_channels(c, CCS_ALGO_RING);
		double K = ceil(S / (C * ccs_cost_chunk(c, coll, CCS_ALGO_DIRECT, proto, (int)C, S)));
		double step = (K < 1 ? 1 : K) * c->prm.step_s[proto];
		double t_in = c->b_su > 0 ? S / bi : 0;
		double t_cap = isfinite(cap) ? S / cap : 0, t_net = c->b_nic1 > 0 ? S / (c->b_nic1 * e) : 0;
		double t_flow = t_net > t_cap ? t_net : t_cap;
		a->d_intra += a->d_base + (t_in > 0 ? step : 0);
		a->d_inter += a->d_base + (t_cap + step > t_flow ? t_cap + step - t_flow : 0);
		a->d_base = 0;
		a->c = c;
		a->L = c->G > 1 ? ccs_comm_fewest_nics(c, 64) : 1;
		if (a->L < 1)
			a->L = 1;
	}
	s->ctx = a;
	s->nops = (uint64_t)c->n * (uint64_t)(a->L ? a->L : a->m);
	s->ops = &a_ops;
	return CCS_OK;
}
