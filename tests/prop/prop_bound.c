/*
** tests/prop/prop_bound.c: the cut bound (model/bound.h) holds both engines
** up, and AllToAll is priced near it.  On shipped topologies and on GB200
** NVL72 machines of 2-64 racks (full, and with a part-filled last rack):
** every collective's closed-form time, for every algorithm and protocol
** that applies, is at least its cut bound; the simulated AllToAll and
** AllReduce are too; and on these fabrics, none oversubscribed, AllToAll at
** 64 MiB and more is within 3x of the bound in both engines.  Rack counts
** come from fixture.h's generator at its fixed seed (printed with a
** failure).  A two-tier UB plane at 1:1, 2:1 and 4:1 checks the node
** uplinks' cut and that both engines price them.  Run from the root.
*/
#include "../check.h"
#include "../unit/fixture.h"
#include "../../model/bound.h"
#include "../../model/cost.h"

#include <math.h>
#include <stdio.h>

static int below(double t, const struct ccs_cut *cut)
{
	return t < cut->t_s * (1 - 1e-9);
}

/* The closed form of every (coll, algo, proto) at a few sizes. */
static void closed_form(const struct ccs_comm *c, const char *what)
{
	static const uint64_t sizes[] = { 1024, 1 << 20, 64ull << 20, 256ull << 20, 1ull << 30 };
	int checked = 0, bad = 0;
	for (int coll = 0; coll < CCS_COLL_N; coll++)
		for (int a = 0; a < CCS_ALGO_N; a++)
			for (int q = 0; q < CCS_PROTO_N; q++)
				for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
					struct ccs_cost x;
					struct ccs_cut cut;
					if (ccs_cost_eval(c, coll, a, q, 0, sizes[i], &x, NULL))
						break;
					CHECK(!ccs_bound_cut(c, coll, (double)sizes[i], &cut));
					checked++;
					if (below(x.time_s, &cut) && !bad++)
						fprintf(stderr, "%s: %s %s %s at %llu B: %g us below the %s cut %g us\n", what,
						        ccs_coll_name[coll], ccs_algo_desc[a].name, ccs_proto_name[q],
						        (unsigned long long)sizes[i], x.time_s * 1e6, ccs_cut_name[cut.by], cut.t_s * 1e6);
				}
	CHECK(checked > 20);
	CHECK(bad == 0);
}

/* AllToAll direct at 64 and 256 MiB: within 3x of the bound (both
 * engines when sim), never below it; the simulated ring AllReduce never
 * below its bound. */
static void alltoall(const struct ccs_comm *c, struct ccs_fabric *fab, const char *what)
{
	static const uint64_t sizes[] = { 64ull << 20, 256ull << 20 };
	for (size_t i = 0; i < 2; i++) {
		struct ccs_cost x;
		struct ccs_cut cut;
		CHECK(!ccs_bound_cut(c, CCS_COLL_ALLTOALL, (double)sizes[i], &cut));
		CHECK(!ccs_cost_eval(c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, sizes[i], &x, NULL));
		if (x.time_s > 3 * cut.t_s || below(x.time_s, &cut))
			fprintf(stderr, "%s: alltoall %llu B: closed form %g us, cut %g us\n", what,
			        (unsigned long long)sizes[i], x.time_s * 1e6, cut.t_s * 1e6);
		CHECK(x.time_s <= 3 * cut.t_s);
		CHECK(!below(x.time_s, &cut));
		if (!fab)
			continue;
		struct ccs_sim_stats st;
		double ts = fx_sim_time(c, fab, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, sizes[i], &st);
		if (!(ts > 0) || ts > 3 * cut.t_s || below(ts, &cut))
			fprintf(stderr, "%s: alltoall %llu B: simulated %g us, cut %g us\n", what, (unsigned long long)sizes[i],
			        ts * 1e6, cut.t_s * 1e6);
		CHECK(ts > 0 && ts <= 3 * cut.t_s && !below(ts, &cut));
	}
	if (fab) {
		struct ccs_sim_stats st;
		struct ccs_cut cut;
		uint64_t S = 64ull << 20;
		CHECK(!ccs_bound_cut(c, CCS_COLL_ALLREDUCE, (double)S, &cut));
		double ts = fx_sim_time(c, fab, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, S, &st);
		CHECK(ts > 0 && !below(ts, &cut));
	}
}

static void one(const char *file, const char *const *sets, int ns, int sim)
{
	char what[256];
	snprintf(what, sizeof what, "%s%s%s", file, ns ? " " : "", ns ? sets[0] : "");
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up(file, sets, ns, 0, &t, &c, &fab));
	if (!t)
		return;
	closed_form(&c, what);
	if (c.G > 1)
		alltoall(&c, sim ? fab : NULL, what);
	fx_down(t, &c, fab);
}

/* A two-tier UB plane (CloudMatrix384's, 16 nodes in one domain) with 16,
 * 8 and 4 L2 chips per sub-plane (1:1, 2:1, 4:1 lanes to uplinks): AllToAll
 * at 64 MiB never below the cut, within 3x of it and the engines within 10%
 * of each other; the node uplinks bind once they are thinner than the
 * lanes (before they were not modelled: every spine count gave one time). */
