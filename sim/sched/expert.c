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
** for chunk j of every partial sum it reduces.  Transfers with no forward
** are one op.  The first op of every chain waits the plan's fixed latency
** (ccs_moe_latency); a parent with more than 62 forwards reaches them
** through relay waits (an op releases at most CCS_SCHED_MAXSUCC).
*/
#include "sched.h"

#include "../../model/moe.h"

#include <string.h>

#define FAN 62

/* ccs_sched_moe's arrays, per transfer: its first op (the K chunks follow
 * it), its children and its index among its parent's, the first relay
 * (dispatch fan-out above FAN), K. */
struct moe_ops {
	const struct ccs_moe_plan *p;
	int comb;
	uint32_t *first, *nch, *sib, *relay;
	uint8_t *K;
};

/* The ops: K per transfer, a chain's first paying the latency L. */
static int moe_xfer_ops(struct ccs_dag *d, const struct moe_ops *m, double L)
{
	size_t nx = m->p->nx;
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &m->p->x[i];
		double bytes = x->tokens * m->p->tok_bytes / m->K[i];
		/* a chain starts at a transfer with no predecessor: dispatch's
		 * parents and lone transfers, combine's forwards and lone ones */
		int starts = m->comb ? (x->parent >= 0 || !m->nch[i]) : x->parent < 0;
		for (int j = 0; j < m->K[i]; j++) {
			struct ccs_op op;
			memset(&op, 0, sizeof op);
			op.kind = CCS_OP_XFER;
			op.src = m->comb ? x->dst : x->src;
			op.dst = m->comb ? x->src : x->dst;
			op.nic_src = op.nic_dst = UINT32_MAX;
			op.bytes = bytes;
			op.sm = x->sm;
			op.delay_s = starts && j == 0 ? L : 0;
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

/* The edges: chunk j after chunk j - 1; a forward after its parent's chunk
 * (dispatch, through the relays) or before it (combine). */
static int moe_edges(struct ccs_dag *d, const struct moe_ops *m)
{
	size_t nx = m->p->nx;
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &m->p->x[i];
		for (int j = 0; j < m->K[i]; j++) {
			uint32_t me = m->first[i] + (uint32_t)j;
			if (j > 0 && ccs_dag_edge(d, me - 1, me))
				return CCS_ENOMEM;
			if (x->parent < 0)
				continue;
			uint32_t par = m->first[x->parent] + (uint32_t)j;
			if (m->comb) {
				if (ccs_dag_edge(d, me, par))
					return CCS_ENOMEM;
			} else if (m->relay[x->parent] != UINT32_MAX) {
				uint32_t per = (m->nch[x->parent] + FAN - 1) / FAN;
				if (ccs_dag_edge(d, m->relay[x->parent] + (uint32_t)j * per + m->sib[i] / FAN, me))
					return CCS_ENOMEM;
			} else if (ccs_dag_edge(d, par, me)) {
				return CCS_ENOMEM;
			}
		}
	}
	return CCS_OK;
}

int ccs_sched_moe(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	size_t nx = p->nx;
	struct ccs_dag *d = NULL;
	uint32_t *first = ccs_malloc((nx + 1) * sizeof *first);
	uint32_t *nch = ccs_calloc(nx + 1, sizeof *nch), *sib = ccs_malloc((nx + 1) * sizeof *sib);
	uint32_t *relay = ccs_malloc((nx + 1) * sizeof *relay);
	uint8_t *K = ccs_malloc(nx + 1);
	int rc = CCS_ENOMEM;
	*why = "out of memory";
	if (!first || !nch || !sib || !relay || !K || ccs_dag_new(&d))
		goto out;
	int comb = p->op == CCS_MOE_COMBINE;
	double L = ccs_moe_latency(c, p->algo);
	for (size_t i = 0; i < nx; i++)
		if (p->x[i].parent >= 0)
			sib[i] = nch[p->x[i].parent]++;
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		if (x->parent >= 0)
			K[i] = K[x->parent];
		else
			K[i] = (uint8_t)(nch[i] ? (x->tokens < 8 ? (x->tokens ? x->tokens : 1) : 8) : 1);
		if (comb && nch[i] > 250) {
			rc = CCS_EINPUT;
			*why = "a forwarder reduces more than 250 partial sums in one chunk";
			goto out;
		}
	}
	struct moe_ops m = { p, comb, first, nch, sib, relay, K };
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
	return rc;
}
