/* model/step.c: one training step's collectives (step.h). */
#include "step.h"

#include "coll.h"

#include <stdio.h>

int ccs_step_rank(const struct ccs_step_cfg *c, int kind, int g, int i)
{
	int tp, dp, pp;
	switch (kind) {
	case CCS_STEP_TP:       /* g over (dp, pp), i = tp */
		tp = i;
		dp = g % c->dp;
		pp = g / c->dp;
		break;
	case CCS_STEP_PP:       /* g over (tp, dp), i = pp */
		tp = g % c->tp;
		dp = g / c->tp;
		pp = i;
		break;
	default:                /* DP: g over (tp, pp), i = dp */
		tp = g % c->tp;
		pp = g / c->tp;
		dp = i;
		break;
	}
	return tp + c->tp * (dp + c->dp * pp);
}

int ccs_step_expand(const struct ccs_step_cfg *c, struct ccs_step_coll *out, int *n, char *err, unsigned long errn)
{
	*n = 0;
	if (c->tp < 1 || c->pp < 1 || c->dp < 1 || c->layers < 1 || c->hidden < 1 || c->seq < 1 || c->micro_batch < 1 ||
	    c->micro_batches < 1) {
		snprintf(err, errn, "tp, pp, dp, layers, hidden, seq, micro_batch and micro_batches must all be at least 1");
		return -1;
	}
	if (c->layers % c->pp) {
		snprintf(err, errn, "%d layers do not split evenly over %d pipeline stages", c->layers, c->pp);
		return -1;
	}
	if (c->zero < 0 || c->zero > 3) {
		snprintf(err, errn, "ZeRO stage %d: 0, 1, 2 or 3", c->zero);
		return -1;
	}
	double P = c->params > 0 ? c->params : 12.0 * c->layers * (double)c->hidden * (double)c->hidden;
	uint64_t act = (uint64_t)c->micro_batch * (uint64_t)c->seq * (uint64_t)c->hidden * 2u;
	uint64_t lps = (uint64_t)(c->layers / c->pp), m = (uint64_t)c->micro_batches;
	if (c->tp > 1)
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_TP, CCS_COLL_ALLREDUCE, act, 4 * lps * m, c->tp,
		                                      c->dp * c->pp, "attention and MLP outputs, forward and backward" };
	if (c->pp > 1)
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_PP, CCS_COLL_SENDRECV, act / (uint64_t)c->tp,
		                                      2 * m * (uint64_t)(c->pp - 1), c->pp, c->dp * c->tp,
		                                      "activations forward, their gradients backward" };
	if (c->dp > 1) {
		uint64_t g = (uint64_t)(P / (c->tp * c->pp) * 2.0);
		int groups = c->tp * c->pp;
		if (c->zero == 0)
			out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_DP, CCS_COLL_ALLREDUCE, g, 1, c->dp, groups,
			                                      "gradients" };
		else {
			out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_DP, CCS_COLL_REDUCESCATTER, g, 1, c->dp, groups,
			                                      "gradient shards" };
			out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_DP, CCS_COLL_ALLGATHER, g, c->zero == 3 ? 2 : 1, c->dp,
			                                      groups,
			                                      c->zero == 3 ? "parameters before forward and before backward"
			                                                   : "updated parameter shards" };
		}
	}
	return 0;
}
