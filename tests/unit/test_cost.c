/*
** tests/unit/test_cost.c: the closed-form model pinned to hand-computed
** values and NCCL's tuning model to the worked vectors of nccl-model.md
** 1.11 (the seeded properties are tests/prop/prop_cost.c).  Run from the
** root.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/cost.h"
#include "../../model/nccl_tables.h"
#include "../../model/topo_yaml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ccs_topo *load_str(const char *text)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	if (ccs_topo_yaml_load_buf("mem.yaml", text, strlen(text), NULL, 0, &t, &d))
		fprintf(stderr, "load: %s\n", d.msg);
	return t;
}

/* 8 GPUs on one switch at 450 GB/s per direction, efficiency 1, 16 channels. */
static const char *const box8 =
	"devices:\n"
	"  - {name: \"g[0-7]\", type: gpu, model: H100}\n"
	"  - {name: sw, type: nvswitch, multicast: true, reduction: true}\n"
	"links:\n"
	"  - {from: \"g[0-7]\", to: sw, type: nvlink, lanes: 18, lane_bandwidth: 25GB/s}\n"
	"model:\n"
	"  efficiency: {nvlink: 1.0}\n"
	"  channels: 16\n"
	"  nvls_channels: 16\n";

/* The same shape at 10 GB/s, so that no protocol cap binds. */
static const char *const slow8 =
	"devices:\n"
	"  - {name: \"g[0-7]\", type: gpu, model: H100}\n"
	"  - {name: sw, type: nvswitch}\n"
	"links:\n"
	"  - {from: \"g[0-7]\", to: sw, type: nvlink, bandwidth: 10GB/s}\n"
	"model:\n"
	"  efficiency: {nvlink: 1.0}\n"
	"  channels: 16\n";

static void test_factors(void)
{
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_ALLREDUCE, 8), 1.75, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_ALLGATHER, 8), 0.875, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_REDUCESCATTER, 8), 0.875, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_ALLTOALL, 8), 0.875, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_BROADCAST, 8), 1.0, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_REDUCE, 8), 1.0, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_SENDRECV, 8), 1.0, 1e-15);
	CHECK_NEAR(ccs_busbw_factor(CCS_COLL_ALLREDUCE, 2), 1.0, 1e-15);
	uint64_t cnt, bytes;
	ccs_coll_shape(CCS_COLL_ALLGATHER, 8, 1000, 4, &cnt, &bytes);
	CHECK(cnt == 28 && bytes == 28 * 8 * 4);            /* 250 elems / 8 = 31, aligned to 4 */
	ccs_coll_shape(CCS_COLL_ALLREDUCE, 8, 1000, 4, &cnt, &bytes);
	CHECK(cnt == 250 && bytes == 1000);
	uint64_t v;
	CHECK(!ccs_parse_nccl_size("64K", &v) && v == 65536);
	CHECK(!ccs_parse_nccl_size("8G", &v) && v == 8ull << 30);
	CHECK(!ccs_parse_nccl_size("16MiB", &v) && v == 16u << 20);
	CHECK(ccs_parse_nccl_size("8X", &v) == -1);
	CHECK(ccs_coll_parse("all_reduce") == CCS_COLL_ALLREDUCE && ccs_coll_parse("AllGather") == CCS_COLL_ALLGATHER);
	CHECK(ccs_algo_parse("NVLSTree") == CCS_ALGO_NVLS_TREE && ccs_algo_parse("CollNetDirect") == CCS_ALGO_COLLNET_DIRECT);
	CHECK(ccs_dtype_parse("bf16")->size == 2 && ccs_dtype_parse("fp8")->size == 1 && !ccs_dtype_parse("float7"));
}

/* A ring, tree and NVLS on a hand-made 8-GPU box, every term computed by
 * hand beside it.  One idea: one worked example, read top to bottom. */
