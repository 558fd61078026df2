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
	/* the ops: K per transfer, then the relays */
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		double bytes = x->tokens * p->tok_bytes / K[i];
		/* a chain starts at a transfer with no predecessor: dispatch's
		 * parents and lone transfers, combine's forwards and lone ones */
		int starts = comb ? (x->parent >= 0 || !nch[i]) : x->parent < 0;
		for (int j = 0; j < K[i]; j++) {
			struct ccs_op op;
			memset(&op, 0, sizeof op);
			op.kind = CCS_OP_XFER;
			op.src = comb ? x->dst : x->src;
			op.dst = comb ? x->src : x->dst;
			op.nic_src = op.nic_dst = UINT32_MAX;
			op.bytes = bytes;
			op.sm = x->sm;
			op.delay_s = starts && j == 0 ? L : 0;
			uint32_t id;
			if (ccs_dag_op(d, &op, &id))
				goto out;
			if (j == 0)
				first[i] = id;
		}
	}
	for (size_t i = 0; i < nx; i++) {
		relay[i] = UINT32_MAX;
		if (comb || nch[i] <= FAN)
			continue;
		uint32_t per = (nch[i] + FAN - 1) / FAN;
		for (int j = 0; j < K[i]; j++)
			for (uint32_t r = 0; r < per; r++) {
				struct ccs_op op;
				memset(&op, 0, sizeof op);
				op.kind = CCS_OP_DELAY;
				op.src = op.dst = comb ? p->x[i].dst : p->x[i].src;
				op.nic_src = op.nic_dst = UINT32_MAX;
				uint32_t id;
				if (ccs_dag_op(d, &op, &id))
					goto out;
				if (j == 0 && r == 0)
					relay[i] = id;
				if (ccs_dag_edge(d, first[i] + (uint32_t)j, id))
					goto out;
			}
	}
	/* the edges */
	for (size_t i = 0; i < nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		for (int j = 0; j < K[i]; j++) {
			uint32_t me = first[i] + (uint32_t)j;
			if (j > 0 && ccs_dag_edge(d, me - 1, me))
				goto out;
			if (x->parent < 0)
				continue;
			uint32_t par = first[x->parent] + (uint32_t)j;
			if (comb) {
				if (ccs_dag_edge(d, me, par))
					goto out;
			} else if (relay[x->parent] != UINT32_MAX) {
				uint32_t per = (nch[x->parent] + FAN - 1) / FAN;
				if (ccs_dag_edge(d, relay[x->parent] + (uint32_t)j * per + sib[i] / FAN, me))
					goto out;
			} else if (ccs_dag_edge(d, par, me)) {
				goto out;
			}
		}
	}
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
