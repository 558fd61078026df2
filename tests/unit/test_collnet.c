/*
** tests/unit/test_collnet.c: CollNet's schedules (sim/sched/collnet.c) on
** two HGX H100 nodes with SHARP switches, 2 ranks a node (4 ranks, ranks 0,
** 1 on node 0 and 2, 3 on node 1), 4 MiB, op by op against the algorithms
** as drawn by hand.
**   Direct  ops 0-3: each rank's NVLS op through its scale-up ports, S and
**           S / 2 more (the direct reduce-scatter and all-gather), after
**           the closed form's latency and step work.  Then per head (both
**           members of both nodes: p = 2), per chunk k of K = S/2 / 128 KiB
**           and NIC part i of M: UP then DOWN of S / 2 / K / M bytes over
**           the rank's i-th best NIC, each after the same part of chunk
**           k - 1, the first UP after NCCL's base latency.  Then per rail j
**           (member j of each node) and chunk k the switches' reduction: a
**           DELAY of one network hop waiting for the rail's 2 M UP parts
**           and releasing its 2 M DOWN parts.
**   Chain   per channel and chunk, each node's chain of its 2 members, its
**           head rotating with the channel: the tail sends the partial sum
**           to the head, the head sends it UP and gets it DOWN, then passes
**           it to the tail; the switches' wait joins the two nodes' UPs to
**           their DOWNs.
** test_sched.c holds both against the closed form's time.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/nccl_tables.h"

#define S_BYTES (4u << 20)

static int has_succ(const struct ccs_sched *s, uint64_t id, uint64_t want)
{
	uint64_t v[CCS_SCHED_MAXSUCC + 8];
	int n = ccs_sched_succ(s, id, v);
	for (int i = 0; i < n; i++)
		if (v[i] == want)
			return 1;
	return 0;
}

static void test_direct(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	int rc = ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why);
	if (rc)
		printf("collnet_direct: %s\n", why ? why : "?");
	CHECK(rc == 0);
	if (rc)
		return;
	int n = 4, p = 2, G = 2;
	int M = ccs_comm_fewest_nics(c, 8);
	int K = (int)ceil((double)S_BYTES / p / CCS_NCCL_CHUNK_COLLNET);
	CHECK(M >= 1 && K == 16);
	CHECK(s.nops == (uint64_t)n + 2ull * n * K * M + (uint64_t)p * K);
	struct ccs_cost cc;
	CHECK(!ccs_cost_eval(c, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, S_BYTES, &cc, &why));
	double base = ccs_nccl_latency(&c->nccl, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, 0);
	double hop = ccs_nccl_latency(&c->nccl, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, 1) - base;
	int bad = 0;
	for (int r = 0; r < n; r++) {
		struct ccs_op o;
		ccs_sched_get(&s, (uint64_t)r, &o);
		bad += o.kind != CCS_OP_NVLS || o.src != r || fabs(o.bytes - S_BYTES * 1.5) > 1e-6;
		bad += fabs(o.delay_s - cc.lat_s - cc.step_s) > 1e-12 || ccs_sched_ndeps(&s, (uint64_t)r) != 0;
	}
	/* heads in group order, member order: ranks 0, 1, 2, 3 */
	uint64_t ud = (uint64_t)n;
