/* sim/classes_sched.c: the class schedule (classes.h): class op t Q + q is
** lane rep(q)'s op t, waiting for the class ops of its members'
** dependencies. */
#include "classes.h"
#include "classes_int.h"

#include <string.h>

static uint64_t orig_id(const struct ccs_classes *k, uint64_t qid)
{
	return k->ln.id(k->s, qid / k->Q, k->rep[qid % k->Q]);
}

static void q_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct ccs_classes *k = s->ctx;
	if (ccs_classes_absent(k, id)) {
		memset(op, 0, sizeof *op);
		op->kind = CCS_OP_DELAY;
		op->src = op->dst = -1;
		op->nic_src = op->nic_dst = UINT32_MAX;
		return;
	}
	ccs_sched_get(k->s, orig_id(k, id), op);
}

static uint32_t q_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct ccs_classes *k = s->ctx;
	if (ccs_classes_absent(k, id))
		return 0;
	uint64_t t = id / k->Q;
	uint32_t q = (uint32_t)(id % k->Q), n = 0;
	for (int j = 0; j < k->ln.ndep; j++)
		if (t >= k->ln.dt[j])
			n += k->doff[j][q + 1] - k->doff[j][q];
	return n;
}

static int q_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct ccs_classes *k = s->ctx;
	uint64_t t = id / k->Q;
	uint32_t q = (uint32_t)(id % k->Q);
	int m = 0;
	for (int j = 0; j < k->ln.ndep; j++) {
		if (t + k->ln.dt[j] >= k->ln.T)
			continue;
		for (uint32_t x = k->qoff[j][q]; x < k->qoff[j][q + 1]; x++) {
			uint64_t nx = (t + k->ln.dt[j]) * k->Q + k->qs[j][x];
			if (!ccs_classes_absent(k, nx))
				out[m++] = nx;
		}
	}
	return m;
}

static double q_mem(const struct ccs_sched *s, uint64_t id)
{
	const struct ccs_classes *k = s->ctx;
	return ccs_classes_absent(k, id) ? 0 : ccs_sched_mem(k->s, orig_id(k, id));
}

static void q_release(struct ccs_sched *s) { memset(s, 0, sizeof *s); }

static const struct ccs_sched_ops q_ops = { q_get, q_succ, q_ndeps, q_release, q_mem, NULL };

int ccs_classes_sched(struct ccs_classes *k, uint32_t max_wait, struct ccs_sched *q, const char **why)
{
	uint32_t most = 0;
	for (uint32_t c = 0; c < k->Q; c++) {
		uint32_t nd = 0, ns = 0;
		for (int j = 0; j < k->ln.ndep; j++) {
			nd += k->doff[j][c + 1] - k->doff[j][c];
			ns += k->qoff[j][c + 1] - k->qoff[j][c];
		}
		if (nd > max_wait) {
			*why = "a class waits on more classes than an exact run lets it (255)";
			return CCS_EINPUT;
		}
		most = ns > most ? ns : most;
	}
	memset(q, 0, sizeof *q);
	q->nops = k->ln.T * k->Q;
	q->ctx = k;
	q->ops = &q_ops;
	q->mem_per_byte = k->s->mem_per_byte;
	q->maxsucc = most;
	return CCS_OK;
}

