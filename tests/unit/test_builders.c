/*
** tests/unit/test_builders.c: the ops five schedule builders emit for 4
** ranks of one HGX H100 node, one channel, Simple, 4 MiB, checked
** op by op against the algorithm as drawn by hand:
**   ring  2 (n - 1) = 6 steps, step k of rank r its op k n + r: r sends
**         S / n to r + 1 once its own step k - 1 and its predecessor's have
**         ended; each waits a Simple step's synchronisation first, the first
**         step the collective's latency too
**   tree  (one node: NCCL's chain 0-1-2-3) per chunk 8 ops: up 3->2,
**         2->1, 1->0, the root's turn (two waits), down 0->1, 1->2, 2->3;
**         each hop waits for the one before it in its chunk and for its own
**         op of the previous chunk; the leaf's first send carries the
**         latency; a hop's bytes are the chunk over NCCL's tree efficiency
**         plus the step's synchronisation as bytes at the chain's port share
**   nvls  one op per rank through its scale-up ports: S + S / p bytes (its
**         share up and the whole result back), no dependency
**   a2a   (AllToAll, direct) every rank sends S / n to each of the 3 others
**         in NCCL's rounds, all 3 within one 8-round batch so none waits;
**         the first ops of a rank carry the base latency
**   rd    (AllReduce, recursive doubling) 2 rounds; in round k rank r sends
**         S to r xor 2^k; round 1 of r waits for r's own send of round 0 and
**         for the one that reached r; the base latency in round 0
** (test_sched.c and test_engine.c hold them against the closed form.)
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/cost_term.h"
#include "../../model/nccl_tables.h"

#include <stdlib.h>

#define S_BYTES (4u << 20)

/* op's successors as a set: whether it has exactly a and b (b may equal
 * UINT64_MAX: only a), or none (a UINT64_MAX too) */
static int succ_is(const struct ccs_sched *s, uint64_t op, uint64_t a, uint64_t b)
{
	uint64_t v[CCS_SCHED_MAXSUCC + 8];
	int n = ccs_sched_succ(s, op, v);
	int want = (a != UINT64_MAX) + (b != UINT64_MAX);
	if (n != want)
		return 0;
	for (int i = 0; i < n; i++)
		if (v[i] != a && v[i] != b)
			return 0;
	return 1;
}