#define UP(r, k, i) (ud + (((uint64_t)(r) * K + (uint64_t)(k)) * M + (uint64_t)(i)) * 2)
	uint64_t red = ud + 2ull * n * K * M;
	for (int r = 0; r < n; r++)
		for (int k = 0; k < K; k++)
			for (int i = 0; i < M; i++) {
				struct ccs_op u, w;
				ccs_sched_get(&s, UP(r, k, i), &u);
				ccs_sched_get(&s, UP(r, k, i) + 1, &w);
				uint32_t nic = ccs_comm_nic(c, r, i);
				double part = (double)S_BYTES / p / K / M;
				bad += u.kind != CCS_OP_UP || u.src != r || u.nic_src != nic || fabs(u.bytes - part) > 1e-6;
				bad += w.kind != CCS_OP_DOWN || w.src != r || w.nic_src != nic || fabs(w.bytes - part) > 1e-6;
				bad += fabs(u.delay_s - (k ? 0 : base)) > 1e-12 || w.delay_s != 0;
				/* up: after its part of the chunk before; down: that and
				 * the rail's reduction */
				bad += ccs_sched_ndeps(&s, UP(r, k, i)) != (k ? 1u : 0u);
				bad += ccs_sched_ndeps(&s, UP(r, k, i) + 1) != (k ? 2u : 1u);
				if (k + 1 < K)
					bad += !has_succ(&s, UP(r, k, i), UP(r, k + 1, i)) ||
					       !has_succ(&s, UP(r, k, i) + 1, UP(r, k + 1, i) + 1);
				/* rank r is member r % 2 of its node: rail j = r % 2 */
				uint64_t x = red + (uint64_t)(r % p) * K + (uint64_t)k;
				bad += !has_succ(&s, UP(r, k, i), x) || !has_succ(&s, x, UP(r, k, i) + 1);
			}
	for (int j = 0; j < p; j++)
		for (int k = 0; k < K; k++) {
			uint64_t x = red + (uint64_t)j * K + (uint64_t)k;
			struct ccs_op o;
			ccs_sched_get(&s, x, &o);
			bad += o.kind != CCS_OP_DELAY || fabs(o.delay_s - hop) > 1e-12;
			bad += ccs_sched_ndeps(&s, x) != (uint32_t)(G * M);
		}
#undef UP
	if (bad)
		printf("collnet_direct: %d ops differ from the drawing\n", bad);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

/* Chain: per op its kind, ends and bytes are checked along each chain. */
static void test_chain(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	int rc = ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_CHAIN, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why);
	if (rc)
		printf("collnet_chain: %s\n", why ? why : "?");
	CHECK(rc == 0);
	if (rc)
		return;
	/* every XFER joins the two members of one node; UP and DOWN are a
	 * head's, as many of each; the transfers move as many bytes each way
	 * within each node (up the chain and back down) */
	uint64_t nx = 0, nu = 0, nd = 0;
	double up_b = 0, down_b = 0, x_b[2] = { 0, 0 };
	int bad = 0;
	for (uint64_t id = 0; id < s.nops; id++) {
		struct ccs_op o;
		ccs_sched_get(&s, id, &o);
		if (o.kind == CCS_OP_XFER) {
			nx++;
			bad += c->rank_group[o.src] != c->rank_group[o.dst] || o.src == o.dst;
			x_b[o.src > o.dst] += o.bytes;
		} else if (o.kind == CCS_OP_UP) {
			nu++;
			up_b += o.bytes;
			bad += ccs_comm_best_nics(c, o.src) > 0 && o.nic_src == UINT32_MAX;
		} else if (o.kind == CCS_OP_DOWN) {
			nd++;
			down_b += o.bytes;
		}
	}
	CHECK(nu > 0 && nu == nd && nx == 2 * nu);
	CHECK(fabs(up_b - down_b) < 1e-6 * up_b);
	/* the heads of the two nodes move the whole S up between them per
	 * node pair: each node's heads carry S across its channels */
	CHECK(fabs(up_b - 2.0 * S_BYTES) < 1e-6 * up_b);
	CHECK(fabs(x_b[0] - x_b[1]) < 1e-6 * (x_b[0] + 1));
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

int main(void)
{
	const char *sets[1] = { "nodes=2" };
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", sets, 1);
	if (!t)
		return CHECK_DONE("test_collnet");
	struct ccs_comm c;
	memset(&c, 0, sizeof c);
	char err[256];
	CHECK(!ccs_comm_build(t, 4, 2, &c, err, sizeof err));
	CHECK(c.n == 4 && c.G == 2 && c.p == 2 && c.p_min == 2);
	CHECK(c.rank_group[0] == 0 && c.rank_group[1] == 0 && c.rank_group[2] == 1 && c.rank_group[3] == 1);
	test_direct(&c);
	test_chain(&c);
	/* one node: no switches to reduce in */
	struct ccs_comm one;
	memset(&one, 0, sizeof one);
	CHECK(!ccs_comm_build(t, 2, 2, &one, err, sizeof err));
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(ccs_sched_build(&one, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) &&
	      why);
	ccs_comm_release(&one);
	ccs_comm_release(&c);
	ccs_topo_free(t);
	return CHECK_DONE("test_collnet");
}