static void test_ring_hand(void)
{
	struct ccs_topo *t = load_str(box8);
	struct ccs_comm c;
	char err[256];
	CHECK(t && !ccs_comm_build(t, 0, 0, &c, err, sizeof err));
	if (!t)
		return;
	CHECK(c.n == 8 && c.G == 1 && c.p == 8 && c.intra_nvl && c.nvls);
	CHECK_NEAR(c.b_su, 450e9, 1e-12);
	/* Ring AllReduce, Simple, 1 GiB:
	 *   W = 2(n-1)/n S = 1.75 S;  W/B = 1.75 * 2^30 / 450e9
	 *   L = 8.4 + 14 * 3.4 us (NCCL's ring Simple base and NVLink hop)
	 *   K = ceil(W / (16 * 1 MiB)) = 112 steps of 1.5 us */
	double S = 1073741824.0, W = 1.75 * S;
	struct ccs_cost cc;
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, (uint64_t)S, &cc, NULL));
	CHECK_NEAR(cc.lat_s, (8.4 + 14 * 3.4) * 1e-6, 1e-12);
	CHECK_NEAR(cc.bw_s, W / 450e9, 1e-12);
	CHECK_NEAR(cc.step_s, 112 * 1.5e-6, 1e-12);
	CHECK_NEAR(cc.time_s, (8.4 + 14 * 3.4) * 1e-6 + W / 450e9 + 112 * 1.5e-6, 1e-12);
	CHECK(cc.channels == 16 && cc.bound == CCS_BOUND_NVLINK);
	/* Small sizes are latency bound: L + one step */
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 8, &cc, NULL));
	CHECK(cc.bound == CCS_BOUND_LATENCY);
	CHECK_NEAR(cc.time_s, (8.4 + 14 * 3.4) * 1e-6 + 14.0 / 450e9 + 1.5e-6, 1e-9);
	/* AllGather: W = (n-1)/n S, n-1 steps */
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLGATHER, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, (uint64_t)S, &cc, NULL));
	CHECK_NEAR(cc.bw_s, 0.875 * S / 450e9, 1e-12);
	CHECK_NEAR(cc.lat_s, (8.4 + 7 * 3.4) * 1e-6, 1e-12);
	/* NVLS AllReduce: W = S at 450 * 8/9 GB/s, L = NCCL's 25 us NVLS hop */
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, (uint64_t)S, &cc, NULL));
	CHECK_NEAR(cc.bw_s, S / (450e9 * 8.0 / 9.0), 1e-12);
	CHECK_NEAR(cc.lat_s, 25e-6, 1e-12);
	/* 1 GiB = 8 MiB x 128 ops: full 128 KiB chunks, S / (16 x 128K) = 512
	 * steps; 16 MiB: 32 KiB x (16M / 8M)^(2/7) chunks */
	CHECK_NEAR(cc.step_s, ceil(S / (16 * 32768.0 * pow(128.0, 2.0 / 7.0))) * 1.5e-6, 1e-9);
	CHECK(cc.step_s <= 513 * 1.5e-6 && cc.step_s >= 512 * 1.5e-6);
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, 16u << 20, &cc, NULL));
	CHECK_NEAR(cc.step_s, ceil(16777216.0 / (16 * 32768.0 * pow(2.0, 2.0 / 7.0))) * 1.5e-6, 1e-9);
	/* busbw of NVLS may exceed the wire rate (the switch reduces) */
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 0, (uint64_t)S * 8, &cc, NULL));
	double busbw = S * 8 / cc.time_s * 1.75;
	CHECK(busbw > 450e9 * 1.0);
	/* Channel scaling: half the channels, twice the steps */
	struct ccs_cost c8, c16;
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 8, (uint64_t)S * 4, &c8, NULL);
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 16, (uint64_t)S * 4, &c16, NULL);
	CHECK_NEAR(c8.step_s, 2 * c16.step_s, 1e-3);
	CHECK_NEAR(c8.bw_s, c16.bw_s, 1e-12);
	/* One-shot and two-shot AllReduce, 1 MiB: every rank moves 7 S (one-shot)
	 * or 2 x 7/8 S (two-shot) over its 450 GB/s, no chunk steps; latency
	 * the kernel's fixed cost (5 and 12 us) plus 2 (3) flags across one
	 * NVLink hop (NCCL's 0.6 us LL hop plus the graph's) */
	{
		double M = 1048576.0, h = 0.6e-6 + c.lat_intra;
		CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)M, &cc, NULL));
		CHECK_NEAR(cc.time_s, 5e-6 + 2 * h + 7 * M / 450e9, 1e-12);
		CHECK(cc.step_s == 0 && cc.bound == CCS_BOUND_NVLINK);
		CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)M, &cc, NULL));
		CHECK_NEAR(cc.time_s, 12e-6 + 3 * h + 1.75 * M / (0.65 * 450e9), 1e-12);
		/* one-shot wins small, two-shot large: they cross where
		 * 7 x / B - 1.75 x / (0.65 B) = 7 us + h */
		struct ccs_cost o, w2;
		double cross = (7e-6 + h) * 450e9 / (7 - 1.75 / 0.65);
		ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)(cross * 0.9), &o, NULL);
		ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)(cross * 0.9), &w2, NULL);
		CHECK(o.time_s < w2.time_s);
		ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)(cross * 1.1), &o, NULL);
		ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_SIMPLE, 0, (uint64_t)(cross * 1.1), &w2, NULL);
		CHECK(o.time_s > w2.time_s);
		const char *w = NULL;
		CHECK(ccs_cost_eval(&c, CCS_COLL_ALLGATHER, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, 1024, &cc, &w) == -1 && w);
		CHECK(ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_LL, 0, 1024, &cc, &w) == -1 && w);
	}
	/* Unavailable: tree is AllReduce only; collnet needs SHARP */
	const char *why = NULL;
	CHECK(ccs_cost_eval(&c, CCS_COLL_ALLGATHER, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 0, 1024, &cc, &why) == -1 && why);
	CHECK(ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_DIRECT, CCS_PROTO_SIMPLE, 0, 1024, &cc, &why) == -1);
	CHECK(ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_LL, 0, 1024, &cc, &why) == -1);
	ccs_comm_release(&c);
	ccs_topo_free(t);
}

