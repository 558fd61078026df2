/* model/step.c: one step's collectives (step.h). */
#include "step.h"

#include "coll.h"

#include <stdio.h>

const char *const ccs_step_kind_name[CCS_STEP_KINDS] = { "TP", "CP", "EP", "PP", "DP", "EDP" };

static int cp_of(const struct ccs_step_cfg *c) { return c->cp > 1 ? c->cp : 1; }
static int ep_of(const struct ccs_step_cfg *c) { return c->ep > 1 ? c->ep : 1; }

int ccs_step_rank(const struct ccs_step_cfg *c, int kind, int g, int i)
{
	int TP = c->tp, CP = cp_of(c), DP = c->dp, EP = ep_of(c);
	int tp, cp, dp, pp;
	switch (kind) {
	case CCS_STEP_TP:       /* g over (cp, dp, pp), i = tp */
		tp = i;
		cp = g % CP;
		dp = g / CP % DP;
		pp = g / CP / DP;
		break;
	case CCS_STEP_CP:       /* g over (tp, dp, pp), i = cp */
		tp = g % TP;
		dp = g / TP % DP;
		pp = g / TP / DP;
		cp = i;
		break;
	case CCS_STEP_EP:       /* g over (tp, cp, d, pp), i = e: dp = e + EP d */
		tp = g % TP;
		cp = g / TP % CP;
		dp = i + EP * (g / TP / CP % (DP / EP));
		pp = g / TP / CP / (DP / EP);
		break;
	case CCS_STEP_PP:       /* g over (tp, cp, dp), i = pp */
		tp = g % TP;
		cp = g / TP % CP;
		dp = g / TP / CP;
		pp = i;
		break;
	case CCS_STEP_EDP:      /* g over (tp, e, pp), i over (cp, d) */
		tp = g % TP;
		pp = g / TP / EP;
		cp = i % CP;
		dp = g / TP % EP + EP * (i / CP);
		break;
	default:                /* DP: g over (tp, pp), i over (cp, dp) */
		tp = g % TP;
		pp = g / TP;
		cp = i % CP;
		dp = i / CP;
		break;
	}
	return tp + TP * (cp + CP * (dp + DP * pp));
}

/* The step's collectives per group kind (step.h), with Megatron's rank
 * placement.  One idea: one table of group kinds, each row a few lines. */
int ccs_step_expand(const struct ccs_step_cfg *c, struct ccs_step_coll *out, int *n, char *err, unsigned long errn)
{
	*n = 0;
	if (c->tp < 1 || c->pp < 1 || c->dp < 1 || c->layers < 1 || c->hidden < 1 || c->seq < 1 || c->micro_batch < 1 ||
	    c->micro_batches < 1 || c->cp < 0 || c->ep < 0 || c->topk < 0 || c->moe_every < 0 || c->kv_hidden < 0 ||
	    c->expert_params < 0) {
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
	int TP = c->tp, CP = cp_of(c), EP = ep_of(c), PP = c->pp, DP = c->dp;
	if (DP % EP) {
		snprintf(err, errn, "expert parallelism %d does not divide data parallelism %d", EP, DP);
		return -1;
	}
	if (c->seq % CP) {
		snprintf(err, errn, "sequence %ld does not split evenly over %d context-parallel ranks", c->seq, CP);
		return -1;
	}
	if (CP > 1 && c->phase == CCS_STEP_DECODE) {
		snprintf(err, errn, "context parallelism applies to training and prefill, not decode");
		return -1;
	}
	double P = c->params > 0 ? c->params : 12.0 * c->layers * (double)c->hidden * (double)c->hidden;
	double Pe = EP > 1 ? c->expert_params : 0;
	if (Pe > P) {
		snprintf(err, errn, "%.4g expert parameters of %.4g in all", Pe, P);
		return -1;
	}
	int train = c->phase == CCS_STEP_TRAIN;
	uint64_t h = (uint64_t)c->hidden, b = (uint64_t)c->micro_batch;
	uint64_t tok = c->phase == CCS_STEP_DECODE ? b : b * (uint64_t)c->seq / (uint64_t)CP;
	uint64_t act = tok * h * 2u;
	uint64_t lps = (uint64_t)(c->layers / PP), m = (uint64_t)c->micro_batches;
	int every = c->moe_every > 0 ? c->moe_every : 1;
	/* MoE layers of a stage: layers k (1-based) with k % every == 0 */
	uint64_t moe = lps / (uint64_t)every;
	int n_all = TP * CP * PP * DP;
	if (TP > 1)
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_TP, CCS_COLL_ALLREDUCE, act, (train ? 4 : 2) * lps * m, TP,
		                                      n_all / TP,
		                                      train ? "attention and MLP outputs, forward and backward"
		                                            : "attention and MLP outputs" };
	if (CP > 1) {
		uint64_t kv = (uint64_t)(c->kv_hidden > 0 ? c->kv_hidden : c->hidden);
		uint64_t kvb = b * (uint64_t)c->seq * 2u * kv * 2u / (uint64_t)TP;
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_CP, CCS_COLL_ALLGATHER, kvb, (train ? 2 : 1) * lps * m, CP,
		                                      n_all / CP,
		                                      train ? "keys and values, forward and backward" : "keys and values" };
		if (train)
			out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_CP, CCS_COLL_REDUCESCATTER, kvb, lps * m, CP, n_all / CP,
			                                      "key and value gradients" };
	}
	if (EP > 1 && moe > 0) {
		uint64_t k = (uint64_t)(c->topk > 0 ? c->topk : 2);
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_EP, CCS_COLL_ALLTOALL, tok * k * h * 2u,
		                                      (train ? 4 : 2) * moe * m, EP, n_all / EP,
		                                      train ? "token dispatch and combine, forward and backward"
		                                            : "token dispatch and combine" };
	}
	if (PP > 1)
		out[(*n)++] = (struct ccs_step_coll){ CCS_STEP_PP, CCS_COLL_SENDRECV, act / (uint64_t)TP,
		                                      (train ? 2 : 1) * m * (uint64_t)(PP - 1), PP, n_all / PP,
		                                      train ? "activations forward, their gradients backward" : "activations" };
	if (!train)
		return 0;
	for (int e = 0; e < 2; e++) {
		int size = e ? CP * DP / EP : CP * DP, kind = e ? CCS_STEP_EDP : CCS_STEP_DP;
		double par = e ? Pe / ((double)EP * TP * PP) : (P - Pe) / ((double)TP * PP);
		if (size < 2 || !(par > 0))
			continue;
		uint64_t g = (uint64_t)(par * 2.0);
		int groups = n_all / size;
		if (c->zero == 0)
			out[(*n)++] = (struct ccs_step_coll){ kind, CCS_COLL_ALLREDUCE, g, 1, size, groups,
			                                      e ? "expert gradients" : "gradients" };
		else {
			out[(*n)++] = (struct ccs_step_coll){ kind, CCS_COLL_REDUCESCATTER, g, 1, size, groups,
			                                      e ? "expert gradient shards" : "gradient shards" };
			out[(*n)++] = (struct ccs_step_coll){ kind, CCS_COLL_ALLGATHER, g, c->zero == 3 ? 2 : 1, size, groups,
			                                      c->zero == 3 ? "parameters before forward and before backward"
			                                                   : "updated parameter shards" };
		}
	}
	return 0;
}
