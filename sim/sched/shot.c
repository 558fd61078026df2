/*
** sim/sched/shot.c: one-shot and two-shot AllReduce inside one scale-up
** domain (the custom AllReduce kernels of inference engines).
**
** One-shot, per rank r:  start_r (DELAY: kernel fixed cost and the start
** barrier) -> XFER r -> j of S for every peer j (the peer's loads of r's
** buffer, all at once) -> end_j (DELAY: the end barrier) once j has all
** p - 1.  Two-shot: start_r -> XFER r -> j of S/p (j's share of the
** reduce-scatter) -> mid_j (barrier) -> XFER j -> k of S/p (the all-gather
** of j's reduced share) -> end_k.  A barrier that releases more than
** CCS_SCHED_MAXSUCC transfers is split into equal DELAY ops that each
** release up to that many.  Latencies come from ccs_cost_term_shot_lat, bytes
** from the closed form's W (two-shot's: divided by model.twoshot_efficiency,
** the share of the link its kernels reach), so both engines count the same.
*/
#include "build.h"

#include "../../model/cost_term.h"

#include <string.h>

/* Barrier ops of rank r, each releasing up to MAXSUCC of its peers' XFERs:
 * ids in out[0..k), k = ceil((n - 1) / MAXSUCC). */
static int barrier(struct ccs_dag *d, int r, double delay, uint32_t *out, int *k, int n)
{
	struct ccs_op op;
	memset(&op, 0, sizeof op);
	op.kind = CCS_OP_DELAY;
	op.src = op.dst = r;
	op.nic_src = op.nic_dst = UINT32_MAX;
	op.delay_s = delay;
	*k = (n - 1 + CCS_SCHED_MAXSUCC - 1) / CCS_SCHED_MAXSUCC;
	for (int b = 0; b < *k; b++)
		CCS_TRY(ccs_dag_op(d, &op, &out[b]));
	return CCS_OK;
}

/* From each rank's barrier ops, XFERs of 'bytes' to every peer; each
 * peer's next barrier (delay next_delay, next[] per rank) waits for all p - 1
 * arriving.  first: the barrier ops of each rank, kb per rank. */
static int phase(struct ccs_dag *d, int n, double bytes, const uint32_t *first, int kb, double next_delay,
                 uint32_t *next)
{
	struct ccs_op x;
	memset(&x, 0, sizeof x);
	x.kind = CCS_OP_XFER;
	x.nic_src = x.nic_dst = UINT32_MAX;
	x.bytes = bytes;
	int k;
	for (int r = 0; r < n; r++)
		CCS_TRY(barrier(d, r, next_delay, &next[(size_t)r * kb], &k, n));
	for (int r = 0; r < n; r++) {
		int m = 0;
		for (int j = 0; j < n; j++) {
			if (j == r)
				continue;
			x.src = r;
			x.dst = j;
			uint32_t id;
			CCS_TRY(ccs_dag_op(d, &x, &id));
			CCS_TRY(ccs_dag_edge(d, first[(size_t)r * kb + m / CCS_SCHED_MAXSUCC], id));
			m++;
			for (int b = 0; b < kb; b++)
				CCS_TRY(ccs_dag_edge(d, id, next[(size_t)j * kb + b]));
		}
	}
	return CCS_OK;
}

int ccs_sched_shot(const struct ccs_comm *c, int algo, int proto, uint64_t bytes, struct ccs_sched *s,
                   const char **why)
{
	struct ccs_cost cc;
	if (ccs_cost_eval(c, CCS_COLL_ALLREDUCE, algo, proto, 0, bytes, &cc, why))
		return CCS_EINPUT;
	int n = c->n;
	double start, stage;
	ccs_cost_term_shot_lat(c, algo, &start, &stage);
	int kb = (n - 1 + CCS_SCHED_MAXSUCC - 1) / CCS_SCHED_MAXSUCC;
	struct ccs_dag *d = NULL;
	uint32_t *b0 = ccs_malloc((size_t)n * kb * sizeof *b0), *b1 = ccs_malloc((size_t)n * kb * sizeof *b1);
	uint32_t *b2 = ccs_malloc((size_t)n * kb * sizeof *b2);
	int rc = CCS_ENOMEM, k;
	if (!b0 || !b1 || !b2 || ccs_dag_new(&d))
		goto out;
	double S = (double)bytes;
	for (int r = 0; r < n; r++)
		if ((rc = barrier(d, r, start, &b0[(size_t)r * kb], &k, n)))
			goto out;
	if (algo == CCS_ALGO_ONESHOT) {
		if ((rc = phase(d, n, S, b0, kb, stage, b1)))
			goto out;
	} else {
		/* the kernels' shortfall as wire bytes, as protocols' are */
		double w = S / n / c->prm.twoshot_eff;
		if ((rc = phase(d, n, w, b0, kb, stage, b1)) || (rc = phase(d, n, w, b1, kb, stage, b2)))
			goto out;
	}
	rc = ccs_dag_take(&d, s, why);
out:
	if (rc == CCS_ENOMEM)
		*why = "out of memory";
	ccs_dag_free(d);
	ccs_free(b0);
	ccs_free(b1);
	ccs_free(b2);
	return rc;
}