static void test_protocols(void)
{
	struct ccs_topo *t = load_str(slow8);
	struct ccs_comm c;
	char err[256];
	CHECK(t && !ccs_comm_build(t, 0, 0, &c, err, sizeof err));
	if (!t)
		return;
	CHECK(!c.nvls);
	struct ccs_cost ll, ll128, simple;
	uint64_t S = 1ull << 28;
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_LL, 0, S, &ll, NULL);
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_LL128, 0, S, &ll128, NULL);
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, S, &simple, NULL);
	/* wire efficiency: LL carries 8 of 16 bytes, LL128 120 of 128 */
	CHECK_NEAR(ll.bw_s / simple.bw_s, 2.0, 1e-12);
	CHECK_NEAR(ll128.bw_s / simple.bw_s, 128.0 / 120.0, 1e-12);
	/* per-hop latencies: NCCL's NVLink ring LL 0.6, LL128 1.9, Simple 3.4 us */
	CHECK_NEAR(ll.lat_s, (6.6 + 14 * 0.6) * 1e-6, 1e-12);
	CHECK_NEAR(ll128.lat_s, (14.0 + 14 * 1.9) * 1e-6, 1e-12);
	/* tree latency terms on 4 nodes of 8: 2((p-1) intra + log2(G) net) */
	ccs_comm_release(&c);
	ccs_topo_free(t);
	const char *sets[] = { "nodes=4" };
	t = fx_load("topologies/hgx-h100.yaml", sets, 1);
	CHECK(t && !ccs_comm_build(t, 0, 0, &c, err, sizeof err));
	if (!t)
		return;
	CHECK(c.G == 4 && c.p == 8);
	/* one network traversal: NIC, leaf (300 ns), NIC for nodes of one group */
	CHECK_NEAR(c.lat_net, 300e-9, 1e-9);
	struct ccs_cost tr;
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_LL, 0, 8, &tr, NULL);
	CHECK_NEAR(tr.lat_s, (6.8 + 2 * (7 * 0.6 + 2 * (5.0 + 0.3))) * 1e-6, 1e-9);
	ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 0, 8, &tr, NULL);
	/* Simple counts the network path twice (NCCL's flush latency) */
	CHECK_NEAR(tr.lat_s, (8.4 + 2 * (7 * 4.0 + 2 * (14.0 + 0.6))) * 1e-6, 1e-9);
	/* per-group NIC bandwidth: 8 x 400 Gb/s x 0.92 */
	CHECK_NEAR(c.B_net, 8 * 50e9 * 0.92, 1e-12);
	CHECK_NEAR(c.b_nic, 50e9 * 0.92, 1e-12);
	ccs_comm_release(&c);
	ccs_topo_free(t);
}

