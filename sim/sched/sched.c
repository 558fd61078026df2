/* sim/sched/sched.c: the dispatcher: (collective, algorithm, protocol) to
** the builder of its schedule (sched.h). */
#include "sched.h"

#include "../../model/nccl_tables.h"

#include <string.h>

int ccs_sched_build(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes,
                    struct ccs_sched *s, const char **why)
{
	return ccs_sched_build_flags(c, coll, algo, proto, channels, bytes, 0, s, why);
}

int ccs_sched_build_next(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned amask, unsigned pmask,
                         int *algo, int *proto, struct ccs_sched *s, const char **why)
{
	int rc = ccs_sched_build(c, coll, *algo, *proto, 0, bytes, s, why);
	if (rc != CCS_EINPUT)
		return rc;
	amask &= ~(1u << *algo);
	for (int tries = 0; tries < CCS_ALGO_N && amask; tries++) {
		int a, q;
		const char *why2;
		if (ccs_select(c, coll, bytes, amask, pmask, 1, &a, &q))
			break;
		int r = ccs_sched_build(c, coll, a, q, 0, bytes, s, &why2);
		if (r != CCS_EINPUT) {
			if (!r) {
				*algo = a;
				*proto = q;
			}
			return r;
		}
		amask &= ~(1u << a);
	}
	return rc;
}

static int dispatch(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes, int flags,
                   struct ccs_sched *s, const char **why);

int ccs_sched_build_flags(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes,
                          int flags, struct ccs_sched *s, const char **why)
{
	int rc = dispatch(c, coll, algo, proto, channels, bytes, flags, s, why);
	/* the closed form bounds these by GPU memory (not NVLS, whose switches
	 * reduce, nor the one- and two-shot kernels, timed whole) */
	if (!rc && algo != CCS_ALGO_NVLS && algo != CCS_ALGO_NVLS_TREE && algo != CCS_ALGO_ONESHOT &&
	    algo != CCS_ALGO_TWOSHOT)
		s->mem_per_byte = ccs_cost_mem_per_byte(coll);
	return rc;
}

static int dispatch(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes, int flags,
                   struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	*why = NULL;
	if (algo == CCS_ALGO_RING)
		return ccs_sched_ring(c, coll, proto, channels, bytes, flags, s, why);
	if (algo == CCS_ALGO_NVLS && coll == CCS_COLL_ALLREDUCE && c->G > 1)
		return ccs_sched_collnet(c, CCS_ALGO_NVLS, proto, channels, bytes, s, why);
	if (algo == CCS_ALGO_NVLS)
		return ccs_sched_nvls(c, coll, proto, channels, bytes, s, why);
	if (algo == CCS_ALGO_NVLS_TREE)
		return ccs_sched_nvls_tree(c, coll, proto, channels, bytes, s, why);
	if (algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN) {
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "collnet applies to AllReduce";
			return CCS_EINPUT;
		}
		return algo == CCS_ALGO_COLLNET_CHAIN ? ccs_sched_collnet_chain(c, proto, channels, bytes, s, why)
		                                      : ccs_sched_collnet(c, CCS_ALGO_COLLNET_DIRECT, proto, channels, bytes, s, why);
	}
	if (algo == CCS_ALGO_TREE) {
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "tree applies to AllReduce";
			return CCS_EINPUT;
		}
		return ccs_sched_tree(c, proto, channels, bytes, s, why);
	}
	if (algo == CCS_ALGO_DIRECT || (algo == CCS_ALGO_PAIRWISE && coll == CCS_COLL_SENDRECV)) {
		if (coll != CCS_COLL_ALLTOALL && coll != CCS_COLL_SENDRECV) {
			*why = "the direct schedule covers AllToAll and SendRecv";
			return CCS_EINPUT;
		}
		return ccs_sched_alltoall(c, coll, proto, bytes, !(flags & CCS_SCHED_NO_PXN), s, why);
	}
	if (algo == CCS_ALGO_RD || algo == CCS_ALGO_RHD || algo == CCS_ALGO_BRUCK || algo == CCS_ALGO_PAIRWISE ||
	    algo == CCS_ALGO_HIER || algo == CCS_ALGO_PAT)
		return ccs_sched_steps(c, coll, algo, proto, bytes, s, why);
	if (algo == CCS_ALGO_ONESHOT || algo == CCS_ALGO_TWOSHOT)
		return ccs_sched_shot(c, algo, bytes, s, why);
	*why = "no schedule for this algorithm";
	return CCS_EINPUT;
}