static void test_ring(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1, S_BYTES, &s, &why));
	int n = c->n;
	uint64_t steps = 2 * (uint64_t)(n - 1);
	CHECK(s.nops == steps * (uint64_t)n);
	double lat = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, (int)steps, 0);
	int bad = 0;
	for (uint64_t k = 0; k < steps; k++)
		for (int r = 0; r < n; r++) {
			uint64_t id = k * (uint64_t)n + (uint64_t)r;
			struct ccs_op o;
			ccs_sched_get(&s, id, &o);
			bad += o.kind != CCS_OP_XFER || o.src != r || o.dst != (r + 1) % n || o.channel != 0;
			bad += fabs(o.bytes - (double)S_BYTES / n) > 1e-6;
			bad += ccs_sched_ndeps(&s, id) != (k ? 2u : 0u);
			bad += fabs(o.delay_s - (k ? 0 : lat) - c->prm.step_s[CCS_PROTO_SIMPLE]) > 1e-12;
			/* released: its own next step and its successor's */
			uint64_t nx = (k + 1) * (uint64_t)n;
			bad += k + 1 < steps ? !succ_is(&s, id, nx + (uint64_t)r, nx + (uint64_t)((r + 1) % n))
			                     : !succ_is(&s, id, UINT64_MAX, UINT64_MAX);
		}
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void test_tree(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1, S_BYTES, &s, &why));
	CHECK(s.nops % 8 == 0 && s.nops >= 8);
	uint64_t K = s.nops / 8;
	/* the ops of one chunk, in the order the builder numbers them */
	static const struct {
		int kind, src, dst;
	} want[8] = {
		{ CCS_OP_DELAY, 0, 0 }, { CCS_OP_DELAY, 0, 0 }, { CCS_OP_XFER, 1, 0 }, { CCS_OP_XFER, 0, 1 },
		{ CCS_OP_XFER, 2, 1 },  { CCS_OP_XFER, 1, 2 },  { CCS_OP_XFER, 3, 2 }, { CCS_OP_XFER, 2, 3 },
	};
	/* within a chunk: up 6 -> 4 -> 2 -> 0 (root), 0 -> 1 -> 3 -> 5 -> 7 down */
	static const int next[8] = { 1, 3, 0, 5, 2, 7, 4, -1 };
	double e = ccs_nccl_tree_proto_eff(CCS_PROTO_SIMPLE, 1) * ccs_nccl_tree_correction(CCS_PROTO_SIMPLE, S_BYTES);
	double lat = ccs_nccl_latency(&c->nccl, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 2 * (c->p - 1), 0);
	/* a chunk step's synchronisation rides each hop as bytes at the chain's
	 * share of the port (one step per chunk here: K below the cap) */
	double sync = c->prm.step_s[CCS_PROTO_SIMPLE] * c->b_su / ccs_cost_term_tree_share(c->p, 1);
	int bad = 0;
	for (uint64_t k = 0; k < K; k++)
		for (int j = 0; j < 8; j++) {
			uint64_t id = 8 * k + (uint64_t)j;
			struct ccs_op o;
			ccs_sched_get(&s, id, &o);
			bad += o.kind != want[j].kind || o.src != want[j].src || o.dst != want[j].dst;
			if (o.kind == CCS_OP_XFER)
				bad += fabs(o.bytes - (double)S_BYTES / ((double)K * e) - sync) > 1e-6 * o.bytes;
			/* the leaf's first send alone starts the chunk pipeline */
			unsigned deps = (j == 6 ? 0u : 1u) + (k > 0);
			bad += ccs_sched_ndeps(&s, id) != deps;
			bad += fabs(o.delay_s - (k == 0 && j == 6 ? lat : 0)) > 1e-12;
			uint64_t same = k + 1 < K ? id + 8 : UINT64_MAX;
			uint64_t in = next[j] >= 0 ? 8 * k + (uint64_t)next[j] : UINT64_MAX;
			bad += !succ_is(&s, id, in != UINT64_MAX ? in : same, in != UINT64_MAX ? same : UINT64_MAX);
		}
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void test_nvls(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 1, S_BYTES, &s, &why));
	CHECK(s.nops == (uint64_t)c->n);
	int bad = 0;
	for (int r = 0; r < c->n; r++) {
		struct ccs_op o;
		ccs_sched_get(&s, (uint64_t)r, &o);
		bad += o.kind != CCS_OP_NVLS || o.src != r || o.dst != r;
		bad += fabs(o.bytes - (double)S_BYTES * (1 + 1.0 / c->n)) > 1e-6;
		bad += ccs_sched_ndeps(&s, (uint64_t)r) != 0 || !succ_is(&s, (uint64_t)r, UINT64_MAX, UINT64_MAX);
	}
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void test_a2a(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why));
	int n = c->n;
	CHECK(s.nops == (uint64_t)n * (uint64_t)(n - 1));
	double base = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0);
	double hop = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1, 0) - base;
	int bad = 0;
	unsigned to[4] = { 0 };
	for (uint64_t id = 0; id < s.nops; id++) {
		struct ccs_op o;
		ccs_sched_get(&s, id, &o);
		bad += o.kind != CCS_OP_XFER || o.src < 0 || o.src >= n || o.dst < 0 || o.dst >= n || o.src == o.dst;
		if (o.src >= 0 && o.src < n && o.dst >= 0 && o.dst < n)
			to[o.src] |= 1u << o.dst;
		bad += fabs(o.bytes - (double)S_BYTES / n) > 1e-6;
		bad += fabs(o.delay_s - base - hop) > 1e-12;
		bad += ccs_sched_ndeps(&s, id) != 0 || !succ_is(&s, id, UINT64_MAX, UINT64_MAX);
	}
	/* each rank to every other once */
	for (int r = 0; r < n; r++)
		bad += to[r] != (((1u << n) - 1) & ~(1u << r));
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void test_rd(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_RD, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why));
	int n = c->n;
	CHECK(s.nops == 2 * (uint64_t)n);
	int bad = 0;
	for (int k = 0; k < 2; k++)
		for (int r = 0; r < n; r++) {
			uint64_t id = (uint64_t)(k * n + r);
			struct ccs_op o;
			ccs_sched_get(&s, id, &o);
			int peer = r ^ (1 << k);
			bad += o.kind != CCS_OP_XFER || o.src != r || o.dst != peer;
			bad += fabs(o.bytes - (double)S_BYTES) > 1e-6;
			bad += ccs_sched_ndeps(&s, id) != (k ? 2u : 0u);
			bad += k ? !succ_is(&s, id, UINT64_MAX, UINT64_MAX)
			         : !succ_is(&s, id, (uint64_t)(n + r), (uint64_t)(n + peer));
		}
	/* round 0 pays the base latency on top of round 1's delay */
	struct ccs_op o0, o1;
	ccs_sched_get(&s, 0, &o0);
	ccs_sched_get(&s, (uint64_t)n, &o1);
	CHECK_NEAR(o0.delay_s - o1.delay_s, ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0), 1e-9);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

int main(void)
{
	struct ccs_topo *t;
	struct ccs_comm c0;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/hgx-h100.yaml", NULL, 0, 0, &t, &c0, &fab));
	if (!t)
		return CHECK_DONE("test_builders");
	struct ccs_comm c;
	memset(&c, 0, sizeof c);
	char err[256];
	CHECK(!ccs_comm_build(t, 4, 0, &c, err, sizeof err));
	CHECK(c.n == 4 && c.G == 1);
	test_ring(&c);
	test_tree(&c);
	test_nvls(&c);
	test_a2a(&c);
	test_rd(&c);
	ccs_comm_release(&c);
	fx_down(t, &c0, fab);
	return CHECK_DONE("test_builders");
}
