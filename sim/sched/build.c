/* sim/sched/build.c: the dispatcher: (collective, algorithm, protocol) to
** the builder of its schedule (build.h). */
#include "build.h"

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

/* What a builder is given: one request. */
struct req {
	const struct ccs_comm *c;
	int coll, algo, proto, channels, flags;
	uint64_t bytes;
	struct ccs_sched *s;
	const char **why;
};

static int b_ring(const struct req *r)
{
	return ccs_sched_ring(r->c, r->coll, r->proto, r->channels, r->bytes, r->flags, r->s, r->why);
}

static int b_tree(const struct req *r) { return ccs_sched_tree(r->c, r->proto, r->channels, r->bytes, r->s, r->why); }

/* NVLS AllReduce across domains runs as CollNet over SHARP (collnet.c) */
static int b_nvls(const struct req *r)
{
	if (r->coll == CCS_COLL_ALLREDUCE && r->c->G > 1)
		return ccs_sched_collnet(r->c, CCS_ALGO_NVLS, r->proto, r->channels, r->bytes, r->s, r->why);
	return ccs_sched_nvls(r->c, r->coll, r->proto, r->channels, r->bytes, r->s, r->why);
}

static int b_nvls_tree(const struct req *r)
{
	return ccs_sched_nvls_tree(r->c, r->coll, r->proto, r->channels, r->bytes, r->s, r->why);
}

static int b_collnet_direct(const struct req *r)
{
	return ccs_sched_collnet(r->c, CCS_ALGO_COLLNET_DIRECT, r->proto, r->channels, r->bytes, r->s, r->why);
}

static int b_collnet_chain(const struct req *r)
{
	return ccs_sched_collnet_chain(r->c, r->proto, r->channels, r->bytes, r->s, r->why);
}

static int b_steps(const struct req *r) { return ccs_sched_steps(r->c, r->coll, r->algo, r->proto, r->bytes, r->s, r->why); }

static int b_direct(const struct req *r)
{
	return ccs_sched_a2a(r->c, r->coll, r->proto, r->bytes, r->flags, r->s, r->why);
}

/* pairwise SendRecv is the direct send; other collectives go in rounds */
static int b_pairwise(const struct req *r) { return r->coll == CCS_COLL_SENDRECV ? b_direct(r) : b_steps(r); }

static int b_shot(const struct req *r) { return ccs_sched_shot(r->c, r->algo, r->proto, r->bytes, r->s, r->why); }

/* Each algorithm's builder; what it is built for, and whether GPU memory
 * bounds it per byte, are its row of ccs_algo_desc (model/coll.h). */
static int (*const builders[CCS_ALGO_N])(const struct req *r) = {
	[CCS_ALGO_RING] = b_ring,
	[CCS_ALGO_TREE] = b_tree,
	[CCS_ALGO_NVLS] = b_nvls,
	[CCS_ALGO_NVLS_TREE] = b_nvls_tree,
	[CCS_ALGO_COLLNET_DIRECT] = b_collnet_direct,
	[CCS_ALGO_COLLNET_CHAIN] = b_collnet_chain,
	[CCS_ALGO_PAT] = b_steps,
	[CCS_ALGO_RHD] = b_steps,
	[CCS_ALGO_RD] = b_steps,
	[CCS_ALGO_BRUCK] = b_steps,
	[CCS_ALGO_DIRECT] = b_direct,
	[CCS_ALGO_PAIRWISE] = b_pairwise,
	[CCS_ALGO_HIER] = b_steps,
	[CCS_ALGO_ONESHOT] = b_shot,
	[CCS_ALGO_TWOSHOT] = b_shot,
};

int ccs_sched_build_flags(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes,
                          int flags, struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	*why = NULL;
	if (algo < 0 || algo >= CCS_ALGO_N || !builders[algo] || coll < 0 || coll >= CCS_COLL_N) {
		*why = "no schedule for this algorithm";
		return CCS_EINPUT;
	}
	const struct ccs_algo_desc *x = &ccs_algo_desc[algo];
	if (!(x->colls >> coll & 1)) {
		*why = x->only;
		return CCS_EINPUT;
	}
	const struct req r = { c, coll, algo, proto, channels, flags, bytes, s, why };
	int rc = builders[algo](&r);
	if (!rc && x->mem == CCS_ALGO_MEM_BYTES)
		s->mem_per_byte = ccs_cost_mem_per_byte(c, ccs_coll_reduces(coll));
	return rc;
}

