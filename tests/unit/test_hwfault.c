#define _DEFAULT_SOURCE
/* tests/unit/test_hwfault.c: hardware faults (model/fault.h) in the model
 * and the simulator: dead spines, dead NICs, hangs, stragglers, degraded
 * PCIe links, and the errors of bad fault strings. */
#include "../check.h"
#include "fixture.h"

#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/fault.h"
#include "../../model/params.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sim.h"
#include "../../sim/sched/sched.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Simulated time of coll/algo/proto on all of t's GPUs; -1 on failure
 * (err gets why). */
static double sim_time(const struct ccs_topo *t, int coll, int algo, int proto, uint64_t bytes, char *err, size_t errn)
{
	struct ccs_comm c;
	double T = -1;
	if (ccs_comm_build(t, 0, 0, &c, err, errn))
		return -1;
	struct ccs_sched s;
	const char *why = NULL;
	struct ccs_fabric *fab = NULL;
	struct ccs_sim_stats st;
	if (ccs_sched_build(&c, coll, algo, proto, 0, bytes, &s, &why)) {
		snprintf(err, errn, "%s", why ? why : "no schedule");
	} else {
		if (!ccs_fabric_new(&c, &fab) && !ccs_sim_run(fab, &s, &st, NULL, err, errn))
			T = st.time_s;
		ccs_fabric_free(fab);
		ccs_sched_release(&s);
	}
	ccs_comm_release(&c);
	return T;
}

static double model_time(const struct ccs_topo *t, int coll, int algo, int proto, uint64_t bytes)
{
	struct ccs_comm c;
	char err[256];
	if (ccs_comm_build(t, 0, 0, &c, err, sizeof err))
		return -1;
	struct ccs_cost cc;
	double T = ccs_cost_eval(&c, coll, algo, proto, 0, bytes, &cc, NULL) ? -1 : cc.time_s;
	ccs_comm_release(&c);
	return T;
}