static void two_tier(void)
{
	static const char *const spines[] = { "scaleup.spines=16", "scaleup.spines=8", "scaleup.spines=4" };
	double tc[3] = { 0, 0, 0 };
	for (int i = 0; i < 3; i++) {
		const char *sets[3] = { "nodes=16", "scaleup.nodes_per_domain=16", spines[i] };
		struct ccs_topo *t;
		struct ccs_comm c;
		struct ccs_fabric *fab;
		CHECK(!fx_up("topologies/cloudmatrix384.yaml", sets, 3, 0, &t, &c, &fab));
		if (!t)
			return;
		char what[128];
		snprintf(what, sizeof what, "cloudmatrix384 16 nodes %s", spines[i]);
		closed_form(&c, what);
		uint64_t S = 64ull << 20;
		struct ccs_cost x;
		struct ccs_cut cut;
		struct ccs_sim_stats st;
		CHECK(!ccs_bound_cut(&c, CCS_COLL_ALLTOALL, (double)S, &cut));
		CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, S, &x, NULL));
		double ts = fx_sim_time(&c, fab, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, S, &st);
		if (below(x.time_s, &cut) || below(ts, &cut) || x.time_s > 3 * cut.t_s || fabs(ts / x.time_s - 1) > 0.1)
			fprintf(stderr, "%s: alltoall 64 MiB: closed form %g us, simulated %g us, %s cut %g us\n", what,
			        x.time_s * 1e6, ts * 1e6, ccs_cut_name[cut.by], cut.t_s * 1e6);
		CHECK(!below(x.time_s, &cut) && !below(ts, &cut));
		CHECK(x.time_s <= 3 * cut.t_s);
		CHECK(fabs(ts / x.time_s - 1) <= 0.1);
		CHECK(i == 0 || cut.by == CCS_CUT_NODE);
		tc[i] = x.time_s;
		fx_down(t, &c, fab);
	}
	CHECK(tc[1] >= 1.5 * tc[0] && tc[2] >= 1.8 * tc[1]);
}

/* CollNet on a part-filled NVL72 machine (a rack of 72 and one of 8, SHARP
 * switches): both schedules run (they refused groups of unequal size),
 * never below the cut; Direct within 10% of its closed form. */
static void partial_collnet(void)
{
	const char *sets[2] = { "nodes=20", "scaleout.sharp=true" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/gb200-nvl72.yaml", sets, 2, 0, &t, &c, &fab));
	if (!t)
		return;
	CHECK(c.G == 2 && c.p_min < c.p);
	static const int algos[2] = { CCS_ALGO_COLLNET_DIRECT, CCS_ALGO_COLLNET_CHAIN };
	uint64_t S = 64ull << 20;
	for (int i = 0; i < 2; i++) {
		struct ccs_cost x;
		struct ccs_cut cut;
		struct ccs_sim_stats st;
		CHECK(!ccs_bound_cut(&c, CCS_COLL_ALLREDUCE, (double)S, &cut));
		CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, algos[i], CCS_PROTO_SIMPLE, 0, S, &x, NULL));
		double ts = fx_sim_time(&c, fab, CCS_COLL_ALLREDUCE, algos[i], CCS_PROTO_SIMPLE, 0, S, &st);
		if (!(ts > 0) || below(ts, &cut))
			fprintf(stderr, "gb200-nvl72 nodes=20 %s: simulated %g us, closed form %g us, cut %g us\n",
			        ccs_algo_desc[algos[i]].name, ts * 1e6, x.time_s * 1e6, cut.t_s * 1e6);
		CHECK(ts > 0 && !below(ts, &cut));
		if (i == 0)
			CHECK(fabs(ts / x.time_s - 1) <= 0.1);
	}
	fx_down(t, &c, fab);
}

int main(void)
{
	static const struct {
		const char *file, *set;
		int sim;
	} shipped[] = {
		{ "topologies/hgx-h100.yaml", "nodes=2", 1 },
		{ "topologies/hgx-h100.yaml", "nodes=4", 1 },
		{ "topologies/hgx-b200.yaml", "nodes=2", 1 },
		{ "topologies/hgx-h800.yaml", "nodes=2", 1 },
		{ "topologies/dgx-a100.yaml", "nodes=2", 1 },
		{ "topologies/aws-p5.yaml", "nodes=2", 1 },
		{ "topologies/aws-p5en.yaml", "nodes=2", 1 },
		{ "topologies/aws-p4de.yaml", "nodes=2", 1 },
		{ "topologies/ascend-8npu-hccs.yaml", "nodes=2", 1 },
		{ "topologies/pcie-8gpu.yaml", "nodes=2", 0 },
		{ "topologies/gb200-nvl72.yaml", "nodes=36", 1 },
		{ "topologies/gb200-nvl72.yaml", "nodes=20", 1 },
		{ "topologies/cloudmatrix384.yaml", "nodes=96", 0 },
	};
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
		const char *sets[1] = { shipped[i].set };
		one(shipped[i].file, sets, 1, shipped[i].sim);
	}
	/* generated NVL72 machines: 2-64 racks, the last one full or part-filled
	 * (a 2-tier radix-64 fabric holds 512 trays: past that, 3 tiers);
	 * simulated up to 4 racks */
	for (int k = 0; k < 4; k++) {
		int racks = k == 0 ? 3 : 2 + (int)(fx_next() % 63), part = k == 0 ? 5 : (int)(fx_next() % 18);
		int nodes = 18 * (racks - 1) + (part ? part : 18);
		char set[64];
		snprintf(set, sizeof set, "nodes=%d", nodes);
		const char *sets[2] = { set, "scaleout.tiers=3" };
		fprintf(stderr, "prop_bound: gb200-nvl72 %s (seed 88172645463325252)\n", set);
		one("topologies/gb200-nvl72.yaml", sets, nodes > 512 ? 2 : 1, racks <= 4);
	}
	two_tier();
	partial_collnet();
	return CHECK_DONE("prop_bound");
}
