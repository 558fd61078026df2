/*
** tests/unit/test_select.c: model/select.c against its definition, by
** enumeration on three machines (one HGX H100 node, 2 HGX nodes over
** InfiniBand, 2 AWS p5 nodes over EFA) and 8 B - 4 GiB:
**   ours   (nccl 0): the (algorithm, protocol) of least closed-form time;
**   NCCL's (nccl 1): for the five tuned collectives the least of NCCL's own
**          model among its algorithms that complete; AllToAll direct, LL up
**          to 16 KiB a channel, else Simple;
** masks respected, the transport's protocols across groups only, and the
** precomputed selector (ccs_selector_pick) choosing exactly as ccs_select.
*/
#include "../check.h"
#include "fixture.h"

#include <math.h>

/* The enumeration of the definition above. */
static int brute(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned amask, unsigned pmask, int nccl, int *ba,
                 int *bp)
{
	double best = HUGE_VAL;
	*ba = *bp = -1;
	if (c->G > 1)
		pmask &= ccs_comm_tr(c)->protos;
	for (int a = 0; a < CCS_ALGO_N; a++)
		for (int q = 0; q < CCS_PROTO_N; q++) {
			if (!(amask >> a & 1) || !(pmask >> q & 1))
				continue;
			struct ccs_cost cc;
			if (ccs_cost_eval(c, coll, a, q, 0, bytes, &cc, NULL))
				continue;
			double t = cc.time_s;
			if (nccl && coll <= CCS_COLL_REDUCE) {
				if (ccs_algo_desc[a].nccl < 0 && (amask & ((1u << CCS_ALGO_NCCL_N) - 1)))
					continue;
				if (ccs_algo_desc[a].nccl >= 0)
					t = ccs_nccl_time(&c->nccl, coll, a, q, bytes);
				if (t < 0)
					continue;
			}
			if (t < best) {
				best = t;
				*ba = a;
				*bp = q;
			}
		}
	return *ba < 0 ? -1 : 0;
}

static void on(const char *topo, const char *const *sets, int nsets)
{
	struct fx_world w;
	if (fx_world_up(&w, topo, sets, nsets, 0)) {
		CHECK(0);
		return;
	}
	struct ccs_selector sel;
	ccs_selector_init(&sel, &w.c);
	static const int colls[] = { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER,
		                     CCS_COLL_BROADCAST };
	int agree = 0, cases = 0;
	for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++)
		for (uint64_t b = 8; b <= (4ull << 30); b *= 8)
			for (int nccl = 0; nccl < 2; nccl++) {
				int a, q, ea, eq, sa, sq;
				int rc = ccs_select(&w.c, colls[k], b, ~0u, ~0u, nccl, &a, &q);
				int erc = brute(&w.c, colls[k], b, ~0u, ~0u, nccl, &ea, &eq);
				CHECK(rc == erc);
				cases++;
				if (!rc && !erc && a == ea && q == eq)
					agree++;
				else
					fprintf(stderr, "%s %s %llu nccl %d: select %d/%d, by definition %d/%d\n", topo,
					        ccs_coll_cli[colls[k]], (unsigned long long)b, nccl, a, q, ea, eq);
				CHECK(ccs_selector_pick(&sel, colls[k], b, ~0u, ~0u, nccl, &sa, &sq) == rc);
				CHECK(rc || (sa == a && sq == q));
			}
	CHECK(agree == cases);
	/* masks: ring alone, LL alone */
	int a, q;
	CHECK(!ccs_select(&w.c, CCS_COLL_ALLREDUCE, 1 << 20, 1u << CCS_ALGO_RING, ~0u, 1, &a, &q) && a == CCS_ALGO_RING);
	CHECK(!ccs_select(&w.c, CCS_COLL_ALLREDUCE, 1 << 20, ~0u, 1u << CCS_PROTO_LL, 0, &a, &q) && q == CCS_PROTO_LL);
	CHECK(ccs_select(&w.c, CCS_COLL_ALLGATHER, 1 << 20, 1u << CCS_ALGO_TREE, ~0u, 1, &a, &q) == -1);
	/* AllToAll as NCCL runs it: direct, LL up to 16 KiB a channel, else Simple */
	uint64_t edge = 16384ull * (uint64_t)ccs_nccl_channels(&w.c.nccl, CCS_ALGO_RING);
	if (w.c.G == 1 || (ccs_comm_tr(&w.c)->protos >> CCS_PROTO_LL & 1)) {
		CHECK(!ccs_select(&w.c, CCS_COLL_ALLTOALL, edge, ~0u, ~0u, 1, &a, &q) && a == CCS_ALGO_DIRECT &&
		      q == CCS_PROTO_LL);
	}
	CHECK(!ccs_select(&w.c, CCS_COLL_ALLTOALL, edge * 2, ~0u, ~0u, 1, &a, &q) && a == CCS_ALGO_DIRECT &&
	      q == CCS_PROTO_SIMPLE);
	/* across groups, only the transport's protocols */
	for (uint64_t b = 8; w.c.G > 1 && b <= (1ull << 30); b *= 64)
		if (!ccs_select(&w.c, CCS_COLL_ALLREDUCE, b, ~0u, ~0u, 1, &a, &q))
			CHECK(ccs_comm_tr(&w.c)->protos >> q & 1);
	fx_world_down(&w);
}

int main(void)
{
	const char *one[] = { "nodes=1" }, *two[] = { "nodes=2" };
	on("topologies/hgx-h100-cluster.yaml", one, 1);
	on("topologies/hgx-h100-cluster.yaml", two, 1);
	on("topologies/aws-p5.yaml", two, 1);
	return CHECK_DONE("test_select");
}