static void test_errors(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", (const char *const[]){ "nodes=2" }, 1);
	CHECK(t != NULL);
	if (!t)
		return;
	char err[256];
	static const struct { const char *spec, *want; } bad[] = {
		{ "cable:a-b:down", "expected KIND:TARGET:WHAT" },
		{ "nic:node9/nic0:down", "no device 'node9/nic0'" },
		{ "nic:node0/gpu0:down", "not a nic" },
		{ "nic:node0/nic0:150%", "a nic goes 'down' or runs at a share" },
		{ "link:node0/gpu0-node1/gpu0:down", "share no link" },
		{ "link:node0/nic0-leaf0:+2", "adds latency" },
		{ "switch:node0/nic0:down", "not a switch" },
		{ "pcie:node0/gpu0:x3", "trains at a width" },
		{ "pcie:node0/nic0:x8", "not a gpu" },
		{ "straggler:node0/gpu0:20", "starts late by a time" },
		{ "link", "expected KIND:TARGET:WHAT" },
		{ "link:node0/nic0-leaf0:down@-3us", "must not be negative" },
		{ "link:node0/nic0-leaf0:down@3", "missing unit" },
		{ "nic:node0/nic0:down@1us@2us", "one '@' at most" },
		{ "link:node0/nic0-leaf0:+2us@3us", "can strike during a run" },
		{ "straggler:node0/gpu0:20us@1us", "late start applies from the start" },
		{ "pcie:node0/gpu0:x3@1us", "trains at a width" },
		{ "gdr:all:off@1us", "GPUDirect RDMA off applies from the start" },
		{ "switch:node0/nic0:down@1us", "not a switch" },
		{ "link:node0/gpu0-node1/gpu0:down@1us", "share no link" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		int rc = ccs_fault_apply(t, bad[i].spec, err, sizeof err);
		CHECK(rc == CCS_EINPUT && strstr(err, bad[i].want));
		if (!strstr(err, bad[i].want))
			fprintf(stderr, "  %s -> %s\n", bad[i].spec, err);
	}
	CHECK(t->nfault == 0 && t->ntimed == 0);   /* refused faults are not recorded */
	ccs_topo_free(t);
	/* in a file: the position of the bad entry */
	FILE *f = fopen("/tmp/ccsim-test-faults.yaml", "w");
	if (f) {
		char here[512];
		CHECK(getcwd(here, sizeof here) != NULL);
		fprintf(f, "extends: %s/topologies/hgx-h100-cluster.yaml\nnodes: 2\nfaults:\n  - nic:node1/nic0:down\n  - nic:node1/nic9:down\n", here);
		fclose(f);
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		struct ccs_topo *t2 = NULL;
		CHECK(ccs_topo_yaml_load("/tmp/ccsim-test-faults.yaml", NULL, 0, &t2, &d) == CCS_EINPUT);
		CHECK(d.set && strstr(d.msg, "ccsim-test-faults.yaml:5:5: fault 'nic:node1/nic9:down': no device 'node1/nic9'"));
		remove("/tmp/ccsim-test-faults.yaml");
	}
}

/* A dead spine: the bisection drops by its share, the closed form's
 * fabric share with it, and the simulated AllToAll slows by about what the
 * remaining spines carry, not exactly 4/3: InfiniBand's destination-based
 * tables (dmodk) spread a leaf's 8 destinations over its 6 live uplinks
 * (two to each of 3 spines), so two uplinks carry two (measured 1.49x). */
static void test_dead_spine(void)
{
	const char *base[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=16" };
	const char *dead[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=16", "faults+=switch:spine0:down" };
	struct ccs_topo *a = fx_load("topologies/hgx-h100-cluster.yaml", base, 3);
	struct ccs_topo *b = fx_load("topologies/hgx-h100-cluster.yaml", dead, 4);
	CHECK(a && b);
	if (!a || !b) {
		ccs_topo_free(a);
		ccs_topo_free(b);
		return;
	}
	struct ccs_topo_stats sa, sb;
	CHECK(ccs_topo_stats(a, &sa) == 0 && ccs_topo_stats(b, &sb) == 0);
	CHECK_NEAR(sb.so_bisect_Bps, sa.so_bisect_Bps * 0.75, 1e-9);   /* 4 spines -> 3 */
	char err[256];
	double ta = sim_time(a, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 64u << 20, err, sizeof err);
	double tb = sim_time(b, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 64u << 20, err, sizeof err);
	CHECK(ta > 0 && tb > 0);
	CHECK(tb / ta > 1.15 && tb / ta < 1.6);
	if (!(tb / ta > 1.15 && tb / ta < 1.6))
		fprintf(stderr, "dead spine: %.1f us -> %.1f us (%.3fx)\n", ta * 1e6, tb * 1e6, tb / ta);
	ccs_topo_free(a);
	ccs_topo_free(b);
	/* the last spine of a one-spine fabric: no path, a hang that names it */
	const char *one[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=48", "scaleout.oversubscription=2",
	                      "faults+=switch:spine0:down" };
	struct ccs_topo *c = fx_load("topologies/hgx-h100-cluster.yaml", one, 5);
	CHECK(c != NULL);
	if (c) {
		err[0] = 0;
		CHECK(sim_time(c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 20, err, sizeof err) < 0);
		CHECK(strstr(err, "hang: rank") && strstr(err, "no path over live links (faults: switch:spine0:down)"));
		ccs_topo_free(c);
	}
}

/* Dead NICs: with one left on the node the rail moves to it (model and
 * simulator agree); with none the communicator hangs and says which rank. */
static void test_dead_nics(void)
{
	const char *one[] = { "nodes=2", "faults+=nic:node1/nic0:down" };
	struct ccs_topo *h = fx_load("topologies/hgx-h100-cluster.yaml", (const char *const[]){ "nodes=2" }, 1);
	struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", one, 2);
	CHECK(h && t);
	if (h && t) {
		CHECK(t->gpu[8].nic_count == h->gpu[8].nic_count - 1);
		char err[256];
		double m0 = model_time(h, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 64u << 20);
		double m1 = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 64u << 20);
		double s1 = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 64u << 20, err, sizeof err);
		CHECK(m1 > m0);
		CHECK_NEAR(s1, m1, 0.01);
	}
	ccs_topo_free(h);
	ccs_topo_free(t);
	const char *all[] = { "nodes=2", "faults+=nic:node1/nic0:down", "faults+=nic:node1/nic1:down",
	                      "faults+=nic:node1/nic2:down", "faults+=nic:node1/nic3:down", "faults+=nic:node1/nic4:down",
	                      "faults+=nic:node1/nic5:down", "faults+=nic:node1/nic6:down", "faults+=nic:node1/nic7:down" };
	t = fx_load("topologies/hgx-h100-cluster.yaml", all, 9);
	CHECK(t != NULL);
	if (t) {
		struct ccs_comm c;
		char err[512];
		CHECK(ccs_comm_build(t, 0, 0, &c, err, sizeof err) == CCS_EINPUT);
		CHECK(strstr(err, "hang: rank 8 (node1/gpu0) has no working nic") && strstr(err, "(down: node1/nic0, node1/nic1 and 6 more)"));
		/* one node alone still works: it needs no NIC */
		CHECK(ccs_comm_build(t, 8, 0, &c, err, sizeof err) == 0);
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
}

/* A straggler delays the ring by its delay, in both engines. */
static void test_straggler(void)
{
	const char *s[] = { "nodes=2", "faults+=straggler:node1/gpu2:20us" };
	struct ccs_topo *h = fx_load("topologies/hgx-h100-cluster.yaml", (const char *const[]){ "nodes=2" }, 1);
	struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", s, 2);
	CHECK(h && t);
	if (h && t) {
		char err[256];
		for (int q = 0; q < CCS_PROTO_N; q++) {
			double a = sim_time(h, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, q, 16u << 20, err, sizeof err);
			double b = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, q, 16u << 20, err, sizeof err);
			CHECK_NEAR(b - a, 20e-6, 0.001);
			double ma = model_time(h, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, q, 16u << 20);
			double mb = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, q, 16u << 20);
			CHECK_NEAR(mb - ma, 20e-6, 1e-6);
		}
	}
	ccs_topo_free(h);
	ccs_topo_free(t);
	/* a GPU that reduces at a quarter of its memory rate: one node's 1 GiB
	 * ring AllReduce turns memory-bound in the closed form */
	struct ccs_topo *a = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	struct ccs_topo *b = fx_load("topologies/hgx-h100.yaml", (const char *const[]){ "faults+=straggler:node0/gpu3:25%" }, 1);
	CHECK(a && b);
	if (a && b) {
		struct ccs_comm c;
		char err[256];
		struct ccs_cost ca, cb;
		CHECK(ccs_comm_build(a, 0, 0, &c, err, sizeof err) == 0);
		CHECK(ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 1u << 30, &ca, NULL) == 0);
		ccs_comm_release(&c);
		CHECK(ccs_comm_build(b, 0, 0, &c, err, sizeof err) == 0);
		CHECK_NEAR(c.mem_bw, 3.35e12 * 0.25, 1e-9);
		CHECK(ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 1u << 30, &cb, NULL) == 0);
		ccs_comm_release(&c);
		CHECK(cb.time_s > ca.time_s && cb.bound == CCS_BOUND_REDUCE && ca.bound != CCS_BOUND_REDUCE);
		/* the simulator charges the slow GPU's sends on its memory: the
		 * ring is held to it, as the closed form says (1 and 2 nodes) */
		double sa = sim_time(a, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		double sb = sim_time(b, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		CHECK_NEAR(sa, ca.time_s, 1e-6);
		CHECK_NEAR(sb, cb.time_s, 1e-6);
	}
	ccs_topo_free(a);
	ccs_topo_free(b);
	const char *two[] = { "nodes=2", "faults+=straggler:node0/gpu3:25%" };
	struct ccs_topo *d = fx_load("topologies/hgx-h100.yaml", two, 2);
	CHECK(d != NULL);
	if (d) {
		char err[256];
		double m = model_time(d, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30);
		double x = sim_time(d, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		CHECK_NEAR(x, m, 0.01);
		/* the tree: held back more than the closed form says (its chains
		 * wait on the slow rank's pipeline), never less */
		double mt = model_time(d, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1u << 30);
		double xt = sim_time(d, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		CHECK(xt >= mt && xt < 1.2 * mt);
		ccs_topo_free(d);
	}
}

/* PCIe trained at x8 or one generation down halves the GPU's link; a link
 * at 50% carries half; a link down leaves the graph's live links. */
static void test_degraded(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	CHECK(t != NULL);
	if (!t)
		return;
	int64_t g = ccs_topo_find(t, "node0/gpu3");
	CHECK(g >= 0);
	if (g < 0) {
		ccs_topo_free(t);
		return;
	}
	double before = 0, after = 0;
	for (uint32_t k = t->adj_off[g]; k < t->adj_off[g + 1]; k++)
		if (t->link[t->adj[k]].type == CCS_LINK_PCIE)
			before += t->link[t->adj[k]].bw_Bps;
	char err[256];
	CHECK(ccs_fault_apply(t, "pcie:node0/gpu3:x8", err, sizeof err) == 0);
	for (uint32_t k = t->adj_off[g]; k < t->adj_off[g + 1]; k++)
		if (t->link[t->adj[k]].type == CCS_LINK_PCIE)
			after += t->link[t->adj[k]].bw_Bps;
	CHECK_NEAR(after, before / 2, 1e-12);
	CHECK(ccs_fault_apply(t, "pcie:node0/gpu3:gen4", err, sizeof err) == 0);   /* gen5 x8 -> gen4 x8 */
	double after2 = 0;
	for (uint32_t k = t->adj_off[g]; k < t->adj_off[g + 1]; k++)
		if (t->link[t->adj[k]].type == CCS_LINK_PCIE)
			after2 += t->link[t->adj[k]].bw_Bps;
	CHECK_NEAR(after2, before / 4, 1e-12);
	CHECK(t->nfault == 2 && !strcmp(t->fault[1], "pcie:node0/gpu3:gen4"));
	ccs_topo_free(t);
}

/* GPUDirect off: the traffic is staged through the CPU; a 1 GiB ring on 2
 * HGX H100 nodes, where two GPUs and two NICs share each PCIe switch's link
 * to the CPU: the closed form's share of that link equals what the
 * simulator's routes through the CPU give. */
static void test_gdr_off(void)
{
	const char *all[] = { "nodes=2", "faults+=gdr:all:off" };
	const char *one[] = { "nodes=2", "faults+=gdr:node1/gpu3:off" };
	struct ccs_topo *h = fx_load("topologies/hgx-h100-cluster.yaml", (const char *const[]){ "nodes=2" }, 1);
	struct ccs_topo *a = fx_load("topologies/hgx-h100-cluster.yaml", all, 2);
	struct ccs_topo *b = fx_load("topologies/hgx-h100-cluster.yaml", one, 2);
	CHECK(h && a && b);
	if (h && a && b) {
		char err[256];
		double s0 = sim_time(h, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		for (int k = 0; k < 2; k++) {
			struct ccs_topo *t = k ? b : a;
			double m = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30);
			double s1 = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
			CHECK(s1 > 1.5 * s0);
			CHECK_NEAR(m, s1, 0.01);
		}
		CHECK(ccs_fault_apply(h, "gdr:node0/nic0:off", err, sizeof err) == CCS_EINPUT && strstr(err, "goes 'off' for a gpu"));
	}
	ccs_topo_free(h);
	ccs_topo_free(a);
	ccs_topo_free(b);
}

/* ACS redirection: on NVLink machines the GPU-NIC path of GDR off (the same
 * times in both engines as gdr:all:off) and P2P untouched; on a PCIe-only
 * machine P2P through the root complex too; it goes 'on', from the start. */
static void test_acs(void)
{
	const char *acs[] = { "nodes=2", "faults+=acs:all:on" };
	const char *gdr[] = { "nodes=2", "faults+=gdr:all:off" };
	struct ccs_topo *a = fx_load("topologies/hgx-h100-cluster.yaml", acs, 2);
	struct ccs_topo *g = fx_load("topologies/hgx-h100-cluster.yaml", gdr, 2);
	struct ccs_topo *p = fx_load("topologies/pcie-8gpu.yaml", (const char *const[]){ "faults+=acs:all:on" }, 1);
	CHECK(a && g && p);
	if (a && g && p) {
		char err[256];
		int same = 1, nvl_p2p = 0, pcie_p2p = 1;
		for (uint32_t i = 0; i < a->ngpu; i++) {
			same &= a->gpu[i].no_gdr == 1;
			nvl_p2p |= a->gpu[i].no_p2p;
		}
		for (uint32_t i = 0; i < p->ngpu; i++)
			pcie_p2p &= p->gpu[i].no_p2p && p->gpu[i].no_gdr;
		CHECK(same && !nvl_p2p && pcie_p2p);
		double ma = model_time(a, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30);
		double mg = model_time(g, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30);
		double sa = sim_time(a, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		CHECK_NEAR(ma, mg, 1e-12);
		CHECK_NEAR(ma, sa, 0.01);
		CHECK(ccs_fault_apply(a, "acs:all:off", err, sizeof err) == CCS_EINPUT && strstr(err, "goes 'on' for a gpu"));
		CHECK(ccs_fault_apply(a, "acs:all:on@1ms", err, sizeof err) == CCS_EINPUT && strstr(err, "from the start"));
	}
	ccs_topo_free(a);
	ccs_topo_free(g);
	ccs_topo_free(p);
}

/* A GPU held to another NIC of its node (rail:GPU:NIC): next door (same
 * PCIe switch) it keeps GPUDirect, across the CPUs it loses it; the rings'
 * and trees' NIC placement (model/ring_nic.h) gives both engines the same
 * time, the ring about twice healthy's with one NIC carrying two GPUs'
 * channels.  A NIC down and AWS p5's four NICs per GPU put the trees'
 * channels on the NICs the same way in both engines. */
static void test_rail(void)
{
	const char *near[] = { "nodes=2", "faults+=rail:node0/gpu0:node0/nic1" };
	const char *far[] = { "nodes=2", "faults+=rail:node0/gpu0:node0/nic4" };
	const char *down[] = { "nodes=2", "faults+=nic:node0/nic0:down" };
	struct ccs_topo *h = fx_load("topologies/hgx-h100-cluster.yaml", (const char *const[]){ "nodes=2" }, 1);
	struct ccs_topo *a = fx_load("topologies/hgx-h100-cluster.yaml", near, 2);
	struct ccs_topo *b = fx_load("topologies/hgx-h100-cluster.yaml", far, 2);
	struct ccs_topo *d = fx_load("topologies/hgx-h100-cluster.yaml", down, 2);
	struct ccs_topo *p5 = fx_load("topologies/aws-p5.yaml", (const char *const[]){ "nodes=2" }, 1);
	CHECK(h && a && b && d && p5);
	if (h && a && b && d && p5) {
		char err[256];
		const uint64_t S = 1u << 30;
		int64_t g0 = ccs_topo_find(a, "node0/gpu0"), n1 = ccs_topo_find(a, "node0/nic1");
		const struct ccs_gpu *ga = &a->gpu[a->gpu_of_dev[g0]], *gb = &b->gpu[b->gpu_of_dev[g0]];
		CHECK(ga->nic_count == 1 && a->gnic[ga->nic_first].nic == (uint32_t)n1 && !ga->no_gdr);
		CHECK(gb->nic_count == 1 && gb->no_gdr);
		double s0 = sim_time(h, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, S, err, sizeof err);
		for (int k = 0; k < 2; k++) {
			struct ccs_topo *t = k ? b : a;
			double m = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, S);
			double s1 = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, S, err, sizeof err);
			CHECK(s1 > 1.8 * s0);
			CHECK_NEAR(m, s1, 0.01);
			m = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, S);
			s1 = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, S, err, sizeof err);
			CHECK_NEAR(m, s1, 0.01);
		}
		for (int k = 0; k < 2; k++) {
			struct ccs_topo *t = k ? p5 : d;
			double m = model_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, S);
			double s1 = sim_time(t, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, S, err, sizeof err);
			CHECK_NEAR(m, s1, 0.05);
		}
		CHECK(ccs_fault_apply(h, "rail:node0/gpu0:node1/nic1", err, sizeof err) == CCS_EINPUT &&
		      strstr(err, "a gpu and a nic of its node"));
		CHECK(ccs_fault_apply(h, "rail:node0/nic0:node0/nic1", err, sizeof err) == CCS_EINPUT &&
		      strstr(err, "a gpu and a nic of its node"));
		CHECK(ccs_fault_apply(h, "rail:node0/gpu0:node0/nic1@1ms", err, sizeof err) == CCS_EINPUT &&
		      strstr(err, "from the start"));
		CHECK(ccs_fault_apply(d, "rail:node0/gpu1:node0/nic0", err, sizeof err) == CCS_EINPUT &&
		      strstr(err, "is down"));
	}
	ccs_topo_free(h);
	ccs_topo_free(a);
	ccs_topo_free(b);
	ccs_topo_free(d);
	ccs_topo_free(p5);
}

