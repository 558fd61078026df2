/*
** sim/sched_a2a.c: AllToAll, NCCL's direct algorithm, as a schedule
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
*/
#include "sched.h"
#include "fabric.h"

#include "../model/nccl_tables.h"

#include <string.h>

#define LANES 8

struct a2a {
	int n, pxn;
	const int32_t *group;
	double bytes, d_intra, d_inter, d_base;
};

static void a_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct a2a *a = s->ctx;
	uint64_t m = (uint64_t)a->n - 1;
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
	uint64_t m = (uint64_t)a->n - 1;
	if (id % m + LANES >= m)
		return 0;
	out[0] = id + LANES;
	return 1;
}

static uint32_t a_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct a2a *a = s->ctx;
	return id % ((uint64_t)a->n - 1) >= LANES;
}

static void a_release(struct ccs_sched *s)
{
	ccs_free(s->ctx);
	memset(s, 0, sizeof *s);
}

int ccs_sched_alltoall(const struct ccs_comm *c, int proto, uint64_t bytes, int pxn, struct ccs_sched *s,
                       const char **why)
{
	memset(s, 0, sizeof *s);
	if (c->n < 2) {
		*why = "alltoall needs two ranks or more";
		return CCS_EINPUT;
	}
	struct a2a *a = ccs_calloc(1, sizeof *a);
	if (!a) {
		*why = "out of memory";
		return CCS_ENOMEM;
	}
	double e = proto == CCS_PROTO_LL ? 0.5 : proto == CCS_PROTO_LL128 ? 120.0 / 128.0 : 1.0;
	a->n = c->n;
	a->pxn = pxn;
	a->group = c->rank_group;
	a->bytes = (double)bytes / c->n / e;
	a->d_base = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 0, 0);
	a->d_intra = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 1, 0) - a->d_base;
	a->d_inter = ccs_nccl_latency(c, CCS_ALGO_RING, proto, 0, 1) - a->d_base;
	s->ctx = a;
	s->nops = (uint64_t)c->n * (uint64_t)(c->n - 1);
	s->get = a_get;
	s->succ = a_succ;
	s->ndeps = a_ndeps;
	s->release = a_release;
	return CCS_OK;
}