static void test_nccl_vectors(void)
{
	/* nccl-model.md 1.11, case A: 1 node x 8 Hopper, ring graph nChannels 16,
	 * bwIntra 20 GB/s, AllReduce. */
	struct ccs_nccl_in c;
	memset(&c, 0, sizeof c);
	c.net_protos = ~0u;
	c.n = 8;
	c.G = 1;
	c.p = 8;
	c.arch = CCS_ARCH_HOPPER;
	c.intra_nvl = 1;
	c.nch_ring = 16;
	c.intra_GBps = c.inter_GBps = 20;
	double t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_LL, 8192);
	CHECK_NEAR(t * 1e6, 15.0 + 8192 / (1000 * 80.571428), 1e-6);   /* 15.102 us */
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_LL128, 1048576);
	CHECK_NEAR(t * 1e6, 40.6 + 1048576 / (1000 * 168.228571), 1e-6); /* 46.833 us */
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1073741824);
	CHECK_NEAR(t * 1e6, 56.0 + 1073741824 / (1000 * 182.857143), 1e-6); /* 5928.0 us */
	/* case B: 2 nodes x 8, ring nChannels 8, bwIntra = bwInter = 24, Simple:
	 * algBw 102.4, lat (8.4 + 28 * 3.4 + 2 * 14) * 1.4 (plateau) = 184.24 us */
	c.n = 16;
	c.G = 2;
	c.nch_ring = 8;
	c.intra_GBps = c.inter_GBps = 24;
	c.channels = 16;
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1073741824);
	CHECK_NEAR(t * 1e6, 184.24 + 1073741824 / (1000 * 102.4), 1e-6);
	/* tree, 8 channels: algBw min(192 * 0.92, 8 * 41.4) / 2 = 88.32,
	 * lat 8.4 + 2 (7 * 4.0 + 1 * 14) = 92.4 us (no size correction at 1 GiB) */
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1073741824);
	CHECK_NEAR(t * 1e6, 92.4 + 1073741824 / (1000 * 88.32), 1e-6);
	/* the search's second pass raised the tree's bwIntra to 40 (it stays
	 * 24 between nodes): on 2 nodes NCCL's model takes bwIntra, algBw
	 * min(8 * 40 * 0.92, 8 * 41.4) / 2 = 147.2 */
	c.tree_intra_GBps = 40;
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1073741824);
	CHECK_NEAR(t * 1e6, 92.4 + 1073741824 / (1000 * 147.2), 1e-6);
	/* ... and bwInter from 3 nodes on */
	c.G = 3;
	c.n = 24;
	t = ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1073741824);
	CHECK(t * 1e6 > 1073741824 / (1000 * 100.0));
	c.G = 2;
	c.n = 16;
	c.tree_intra_GBps = 0;
	/* what NCCL does not offer */
	CHECK(ccs_nccl_time(&c, CCS_COLL_ALLGATHER, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 1024) < 0);
	CHECK(ccs_nccl_time(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 1024) < 0);
}

/* ---- properties ---- */

