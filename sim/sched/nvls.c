/*
** sim/sched/nvls.c: NVLS inside one scale-up domain, and NVLS-tree across
** domains, as schedules (sched.h).
**
** NVLS: one op per rank through its scale-up ports, S (p+1)/p bytes for
** AllReduce (S out to the switch plus S/p back reduced beyond its own),
** (n-1)/n S for AllGather (multicast writes) and ReduceScatter (multicast
** reductions), after the closed form's latency and pipeline steps.
** NVLS-tree: that op beside a tree per rail across the domains
** (ccs_sched_tree_rails); they use different links and run at once.
*/
#include "build.h"

#include <string.h>

struct nvls_sched {
	int n;
	double bytes, delay;
};

static void nv_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct nvls_sched *v = s->ctx;
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_NVLS;
	op->src = op->dst = (int32_t)id;
	op->channel = 0;
	op->nic_src = op->nic_dst = UINT32_MAX;
	op->bytes = v->bytes;
	op->delay_s = v->delay;
}

static int nv_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	(void)s;
	(void)id;
	(void)out;
	return 0;
}

static uint32_t nv_ndeps(const struct ccs_sched *s, uint64_t id)
{
	(void)s;
	(void)id;
	return 0;
}

static void nv_release(struct ccs_sched *s)
{
	ccs_free(s->ctx);
	memset(s, 0, sizeof *s);
}

/* The lane view (sched.h): lane l is rank l's one op through its ports,
 * so a symmetric domain's ranks are one class. */
static int nv_lanes(const struct ccs_sched *s, struct ccs_sched_lanes *out)
{
	return ccs_sched_lanes_single(s->nops, out);
}

static const struct ccs_sched_ops nv_ops = { nv_get, nv_succ, nv_ndeps, nv_release, NULL, nv_lanes };

static void nv_fill(struct ccs_sched *s, struct nvls_sched *v)
{
	s->ctx = v;
	s->nops = (uint64_t)v->n;
	s->ops = &nv_ops;
}

int ccs_sched_nvls(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                   const char **why)
{
	const int algo = CCS_ALGO_NVLS;
	int agrs = (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER) && c->G == 1;
	if ((coll != CCS_COLL_ALLREDUCE && !agrs) || !c->nvls || proto != CCS_PROTO_SIMPLE) {
		*why = "the nvls schedule covers AllReduce, and AllGather and ReduceScatter inside one domain, Simple, "
		       "on multicast scale-up domains";
		return CCS_EINPUT;
	}
	struct nvls_sched *v = ccs_calloc(1, sizeof *v);
	if (!v)
		return CCS_ENOMEM;
	struct ccs_cost cc;
	if (ccs_cost_eval(c, coll, algo, proto, channels, bytes, &cc, why)) {
		ccs_free(v);
		return CCS_EINPUT;
	}
	v->n = c->n;
	/* AllReduce: each rank sends S and receives S/p more through its
	 * ports; AllGather (multicast writes) and ReduceScatter (multicast
	 * reductions) move (n-1)/n S through them, as the closed form counts */
	v->bytes = agrs ? (double)bytes * (c->n - 1.0) / c->n : (double)bytes * (c->p + 1.0) / c->p;
	/* the closed form's latency and pipeline steps, paid before the move */
	v->delay = cc.lat_s + cc.step_s;
	nv_fill(s, v);
	return CCS_OK;
}

int ccs_sched_nvls_tree(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes,
                        struct ccs_sched *s, const char **why)
{
	const int algo = CCS_ALGO_NVLS_TREE;
	/* NVLS inside each domain (multicast reduce and broadcast through
	 * the switches) beside a tree per rail across the domains: they use
	 * different links and run at once, as NCCL pipelines them */
	struct ccs_cost cc;
	if (ccs_cost_eval(c, coll, algo, proto, channels, bytes, &cc, why))
		return CCS_EINPUT;
	if (c->G < 2) {
		*why = "nvls_tree needs more than one scale-up domain (nvls covers one)";
		return CCS_EINPUT;
	}
	struct ccs_sched parts[2];
	memset(parts, 0, sizeof parts);
	struct nvls_sched *v = ccs_calloc(1, sizeof *v);
	if (!v)
		return CCS_ENOMEM;
	v->n = c->n;
	v->bytes = (double)bytes * (c->p + 1.0) / c->p;
	v->delay = cc.lat_s + cc.step_s;
	nv_fill(&parts[0], v);
	int rc = ccs_sched_tree_rails(c, proto, channels, bytes, &parts[1], why);
	if (rc) {
		nv_release(&parts[0]);
		return rc;
	}
	return ccs_sched_concat(parts, 2, s);
}