/* P2P off: the GPUs of a node exchange through host memory; on one HGX
 * H100 node two GPUs share each PCIe switch's Gen5 x16 uplink, so a ring
 * runs at half that link (x 0.85): the closed form's rate equals what the
 * simulator's routes through the CPU give; NVLS goes (it is NVLink's). */
static void test_p2p_off(void)
{
	const char *all[] = { "nodes=1", "faults+=p2p:all:off" };
	struct ccs_topo *a = fx_load("topologies/hgx-h100-cluster.yaml", all, 2);
	CHECK(a != NULL);
	if (a) {
		char err[256];
		double m = model_time(a, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30);
		double s1 = sim_time(a, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1u << 30, err, sizeof err);
		CHECK_NEAR(m, s1, 0.01);
		struct ccs_comm c;
		CHECK(!ccs_comm_build(a, 8, 0, &c, err, sizeof err));
		CHECK_NEAR(c.b_su, 63.015e9 * ccs_param("efficiency.pcie") / 2, 0.01);
		CHECK(!c.nvls && c.su_bound == CCS_BOUND_PCIE);
		ccs_comm_release(&c);
		CHECK(ccs_fault_apply(a, "p2p:all:off@1us", err, sizeof err) == CCS_EINPUT && strstr(err, "P2P off applies from the start"));
	}
	ccs_topo_free(a);
}