static void test_comm_errors(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	struct ccs_comm c;
	char err[256];
	CHECK(t && ccs_comm_build(t, 9, 0, &c, err, sizeof err) == CCS_EINPUT);
	CHECK(!strcmp(err, "9 ranks requested, but hgx-h100 has 8 gpus"));
	CHECK(!ccs_comm_build(t, 4, 0, &c, err, sizeof err) && c.n == 4 && c.p == 4);
	/* 4 ranks use the NICs on their PCIe switches only: 4 x 400G */
	ccs_comm_release(&c);
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *u = fx_load("topologies/hgx-h100.yaml", sets, 1);
	CHECK(u && !ccs_comm_build(u, 8, 4, &c, err, sizeof err));
	if (u) {
		CHECK(c.n == 8 && c.G == 2 && c.p == 4);
		CHECK_NEAR(c.B_net, 4 * 50e9 * 0.92, 1e-12);
		ccs_comm_release(&c);
	}
	ccs_topo_free(t);
	ccs_topo_free(u);
}

/* Uniform all-to-all through the leaves' uplinks: 4 HGX H100 nodes on a
 * 2:1 fat tree of radix 12 (one node per leaf, 8 NICs down, 4 x 400G up).
 * With PXN each node's traffic to the other 3 (24 of 32 ranks) leaves
 * through its leaf's 4 uplinks: half its NICs' rate, so the fabric share is
 * B_net / 2 and the leaf bounds; at 1:1 the NICs do.  The bisection alone
 * (2 | 2 nodes) said 1:1 was enough. */
