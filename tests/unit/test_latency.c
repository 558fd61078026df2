/*
** tests/unit/test_latency.c: every link type's `latency` is priced in both
** engines: a 5 us latency on a node's PCIe link (a host-only node, and the
** GPU-NIC leg of a network hop), on the scale-up links and on the fabric's
** links each makes an 8-byte AllReduce slower by at least the latency of
** the hops it adds, in the closed form and the simulator alike (the node
** link's latency had no effect in either before).
*/
#include "../check.h"
#include "fixture.h"

#include <stdio.h>

/* NCCL's choice at 8 bytes on file with sets: closed form and simulated. */
static void times(const char *file, const char *const *sets, int ns, double *tc, double *ts)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	*tc = *ts = -1;
	CHECK(!fx_up(file, sets, ns, 0, &t, &c, &fab));
	if (!t)
		return;
	int a, q;
	struct ccs_cost cc;
	struct ccs_sim_stats st;
	CHECK(!ccs_select(&c, CCS_COLL_ALLREDUCE, 8, ~0u, ~0u, 1, &a, &q));
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, a, q, 0, 8, &cc, NULL));
	*tc = cc.time_s;
	*ts = fx_sim_time(&c, fab, CCS_COLL_ALLREDUCE, a, q, 0, 8, &st);
	fx_down(t, &c, fab);
}

int main(void)
{
	static const struct {
		const char *file, *nodes, *lat;
	} cases[] = {
		{ "topologies/pcie-8gpu.yaml", "nodes=1", "node.links.0.latency=5us" },   /* a host-only node */
		{ "topologies/hgx-h100.yaml", "nodes=2", "node.links.0.latency=5us" },    /* the GPU-NIC leg */
		{ "topologies/hgx-h100.yaml", "nodes=2", "scaleup.latency=5us" },
		{ "topologies/hgx-h100.yaml", "nodes=2", "scaleout.link_latency=5us" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *base[1] = { cases[i].nodes }, *with[2] = { cases[i].nodes, cases[i].lat };
		double c0, s0, c1, s1;
		times(cases[i].file, base, 1, &c0, &s0);
		times(cases[i].file, with, 2, &c1, &s1);
		if (!(c1 >= c0 + 5e-6 && s1 >= s0 + 5e-6))
			fprintf(stderr, "%s %s: closed form %g -> %g us, simulated %g -> %g us\n", cases[i].file, cases[i].lat,
			        c0 * 1e6, c1 * 1e6, s0 * 1e6, s1 * 1e6);
		CHECK(c1 >= c0 + 5e-6);
		CHECK(s1 >= s0 + 5e-6);
		CHECK(fabs(s1 / c1 - 1) < 0.05);
	}
	return CHECK_DONE("test_latency");
}
