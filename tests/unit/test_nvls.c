/*
** tests/unit/test_nvls.c: NVLS and NVLS-tree as schedules (sim/sched/nvls.c),
** against the algorithms as drawn by hand:
**   nvls (one HGX H100 node, 4 ranks)  one NVLS op per rank through its
**        scale-up ports, no dependency: AllReduce S + S / 4 (its S to the
**        switch, S / 4 more back reduced), AllGather and ReduceScatter
**        3 S / 4 (multicast writes, multicast reductions); each after the
**        closed form's latency and step work
**   nvls_tree (2 nodes of 4)  those NVLS ops, ranks 0-7 first, beside a tree
**        per rail: every transfer of the second part joins member j of one
**        node to member j of the other, through NICs; the two parts do not
**        wait for each other
** and what it refuses: LL, AllGather across domains, NVLS-tree on one node.
*/
#include "../check.h"
#include "fixture.h"

#define S_BYTES (4u << 20)

static void nvls_one(const struct ccs_comm *c, int coll, double share)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, coll, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why));
	struct ccs_cost cc;
	CHECK(!ccs_cost_eval(c, coll, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, S_BYTES, &cc, &why));
	CHECK(s.nops == (uint64_t)c->n);
	int bad = 0;
	uint64_t v[CCS_SCHED_MAXSUCC + 8];
	for (int r = 0; r < c->n; r++) {
		struct ccs_op o;
		ccs_sched_get(&s, (uint64_t)r, &o);
		bad += o.kind != CCS_OP_NVLS || o.src != r || o.dst != r || fabs(o.bytes - share * S_BYTES) > 1e-6;
		bad += fabs(o.delay_s - cc.lat_s - cc.step_s) > 1e-12;
		bad += ccs_sched_ndeps(&s, (uint64_t)r) != 0 || ccs_sched_succ(&s, (uint64_t)r, v) != 0;
	}
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void nvls_tree(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	int rc = ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why);
	if (rc)
		printf("nvls_tree: %s\n", why ? why : "?");
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(s.nops > (uint64_t)c->n);
	int bad = 0, xfers = 0;
	for (uint64_t id = 0; id < s.nops; id++) {
		struct ccs_op o;
		ccs_sched_get(&s, id, &o);
		int part = ccs_sched_part(&s, id);
		if (id < (uint64_t)c->n) {
			bad += part != 0 || o.kind != CCS_OP_NVLS || o.src != (int)id;
			bad += fabs(o.bytes - S_BYTES * (c->p + 1.0) / c->p) > 1e-6;
			continue;
		}
		bad += part != 1 || o.kind == CCS_OP_NVLS;
		if (o.kind != CCS_OP_XFER)
			continue;
		xfers++;
		/* member j of a node to member j of the other */
		bad += c->rank_group[o.src] == c->rank_group[o.dst] || o.src % c->p != o.dst % c->p;
	}
	CHECK(xfers > 0);
	if (bad)
		printf("nvls_tree: %d ops differ from the drawing\n", bad);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

int main(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	if (t) {
		struct ccs_comm c;
		memset(&c, 0, sizeof c);
		char err[256];
		CHECK(!ccs_comm_build(t, 4, 0, &c, err, sizeof err));
		nvls_one(&c, CCS_COLL_ALLREDUCE, 1.25);
		nvls_one(&c, CCS_COLL_ALLGATHER, 0.75);
		nvls_one(&c, CCS_COLL_REDUCESCATTER, 0.75);
		struct ccs_sched s;
		const char *why = NULL;
		CHECK(ccs_sched_build(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_LL, 0, S_BYTES, &s, &why) && why);
		why = NULL;
		CHECK(ccs_sched_build(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) &&
		      why);
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	const char *sets[1] = { "nodes=2" };
	t = fx_load("topologies/hgx-h100.yaml", sets, 1);
	if (t) {
		struct ccs_comm c;
		memset(&c, 0, sizeof c);
		char err[256];
		CHECK(!ccs_comm_build(t, 8, 4, &c, err, sizeof err));
		CHECK(c.G == 2 && c.p == 4);
		nvls_tree(&c);
		struct ccs_sched s;
		const char *why = NULL;
		CHECK(ccs_sched_build(&c, CCS_COLL_ALLGATHER, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) && why);
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	return CHECK_DONE("test_nvls");
}