static void test_leaf_cut(void)
{
	const char *s2[] = { "nodes=4", "scaleout.topology=fat-tree", "scaleout.radix=12", "scaleout.oversubscription=2" };
	const char *s1[] = { "nodes=4", "scaleout.topology=fat-tree", "scaleout.radix=12", "scaleout.oversubscription=1" };
	for (int k = 0; k < 2; k++) {
		struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", k ? s1 : s2, 4);
		CHECK(t != NULL);
		if (!t)
			continue;
		struct ccs_comm c;
		char err[256];
		CHECK(ccs_comm_build(t, 0, 0, &c, err, sizeof err) == 0);
		if (!k) {
			CHECK_NEAR(c.R_fab, c.B_net / 2, 1e-9);
			CHECK(c.fab_bound == CCS_BOUND_LEAF);
		} else {
			CHECK(c.R_fab >= c.B_net * 0.999 && c.fab_bound == CCS_BOUND_NIC);
		}
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
}

/* EFA v1's read-based rendezvous (model/transport.h) against EFA's RDMA
 * protocol on the same two p4de nodes: a tree's channel message above one
 * packet pays two more one-way trips on each of its 2 network hops, in the
 * closed form and in the simulator alike; at or below it, nothing. */
static void test_rendezvous(struct fx_world *efa, struct fx_world *v1)
{
	struct ccs_cost a, b;
	const int C = 8;
	/* 8 channels of 8 KiB: each message exactly one packet */
	CHECK(!ccs_cost_eval(&v1->c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, 8 * 8192, &b, NULL));
	CHECK(b.rdv_s == 0);
	CHECK(!ccs_cost_eval(&v1->c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, 8 * 8192 + 64, &b, NULL));
	CHECK_NEAR(b.rdv_s, 2 * 15e-6, 1e-12);
	uint64_t S = 1 << 20;
	CHECK(!ccs_cost_eval(&efa->c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, S, &a, NULL));
	CHECK(!ccs_cost_eval(&v1->c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, S, &b, NULL));
	CHECK(a.rdv_s == 0);
	CHECK_NEAR(b.lat_s - a.lat_s, 2 * 2 * 15e-6, 1e-12);
	/* a ring's step moves one of n slices: 1 MiB over 16 ranks and 8
	 * channels is 8 KiB, under the eager size; 2 MiB is above */
	CHECK(!ccs_cost_eval(&v1->c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, C, S, &b, NULL));
	CHECK(b.rdv_s == 0);
	CHECK(!ccs_cost_eval(&v1->c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, C, 2 * S, &b, NULL));
	CHECK_NEAR(b.rdv_s, 2 * 15e-6, 1e-12);
	/* the simulator pays the same on the tree's hops */
	struct ccs_sim_stats st;
	double ta = fx_sim_time(&efa->c, efa->fab, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, S, &st);
	double tb = fx_sim_time(&v1->c, v1->fab, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, C, S, &st);
	CHECK(ta > 0 && tb > 0);
	CHECK_NEAR(tb - ta, 4 * 15e-6, 1e-3 * ta);
}

/* Transports (model/transport.h): the same two p4de nodes over each. */
static void test_transports(void)
{
	const char *const sv[][2] = { { "nodes=2", "model.transport=ib" }, { "nodes=2", "model.transport=efa" },
		                      { "nodes=2", "model.transport=efa_sendrecv" }, { "nodes=2", "model.transport=socket" } };
	struct fx_world w[4];
	for (int i = 0; i < 4; i++)
		if (fx_world_up(&w[i], "topologies/aws-p4de.yaml", sv[i], 2, 0)) {
			CHECK(0);
			return;
		}
	struct ccs_cost cc[4];
	const char *why = NULL;
	for (int i = 0; i < 4; i++)
		CHECK(!ccs_cost_eval(&w[i].c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 0, 8, &cc[i], NULL));
	/* EFA's message latency on each of the tree's 2 network hops (Simple) */
	CHECK_NEAR(cc[1].lat_s - cc[0].lat_s, 2 * 15e-6, 1e-9);
	/* the socket transport reaches 40% of the NICs */
	CHECK_NEAR(w[3].c.B_net, 0.4 * w[0].c.B_net, 1e-9);
	/* EFA v1's plugin runs Simple only: no LL across nodes, and NCCL's
	 * choice is Simple at every size */
	CHECK(ccs_cost_eval(&w[2].c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_LL, 0, 8, &cc[2], &why) < 0);
	CHECK(why && strstr(why, "Simple protocol only"));
	int a, q;
	CHECK(!ccs_select(&w[2].c, CCS_COLL_ALLREDUCE, 8, ~0u, ~0u, 1, &a, &q) && q == CCS_PROTO_SIMPLE);
	CHECK(!ccs_select(&w[1].c, CCS_COLL_ALLREDUCE, 8, ~0u, ~0u, 1, &a, &q) && q != CCS_PROTO_SIMPLE);
	/* the per-chunk proxy cost hides under the wire time of Simple's chunks */
	struct ccs_cost s_ib, s_efa;
	CHECK(!ccs_cost_eval(&w[0].c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 1 << 30, &s_ib, NULL));
	CHECK(!ccs_cost_eval(&w[1].c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 1 << 30, &s_efa, NULL));
	CHECK_NEAR(s_efa.bw_s + s_efa.step_s, s_ib.bw_s + s_ib.step_s, 1e-9);
	test_rendezvous(&w[1], &w[2]);
	for (int i = 0; i < 4; i++)
		fx_down(w[i].t, &w[i].c, w[i].fab);
}

/* NVLS across nodes: NCCL's chunk drops from 128 KiB to 32 KiB only when its
 * own NVLS AllReduce bandwidth is below 150 GB/s (src/enqueue.cc): 8 x 400G
 * NICs per HGX H100 node keep 128 KiB, 8 x 100G take 32 KiB. */
static void test_nvls_chunk(void)
{
	const char *const sv[][1] = { { "nodes=2" }, { "nodes=1" } };
	struct fx_world w[2];
	for (int i = 0; i < 2; i++)
		if (fx_world_up(&w[i], "topologies/hgx-h100-cluster.yaml", sv[i], 1, 0)) {
			CHECK(0);
			return;
		}
	struct fx_world slow;
	const char *const ss[] = { "nodes=2", "node.devices.3.bandwidth=100Gb/s" };
	if (fx_world_up(&slow, "topologies/hgx-h100-cluster.yaml", ss, 2, 0)) {
		CHECK(0);
		return;
	}
	/* NCCL offers NVLS across nodes only with CollNet on (off by default) */
	CHECK(ccs_nccl_algbw(&w[0].c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE) == 0);
	w[0].c.nccl.collnet = slow.c.nccl.collnet = 1;
	double fast = ccs_nccl_algbw(&w[0].c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE);
	double low = ccs_nccl_algbw(&slow.c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE);
	CHECK(fast >= 150 && low > 0 && low < 150);
	double S = 1 << 30;
	CHECK_NEAR(ccs_cost_chunk(&w[0].c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 16, S), 131072, 1e-6);
	CHECK_NEAR(ccs_cost_chunk(&slow.c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 16, S), 32768, 1e-6);
	CHECK_NEAR(ccs_cost_chunk(&w[1].c, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE, 16, S), 131072, 1e-6);
	for (int i = 0; i < 2; i++)
		fx_down(w[i].t, &w[i].c, w[i].fab);
	fx_down(slow.t, &slow.c, slow.fab);
}

/* NCCL's model as an older release (model.nccl_version; nccl_tune.c's
 * table): before 2.28 NVLS takes 5/6 of its busBw where 2.28 and later take
 * nvlsEfficiency (0.85 on Hopper); before 2.23 there is no PAT and the
 * Simple tree's base latency is 0 with 28 us hops. */
static void test_nccl_versions(void)
{
	const char *const s30[] = { "nodes=1" }, *const s21[] = { "nodes=1", "model.nccl_version=2.21.5" };
	const char *const p30[] = { "nodes=4" }, *const p21[] = { "nodes=4", "model.nccl_version=2.21" };
	struct fx_world a, b, pa, pb;
	if (fx_world_up(&a, "topologies/hgx-h100-cluster.yaml", s30, 1, 0) ||
	    fx_world_up(&b, "topologies/hgx-h100-cluster.yaml", s21, 2, 0) ||
	    fx_world_up(&pa, "topologies/hgx-h100-cluster.yaml", p30, 1, 1) ||
	    fx_world_up(&pb, "topologies/hgx-h100-cluster.yaml", p21, 2, 1)) {
		CHECK(0);
		return;
	}
	CHECK(b.c.prm.nccl_version == 221 && a.c.prm.nccl_version == 0);
	double n30 = ccs_nccl_algbw(&a.c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE);
	double n21 = ccs_nccl_algbw(&b.c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE);
	CHECK_NEAR(n21 / n30, (5.0 / 6.0) / 0.85, 1e-9);
	CHECK(ccs_nccl_time(&pa.c.nccl, CCS_COLL_ALLGATHER, CCS_ALGO_PAT, CCS_PROTO_SIMPLE, 1 << 20) > 0);
	CHECK(ccs_nccl_time(&pb.c.nccl, CCS_COLL_ALLGATHER, CCS_ALGO_PAT, CCS_PROTO_SIMPLE, 1 << 20) < 0);
	/* one node, 8 ranks: the Simple tree's latency is 8.4 + 2 x 7 x 4.0 us
	 * now and 0 + 2 x 7 x 28 us in 2.21 */
	double t30 = ccs_nccl_time(&a.c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 8);
	double t21 = ccs_nccl_time(&b.c.nccl, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, CCS_PROTO_SIMPLE, 8);
	CHECK_NEAR(t21 - t30, (2 * 7 * 28.0 - 8.4 - 2 * 7 * 4.0) * 1e-6, 1e-3);
	fx_down(a.t, &a.c, a.fab);
	fx_down(b.t, &b.c, b.fab);
	fx_down(pa.t, &pa.c, pa.fab);
	fx_down(pb.t, &pb.c, pb.fab);
}

int main(void)
{
	test_factors();
	test_ring_hand();
	test_protocols();
	test_nccl_vectors();
	test_comm_errors();
	test_leaf_cut();
	test_transports();
	test_nvls_chunk();
	test_nccl_versions();
	return CHECK_DONE("test_cost");
}