/* The closed form across timed faults: work at each phase's rate. */
static void test_progress(void)
{
	double at[3] = { 0, 2, 5 }, full[3] = { 4, 8, 1 };
	/* half done at 2, then 8 x 0.5 = 4 more: ends at 6 > 5?  at 5 it has
	 * done 0.5 + 3/8; the rest, 1/8 of 1, takes 0.125 */
	CHECK_NEAR(ccs_fault_progress(at, full, 3), 5.125, 1e-12);
	CHECK_NEAR(ccs_fault_progress(at, full, 2), 6, 1e-12);
	double f2[2] = { 1.5, 8 };
	CHECK_NEAR(ccs_fault_progress(at, f2, 2), 1.5, 1e-12);   /* done before it strikes */
	double f3[2] = { 4, -1 };
	CHECK(ccs_fault_progress(at, f3, 2) == -2);               /* hangs in phase 1 */
	double f4[2] = { 1, -1 };
	CHECK_NEAR(ccs_fault_progress(at, f4, 2), 1, 1e-12);      /* done before the hang */
}

/* Simulated and closed-form time of a ring AllReduce of 1 GiB on t; the
 * closed form follows ccs_fault_progress as ccsim predict does, with the
 * struck hardware from t2 (NULL: no timed fault). */
static void test_timed(void)
{
	const char *healthy[] = { "nodes=4" };
	const char *stat[] = { "nodes=4", "faults+=nic:node1/nic0:50%" };
	const char *timed[] = { "nodes=4", "faults+=nic:node1/nic0:50%@2ms" };
	const char *late[] = { "nodes=4", "faults+=nic:node1/nic0:50%@30ms" };
	struct ccs_topo *th = fx_load("topologies/hgx-h100.yaml", healthy, 1);
	struct ccs_topo *ts = fx_load("topologies/hgx-h100.yaml", stat, 2);
	struct ccs_topo *tt = fx_load("topologies/hgx-h100.yaml", timed, 2);
	struct ccs_topo *tl = fx_load("topologies/hgx-h100.yaml", late, 2);
	CHECK(th && ts && tt && tl);
	if (!th || !ts || !tt || !tl)
		goto out;
	CHECK(tt->ntimed == 1 && tt->nfault == 1 && tt->timed[0].at_s == 2e-3 && tt->timed[0].share == 0.5);
	/* the topology stays healthy: the closed form sees no change */
	CHECK_NEAR(model_time(tt, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30),
	           model_time(th, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30), 1e-12);
	char err[256];
	double h = sim_time(th, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	double f = sim_time(ts, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	double x = sim_time(tt, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	double y = sim_time(tl, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	CHECK(h > 0 && f > 1.9 * h && x > 0);
	CHECK(y == h);                      /* it strikes after the end: no effect at all */
	/* the simulated run works at the healthy rate to 2 ms, then at the
	 * degraded one: what ccs_fault_progress gives from the two times */
	double at[2] = { 0, 2e-3 }, full[2] = { h, f };
	double want = ccs_fault_progress(at, full, 2);
	fprintf(stderr, "timed nic 50%% at 2 ms: healthy %.1f us, from the start %.1f us, at 2 ms %.1f us (progress %.1f)\n",
	        h * 1e6, f * 1e6, x * 1e6, want * 1e6);
	CHECK(x > h && x < f);
	CHECK_NEAR(x, want, 0.03);
	/* a PCIe link that retrains at x8, and a GPU whose memory slows to
	 * 25%, 2 ms into the run: between healthy and from the start in the
	 * simulator, within 3% of the closed form's progress */
	{
		static const char *const late2[][2] = { { "pcie:node1/gpu0:x8@2ms", "pcie:node1/gpu0:x8" },
		                                        { "straggler:node0/gpu3:25%@2ms", "straggler:node0/gpu3:25%" } };
		for (int i = 0; i < 2; i++) {
			char a1[64], a2[64];
			snprintf(a1, sizeof a1, "faults+=%s", late2[i][0]);
			snprintf(a2, sizeof a2, "faults+=%s", late2[i][1]);
			const char *sa[] = { "nodes=2", a1 }, *sb[] = { "nodes=2", a2 }, *sh[] = { "nodes=2" };
			struct ccs_topo *ta = fx_load("topologies/hgx-h100.yaml", sa, 2);
			struct ccs_topo *tb = fx_load("topologies/hgx-h100.yaml", sb, 2);
			struct ccs_topo *th2 = fx_load("topologies/hgx-h100.yaml", sh, 1);
			CHECK(ta && tb && th2);
			if (ta && tb && th2) {
				CHECK(ta->ntimed >= 1 && ta->nfault == 1);
				double x2 = sim_time(ta, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
				double f2 = sim_time(tb, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
				double h2 = sim_time(th2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
				CHECK(x2 > h2 && x2 < f2);
				double mh = model_time(th2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30);
				CHECK(ccs_fault_settle(ta, ta->ntimed) == 0);
				double mf = model_time(ta, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30);
				CHECK_NEAR(mf, model_time(tb, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30), 1e-12);
				double at2[2] = { 0, 2e-3 }, full2[2] = { mh, mf };
				CHECK_NEAR(x2, ccs_fault_progress(at2, full2, 2), 0.03);
			}
			ccs_topo_free(ta);
			ccs_topo_free(tb);
			ccs_topo_free(th2);
		}
	}
	/* the fault settled into a copy is the static one */
	CHECK(ccs_fault_settle(tt, 1) == 0);
	CHECK_NEAR(model_time(tt, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30),
	           model_time(ts, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30), 1e-12);
out:
	ccs_topo_free(th);
	ccs_topo_free(ts);
	ccs_topo_free(tt);
	ccs_topo_free(tl);
}

/* Flows move off a spine that dies mid-run (ECMP around it): every byte
 * still arrives, the allocation stays max-min and within capacity after
 * the strike, the time lies between healthy and dead-from-the-start, and
 * the same fabric runs healthy-then-struck again byte for byte.  A NIC
 * that dies under a ring hangs it, named with the time and the fault. */
static uint32_t bad_alloc, bad_alloc_nres;
static void on_rates(void *ctx, const struct ccs_flows *fl, ccs_time t)
{
	(void)ctx;
	(void)t;
	bad_alloc += ccs_flows_check(fl);
	for (uint32_t r = 0; r < bad_alloc_nres; r++)
		if (ccs_flows_load(fl, r) > ccs_flows_cap(fl, r) * (1 + 1e-9) + 1e-3)
			bad_alloc++;
}

static void test_timed_reroute(void)
{
	const char *base[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=16" };
	const char *dead[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=16", "faults+=switch:spine0:down" };
	const char *mid[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=16",
	                      "faults+=switch:spine0:down@5ms" };
	struct ccs_topo *ta = fx_load("topologies/hgx-h100.yaml", base, 3);
	struct ccs_topo *tb = fx_load("topologies/hgx-h100.yaml", dead, 4);
	struct ccs_topo *tm = fx_load("topologies/hgx-h100.yaml", mid, 4);
	CHECK(ta && tb && tm);
	if (!ta || !tb || !tm)
		goto out;
	char err[256];
	double h = sim_time(ta, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	double d = sim_time(tb, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err);
	struct ccs_comm c;
	CHECK(!ccs_comm_build(tm, 0, 0, &c, err, sizeof err));
	struct ccs_sched s;
	const char *why;
	struct ccs_fabric *fab = NULL;
	CHECK(!ccs_sched_build(&c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, 1ull << 30, &s, &why));
	CHECK(!ccs_fabric_new(&c, &fab));
	struct ccs_sim_stats st, st2;
	bad_alloc = 0;
	bad_alloc_nres = ccs_fabric_nres(fab);
	struct ccs_sim_hooks hk = { .rates = on_rates };
	CHECK(!ccs_sim_run_hooked(fab, &s, &st, NULL, &hk, err, sizeof err));
	CHECK(!ccs_sim_run(fab, &s, &st2, NULL, err, sizeof err));
	fprintf(stderr, "spine dies at 5 ms: healthy %.1f us, dead from the start %.1f us, struck %.1f us\n", h * 1e6,
	        d * 1e6, st.time_s * 1e6);
	CHECK(bad_alloc == 0);
	CHECK(st.time_s > h && st.time_s < d);
	CHECK_NEAR(st.bytes_received, st.bytes_sent, 1e-12);
	CHECK(st.time_s == st2.time_s && st.events == st2.events);   /* the fabric rewinds */
	ccs_sched_release(&s);
	ccs_fabric_free(fab);
	ccs_comm_release(&c);
	/* a NIC dying under a ring */
	const char *nic[] = { "nodes=4", "faults+=nic:node1/nic0:down@3ms" };
	struct ccs_topo *tn = fx_load("topologies/hgx-h100.yaml", nic, 2);
	CHECK(tn != NULL);
	if (tn) {
		err[0] = 0;
		CHECK(sim_time(tn, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 30, err, sizeof err) < 0);
		CHECK(strstr(err, "hang at 3000.000 us: rank ") &&
		      strstr(err, "once 'nic:node1/nic0:down@3ms' struck: no path over live links"));
		/* a small one is done before it strikes */
		CHECK(sim_time(tn, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1ull << 20, err, sizeof err) > 0);
		ccs_topo_free(tn);
	}
out:
	ccs_topo_free(ta);
	ccs_topo_free(tb);
	ccs_topo_free(tm);
}

int main(void)
{
	test_errors();
	test_dead_spine();
	test_dead_nics();
	test_straggler();
	test_degraded();
	test_gdr_off();
	test_p2p_off();
	test_acs();
	test_rail();
	test_progress();
	test_timed();
	test_timed_reroute();
	return CHECK_DONE("test_hwfault");
}
