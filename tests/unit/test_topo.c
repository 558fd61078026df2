/*
** tests/unit/test_topo.c: shipped topologies against hand-computed figures,
** the explicit form, --set, extends, and the generators.  Run from the
** repository root (tests/run.sh does).
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/topo_names.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"

#include <string.h>

static struct ccs_topo *load_str(const char *text, char *err, size_t errn)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	if (ccs_topo_yaml_load_buf("mem.yaml", text, strlen(text), NULL, 0, &t, &d)) {
		snprintf(err, errn, "%s", d.msg);
		return NULL;
	}
	return t;
}

static int stats(const struct ccs_topo *t, struct ccs_topo_stats *s)
{
	return t && ccs_topo_stats(t, s) == CCS_OK;
}

static const struct ccs_gpu_nic *best_nic(const struct ccs_topo *t, uint32_t g)
{
	return t->gpu[g].nic_count ? &t->gnic[t->gpu[g].nic_first] : NULL;
}

static void test_hgx_h100(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	struct ccs_topo_stats s;
	CHECK(stats(t, &s));
	if (!t)
		return;
	CHECK(s.ngpu == 8 && s.nnodes == 1 && s.ndomains == 1);
	CHECK(s.ndev[CCS_DEV_SUSW] == 4);
	CHECK(s.ndev[CCS_DEV_NIC] == 8 && s.ndev[CCS_DEV_CPU] == 2 && s.ndev[CCS_DEV_PCISW] == 4);
	CHECK_NEAR(s.su_bw_min, 450e9, 1e-12);   /* 18 NVLink4 x 25 GB/s */
	CHECK_NEAR(s.su_bw_max, 450e9, 1e-12);
	CHECK(s.nlanes[CCS_LINK_NVLINK] == 8 * 18);
	CHECK(s.nlink[CCS_LINK_NVLINK] == 8 * 4);
	CHECK(s.su_multicast && s.su_reduce);
	CHECK_NEAR(s.su_bisect_Bps, 4 * 450e9, 1e-12);
	CHECK_NEAR(s.so_bw_min, 50e9, 1e-12);    /* 400 Gb/s per GPU */
	CHECK(s.path_hist[CCS_PATH_PIX] == 8);
	CHECK(s.diameter == 2 && s.diameter_exact);
	CHECK(s.so_bisect_nodes == 0);            /* one node: no scale-out split */
	/* PCIe Gen5 x16: 32 GT/s x 16 x 128/130 / 8 */
	int64_t g0 = ccs_topo_find(t, "node0/gpu0");
	CHECK(g0 >= 0);
	for (uint32_t i = 0; i < t->nlink; i++)
		if (t->link[i].type == CCS_LINK_PCIE && (t->link[i].a == g0 || t->link[i].b == g0))
			CHECK_NEAR(t->link[i].bw_Bps, 32e9 * 16 * 128.0 / 130.0 / 8.0, 1e-12);
	/* NVLink lanes spread 5/5/4/4 over the 4 switches */
	int lanes[4] = { 0 }, k = 0;
	for (uint32_t i = 0; i < t->nlink; i++)
		if (t->link[i].type == CCS_LINK_NVLINK && t->link[i].a == g0 && k < 4)
			lanes[k++] = t->link[i].lanes;
	CHECK(k == 4 && lanes[0] == 5 && lanes[1] == 5 && lanes[2] == 4 && lanes[3] == 4);
	/* Every GPU's best NIC is its own rail, on its PCIe switch; NUMA by socket. */
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu_nic *n = best_nic(t, g);
		CHECK(n && n->path == CCS_PATH_PIX && t->dev[n->nic].rail == t->gpu[g].local);
		CHECK(t->gpu[g].nic_count == 8);
		CHECK(t->dev[t->gpu[g].dev].numa == (int)(t->gpu[g].local / 4));
	}
	/* gpu0: nic0-1 PIX, nic2-3 PHB (same socket, other switch), nic4-7 SYS */
	const struct ccs_gpu_nic *l = &t->gnic[t->gpu[0].nic_first];
	CHECK(l[1].path == CCS_PATH_PIX && l[2].path == CCS_PATH_PHB && l[3].path == CCS_PATH_PHB);
	CHECK(l[4].path == CCS_PATH_SYS && l[7].path == CCS_PATH_SYS);
	ccs_topo_free(t);
}

static void test_hgx_cluster(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", NULL, 0);
	struct ccs_topo_stats s;
	CHECK(stats(t, &s));
	if (!t)
		return;
	CHECK(s.ngpu == 1024 && s.nnodes == 128 && s.ndomains == 128);
	CHECK(s.tier[CCS_TIER_LEAF].count == 32 && s.tier[CCS_TIER_SPINE].count == 16);
	CHECK(s.tier[CCS_TIER_LEAF].down_ports == 1024 && s.tier[CCS_TIER_LEAF].up_ports == 1024);
	CHECK(s.tier[CCS_TIER_LEAF].max_ports == 64 && s.tier[CCS_TIER_SPINE].max_ports == 64);
	/* non-blocking: 64 nodes x 8 NICs x 400 Gb/s cross the cut */
	CHECK_NEAR(s.so_bisect_Bps, 64 * 8 * 50e9, 1e-9);
	CHECK(s.so_bisect_nodes == 64);
	CHECK_NEAR(s.injection_Bps, 1024 * 50e9, 1e-12);
	/* gpu, pcie switch, nic, leaf, spine, leaf, nic, pcie switch, gpu */
	CHECK(s.diameter == 8 && s.diameter_exact);
	ccs_topo_free(t);

	/* 2:1 at the leaves halves the bisection when every leaf is full */
	const char *sets[] = { "nodes=168", "scaleout.oversubscription=2:1" };
	t = fx_load("topologies/hgx-h100-cluster.yaml", sets, 2);
	CHECK(stats(t, &s));
	if (t) {
		/* d = floor(64*2/3) = 42 nodes per group, 4 groups, 21 uplinks each */
		CHECK(s.tier[CCS_TIER_LEAF].count == 32);
		CHECK(s.tier[CCS_TIER_LEAF].up_ports == 32 * 21);
		CHECK_NEAR(s.tier[CCS_TIER_LEAF].down_Bps / s.tier[CCS_TIER_LEAF].up_Bps, 2.0, 1e-12);
		CHECK_NEAR(s.so_bisect_Bps, 84 * 8 * 50e9 / 2, 1e-9);
		ccs_topo_free(t);
	}
}

static void test_16k(void)
{
	struct ccs_topo *t = fx_load("topologies/cluster-16k-3tier.yaml", NULL, 0);
	struct ccs_topo_stats s;
	CHECK(stats(t, &s));
	if (!t)
		return;
	CHECK(s.ngpu == 16384 && s.nnodes == 2048);
	CHECK(t->fab.tiers == 3);
	CHECK_NEAR(t->fab.oversub[CCS_TIER_SPINE], 2.0, 0);
	CHECK_NEAR(t->fab.oversub[CCS_TIER_LEAF], 1.0, 0);
	/* leaves 32 down/32 up; pods of 40 leaves with 32 spines of 40 down/20 up */
	CHECK(s.tier[CCS_TIER_LEAF].count == 512);
	CHECK_NEAR(s.tier[CCS_TIER_LEAF].down_Bps / s.tier[CCS_TIER_LEAF].up_Bps, 1.0, 1e-12);
	CHECK(s.tier[CCS_TIER_SPINE].count == 13 * 32);
	CHECK(s.tier[CCS_TIER_SPINE].down_ports == 16384);
	CHECK(s.tier[CCS_TIER_SPINE].up_ports == 13 * 32 * 20);
	CHECK(s.tier[CCS_TIER_SPINE].max_ports == 60);
	CHECK(s.tier[CCS_TIER_CORE].count == 32 * 5);   /* 20 uplinks / 4 links per pod */
	/* 12 full pods at exactly 2:1 and a last pod of 32 leaves at 32:20 */
	CHECK_NEAR(s.tier[CCS_TIER_SPINE].down_Bps / s.tier[CCS_TIER_SPINE].up_Bps,
	           (12.0 * 1280 + 1024) / (13.0 * 640), 1e-12);
	/* Cut after 1024 nodes: 6 whole pods leave through the cores
	 * (6 x 32 x 20 x 50 GB/s) and 64 nodes of pod 6 reach its other part
	 * inside the pod (64 x 8 x 50 GB/s). */
	CHECK_NEAR(s.so_bisect_Bps, 6 * 32 * 20 * 50e9 + 64 * 8 * 50e9, 1e-9);
	CHECK(s.diameter == 10 && !s.diameter_exact);
	ccs_topo_free(t);
}

static void test_nvl72(void)
{
	struct ccs_topo *t = fx_load("topologies/gb200-nvl72.yaml", NULL, 0);
	struct ccs_topo_stats s;
	CHECK(stats(t, &s));
	if (!t)
		return;
	CHECK(s.ngpu == 72 && s.nnodes == 18 && s.ndomains == 1 && s.dom_max == 72);
	CHECK(s.ndev[CCS_DEV_SUSW] == 18);
	CHECK_NEAR(s.su_bw_min, 900e9, 1e-12);
	CHECK_NEAR(s.su_bisect_Bps, 36 * 900e9, 1e-12);
	CHECK(s.path_hist[CCS_PATH_P2C] == 72);        /* NIC behind Grace */
	CHECK_NEAR(s.so_bisect_Bps, 9 * 4 * 50e9, 1e-12);
	ccs_topo_free(t);

	const char *sets[] = { "nodes=36" };          /* two racks */
	t = fx_load("topologies/gb200-nvl72.yaml", sets, 1);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.ngpu == 144 && s.ndomains == 2 && s.dom_min == 72);
		CHECK_NEAR(s.so_bisect_Bps, 18 * 4 * 50e9, 1e-12);
		ccs_topo_free(t);
	}
	const char *sets2[] = { "nodes=20" };         /* one rack and a partial one */
	t = fx_load("topologies/gb200-nvl72.yaml", sets2, 1);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.ndomains == 2 && s.dom_min == 8 && s.dom_max == 72);
		ccs_topo_free(t);
	}
}

static void test_other_shipped(void)
{
	struct ccs_topo_stats s;
	struct ccs_topo *t = fx_load("topologies/pcie-8gpu.yaml", NULL, 0);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.ndomains == 8 && s.su_bw_max == 0 && s.su_bisect_gpus == 1);
		CHECK(s.path_hist[CCS_PATH_PIX] == 8);
		const struct ccs_gpu_nic *l = &t->gnic[t->gpu[0].nic_first];
		CHECK(t->gpu[0].nic_count == 2 && l[0].path == CCS_PATH_PIX && l[1].path == CCS_PATH_SYS);
		CHECK_NEAR(s.so_bw_min, 2 * 25e9 / 8, 1e-12);
		ccs_topo_free(t);
	}
	t = fx_load("topologies/ascend-8npu-hccs.yaml", NULL, 0);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.nlink[CCS_LINK_HCCS] == 28 && s.ndev[CCS_DEV_SUSW] == 0);
		CHECK_NEAR(s.su_bw_min, 7 * 28e9, 1e-12);
		CHECK_NEAR(s.su_bisect_Bps, 16 * 28e9, 1e-12);  /* 4 x 4 pairs cross */
		CHECK(s.diameter == 1);
		ccs_topo_free(t);
	}
	t = fx_load("topologies/cloudmatrix384.yaml", NULL, 0);
	CHECK(stats(t, &s));
	if (t) {
		/* two tiers: 7 L1 chips a node (2 lanes of every NPU each), 7 x 16 L2
		 * chips, each L1 linked once to the 16 of its sub-plane */
		CHECK(s.ngpu == 384 && s.ndomains == 1 && s.nlink[CCS_LINK_UB] == 384 * 7 + 48 * 7 * 16);
		CHECK(s.ndev[CCS_DEV_SUSW] == 48 * 7 + 7 * 16);
		CHECK_NEAR(s.su_bw_min, 392e9, 1e-12);
		CHECK_NEAR(s.su_up_min, 7 * 16 * 28e9, 1e-12);
		CHECK_NEAR(s.su_up_oversub, 1.0, 1e-12);
		CHECK_NEAR(s.su_bisect_Bps, 192 * 392e9, 1e-12);
		CHECK(s.diameter == 4);
		CHECK_NEAR(s.so_bisect_Bps, 24 * 8 * 50e9, 1e-12);
		ccs_topo_free(t);
	}
	{
		const char *half[1] = { "scaleup.spines=8" };   /* a 2:1 UB plane: half the L2 */
		t = fx_load("topologies/cloudmatrix384.yaml", half, 1);
		CHECK(stats(t, &s));
		if (t) {
			CHECK_NEAR(s.su_up_oversub, 2.0, 1e-12);
			CHECK_NEAR(s.su_bisect_Bps, 96 * 392e9, 1e-12);
			ccs_topo_free(t);
		}
	}
	t = fx_load("topologies/dgx-a100.yaml", NULL, 0);
	CHECK(stats(t, &s));
	if (t) {
		CHECK_NEAR(s.su_bw_min, 300e9, 1e-12);
		CHECK(!s.su_multicast && s.ndev[CCS_DEV_SUSW] == 6);
		CHECK_NEAR(s.nic_bw_max, 25e9, 1e-12);
		ccs_topo_free(t);
	}
	t = fx_load("topologies/hgx-b200.yaml", NULL, 0);
	CHECK(stats(t, &s));
	if (t) {
		CHECK_NEAR(s.su_bw_min, 900e9, 1e-12);
		CHECK(s.ndev[CCS_DEV_SUSW] == 2 && s.nlink[CCS_LINK_NVLINK] == 16);
		ccs_topo_free(t);
	}
}

static void test_fabric_kinds(void)
{
	struct ccs_topo_stats s;
	/* rail-only: no path between rails but through a node's NVLink */
	const char *ro[] = { "scaleout.topology=rail-only" };
	struct ccs_topo *t = fx_load("topologies/hgx-h100-cluster.yaml", ro, 1);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.tier[CCS_TIER_LEAF].count == 32);
		CHECK_NEAR(s.so_bisect_Bps, 64 * 8 * 50e9, 1e-9);
		CHECK(s.diameter == 10);        /* + one NVLink hop through a switch */
		ccs_topo_free(t);
	}
	/* two planes: each NIC splits into two 200G ports, one per plane */
	const char *mp[] = { "scaleout.planes=2" };
	t = fx_load("topologies/hgx-h100-cluster.yaml", mp, 1);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.nlink[CCS_LINK_IB] > 0 && s.tier[CCS_TIER_LEAF].down_ports == 2048);
		CHECK_NEAR(s.tier[CCS_TIER_LEAF].down_Bps, 1024 * 50e9, 1e-12);
		CHECK_NEAR(s.so_bisect_Bps, 64 * 8 * 50e9, 1e-9);
		ccs_topo_free(t);
	}
	/* fat tree: NIC ports fill leaves node by node */
	const char *ft[] = { "nodes=64" };
	t = fx_load("topologies/pcie-8gpu.yaml", ft, 1);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.tier[CCS_TIER_LEAF].count == 4);
		int64_t n0 = ccs_topo_find(t, "node0/nic0"), n15 = ccs_topo_find(t, "node15/nic1");
		int64_t l0 = ccs_topo_find(t, "leaf0");
		int found0 = 0, found15 = 0;
		for (uint32_t i = 0; i < t->nlink; i++) {
			found0 |= t->link[i].a == n0 && t->link[i].b == l0;
			found15 |= t->link[i].a == n15 && t->link[i].b == l0;
		}
		CHECK(found0 && found15);
		CHECK_NEAR(s.so_bisect_Bps, 32 * 2 * 25e9, 1e-9);
		ccs_topo_free(t);
	}
	/* one tier: a single switch */
	const char *one[] = { "nodes=4", "scaleout.tiers=1" };
	t = fx_load("topologies/pcie-8gpu.yaml", one, 2);
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.ndev[CCS_DEV_NETSW] == 1 && s.diameter == 6);   /* gpu pcisw nic leaf nic pcisw gpu */
		ccs_topo_free(t);
	}
}

static void test_explicit(void)
{
	char err[1024] = "";
	const char *y =
		"name: two\n"
		"devices:\n"
		"  - {name: \"g[0-3]\", type: gpu, node: 0}\n"
		"  - {name: \"g[4-7]\", type: gpu, node: 1}\n"
		"  - {name: sw, type: nvswitch, multicast: true}\n"
		"  - {name: nic0, type: nic, node: 0}\n"
		"  - {name: nic1, type: nic, node: 1}\n"
		"  - {name: leaf, type: switch, tier: leaf}\n"
		"links:\n"
		"  - {from: \"g[0-3]\", to: sw, type: nvlink, lanes: 4, lane_bandwidth: 25GB/s}\n"
		"  - {from: \"g[0-3]\", to: nic0, type: pcie, gen: 5, lanes: 16}\n"
		"  - {from: \"g[4-7]\", to: nic1, type: pcie, gen: 5, lanes: 16}\n"
		"  - {from: \"nic[0-1]\", to: leaf, type: ib, bandwidth: 400Gb/s}\n"
		"  - {from: \"g[4-7]\", to: \"g[4-7]\", pattern: mesh, type: nvlink, bandwidth: 100GB/s}\n";
	struct ccs_topo *t = load_str(y, err, sizeof err);
	struct ccs_topo_stats s;
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(stats(t, &s));
	CHECK(s.ngpu == 8 && s.nnodes == 2 && s.ndomains == 2);
	CHECK(s.nlink[CCS_LINK_NVLINK] == 4 + 6);
	CHECK_NEAR(s.su_bw_min, 100e9, 1e-12);
	CHECK_NEAR(s.su_bw_max, 300e9, 1e-12);     /* mesh: 3 peers x 100 GB/s */
	CHECK_NEAR(s.so_bisect_Bps, 50e9, 1e-12);  /* node 0 | node 1 via the leaf */
	CHECK(s.path_hist[CCS_PATH_PIX] == 8);
	CHECK_NEAR(s.nic_bw_max, 50e9, 1e-12);     /* from its link when not given */
	CHECK(s.diameter == 4);                    /* g0 nic0 leaf nic1 g4 */
	CHECK(!strcmp(t->dev[0].name, "g0"));
	ccs_topo_free(t);

	/* zip and block */
	const char *z =
		"devices:\n"
		"  - {name: \"g[0-3]\", type: gpu}\n"
		"  - {name: \"p[0-1]\", type: pcie_switch}\n"
		"  - {name: \"c[0-1]\", type: cpu, numa: 7}\n"
		"links:\n"
		"  - {from: \"g[0-3]\", to: \"p[0-1]\", pattern: block, type: pcie, gen: 4, lanes: 16}\n"
		"  - {from: \"p[0-1]\", to: \"c[0-1]\", pattern: zip, type: pcie, gen: 4, lanes: 16}\n"
		"  - {from: c0, to: c1, type: smp, bandwidth: 20GB/s}\n";
	t = load_str(z, err, sizeof err);
	CHECK(t != NULL);
	if (t) {
		CHECK(t->nlink == 4 + 2 + 1);
		int64_t g3 = ccs_topo_find(t, "g3"), p1 = ccs_topo_find(t, "p1");
		int ok = 0;
		for (uint32_t i = 0; i < t->nlink; i++)
			ok |= t->link[i].a == g3 && t->link[i].b == p1;
		CHECK(ok);
		CHECK(t->dev[g3].numa == 7);
		ccs_topo_free(t);
	} else {
		fprintf(stderr, "%s\n", err);
	}
}

/* xgmi: between GPUs the scale-up link (a full mesh makes one domain, and
 * a rank's rate relays through its peers), between CPUs a socket link;
 * 'scaleup: {type: xgmi, switches: 0}' builds the same mesh. */
static void test_xgmi(void)
{
	char err[1024] = "";
	const char *y =
		"devices:\n"
		"  - {name: \"c[0-1]\", type: cpu}\n"
		"  - {name: \"g[0-3]\", type: gpu, model: MI300X}\n"
		"links:\n"
		"  - {from: \"g[0-3]\", to: \"c[0-1]\", pattern: block, type: pcie, gen: 5, lanes: 16}\n"
		"  - {from: c0, to: c1, type: xgmi, lanes: 4, lane_bandwidth: 36GB/s}\n"
		"  - {from: \"g[0-3]\", to: \"g[0-3]\", pattern: mesh, type: xgmi, bandwidth: 64GB/s}\n";
	struct ccs_topo *t = load_str(y, err, sizeof err);
	struct ccs_topo_stats s;
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(stats(t, &s));
	CHECK(s.nlink[CCS_LINK_XGMI] == 6 && s.nlink[CCS_LINK_SMP] == 1);
	CHECK(s.ndomains == 1 && s.diameter == 1);
	CHECK_NEAR(s.su_bw_min, 3 * 64e9, 1e-12);
	CHECK(ccs_link_is_scaleup(CCS_LINK_XGMI) && !ccs_link_is_scaleup(CCS_LINK_SMP));
	ccs_topo_free(t);

	const char *m =
		"nodes: 2\n"
		"node:\n"
		"  devices:\n"
		"    - {name: cpu0, type: cpu}\n"
		"    - {name: \"gpu[0-7]\", type: gpu, model: MI300X}\n"
		"    - {name: \"nic[0-7]\", type: nic, bandwidth: 400Gb/s}\n"
		"  links:\n"
		"    - {from: \"gpu[0-7]\", to: cpu0, pattern: full, type: pcie, gen: 5, lanes: 16}\n"
		"    - {from: \"nic[0-7]\", to: cpu0, pattern: full, type: pcie, gen: 5, lanes: 16}\n"
		"scaleup: {type: xgmi, switches: 0, lanes: 7, lane_bandwidth: 64GB/s}\n"
		"scaleout: {topology: rail-optimized, tiers: 2, type: roce, radix: 64}\n";
	t = load_str(m, err, sizeof err);
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(stats(t, &s));
	CHECK(s.nlink[CCS_LINK_XGMI] == 2 * 28 && s.ndomains == 2 && s.ndev[CCS_DEV_SUSW] == 0);
	CHECK_NEAR(s.su_bw_min, 7 * 64e9, 1e-12);
	ccs_topo_free(t);
}

static void test_set_and_extends(void)
{
	const char *sets[] = { "nodes=4", "scaleup.lane_bandwidth=50GB/s", "node.devices.3.bandwidth=800Gb/s" };
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", sets, 3);
	struct ccs_topo_stats s;
	CHECK(stats(t, &s));
	if (t) {
		CHECK(s.ngpu == 32 && s.nnodes == 4);
		CHECK_NEAR(s.su_bw_min, 900e9, 1e-12);
		CHECK_NEAR(s.nic_bw_min, 100e9, 1e-12);
		CHECK(!strcmp(t->name, "hgx-h100"));
		ccs_topo_free(t);
	}
	/* extends: the cluster file is the node file with nodes: 128 */
	t = fx_load("topologies/hgx-h100-cluster.yaml", NULL, 0);
	if (t) {
		CHECK(!strcmp(t->name, "hgx-h100-cluster"));
		CHECK(t->fab.sharp == 1 && t->fab.radix == 64);
		ccs_topo_free(t);
	}
	/* the same graph as writing it out: 16k file with its own values */
	const char *s16[] = { "nodes=128", "scaleout.tiers=2", "scaleout.oversubscription=1" };
	struct ccs_topo *a = fx_load("topologies/cluster-16k-3tier.yaml", s16, 3);
	struct ccs_topo *b = fx_load("topologies/hgx-h100-cluster.yaml", NULL, 0);
	CHECK(a && b);
	if (a && b) {
		CHECK(a->ndev == b->ndev && a->nlink == b->nlink);
		int same = 1;
		for (uint32_t i = 0; i < a->nlink && same; i++)
			same = a->link[i].a == b->link[i].a && a->link[i].b == b->link[i].b &&
			       a->link[i].bw_Bps == b->link[i].bw_Bps;
		CHECK(same);
	}
	ccs_topo_free(a);
	ccs_topo_free(b);
}

/* name patterns counted without expanding them (the node limit's check) */
/* NCCL's choice for an AllReduce of n bytes on every GPU of t: its time,
 * or -1 when it cannot be built. */
static double allreduce_s(const struct ccs_topo *t, uint64_t n)
{
	struct ccs_comm c;
	char err[256];
	if (!t || ccs_comm_build(t, (int)t->ngpu, 0, &c, err, sizeof err))
		return -1;
	int a, q;
	struct ccs_cost cc;
	double s = -1;
	if (!ccs_select(&c, CCS_COLL_ALLREDUCE, n, ~0u, ~0u, 1, &a, &q) &&
	    !ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, a, q, 0, n, &cc, NULL))
		s = cc.time_s;
	ccs_comm_release(&c);
	return s;
}

/* The NICs of the dump at path, each checked to run at bw_Bps; -1 when it
 * does not load. */
static int nics_at(const char *path, double bw_Bps)
{
	struct ccs_topo *t = fx_load(path, NULL, 0);
	int nics = t ? 0 : -1;
	for (uint32_t i = 0; t && i < t->ndev; i++)
		if (t->dev[i].kind == CCS_DEV_NIC) {
			nics++;
			CHECK_NEAR(t->dev[i].bw_Bps, bw_Bps, 1e-9);
		}
	ccs_topo_free(t);
	return nics;
}

/* NCCL topology dumps in the layouts public machines write (tests/data/topo,
 * written by this project: a VM's emulated bridges with link_width 0, a VM
 * hiding NUMA, a socket NIC listed under both CPUs, hint files without
 * <gpu> or <nic>) against the shipped presets of the same machines: the
 * AllReduce time of NCCL's choice within 1% at 64 MiB and 1 GiB, on one node
 * and two. */
static void test_dumps(void)
{
	static const struct {
		const char *dump, *preset, *nodes, *like;   /* like: the preset set as the dump's machine */
	} pairs[] = {
		{ "tests/data/topo/hint-8gpu-gen4.xml", "topologies/dgx-a100.yaml", "nodes=1", NULL },
		{ "tests/data/topo/hint-8gpu-gen4.xml", "topologies/dgx-a100.yaml", "nodes=2", NULL },
		{ "tests/data/topo/hint-8gpu-gen5.xml", "topologies/hgx-h100-cluster.yaml", "nodes=1", NULL },
		{ "tests/data/topo/hint-8gpu-gen5.xml", "topologies/hgx-h100-cluster.yaml", "nodes=2", NULL },
		{ "tests/data/topo/vm-qemu-h100-dump.xml", "topologies/hgx-h100-cluster.yaml", "nodes=1", NULL },
		{ "tests/data/topo/vm-qemu-h100-dump.xml", "topologies/hgx-h100-cluster.yaml", "nodes=2", NULL },
		{ "tests/data/topo/hgx-b200-socket-dump.xml", "topologies/hgx-b200.yaml", "nodes=1", NULL },
		/* a hand-written file of <gpu>s without NVLink and four EFA ports
		 * per GPU: NVLink as the HGX board's */
		{ "tests/data/topo/handwritten-efa-8gpu.xml", "topologies/aws-p5.yaml", "nodes=1", NULL },
		{ "tests/data/topo/handwritten-efa-8gpu.xml", "topologies/aws-p5.yaml", "nodes=2", NULL },
		/* NICs saying gdr="0" (no nvidia-peermem): GPUDirect RDMA off */
		{ "tests/data/topo/nopeermem-h100-dump.xml", "topologies/hgx-h100-cluster.yaml", "nodes=2", "faults+=gdr:all:off" },
		/* NICs with coll="1": SHARP, as the preset's Quantum fabric */
		{ "tests/data/topo/dgx-a100-dump.xml", "topologies/dgx-a100.yaml", "nodes=2", NULL },
		/* a GB200 tray (its domain NVL72's 18 trays), two GB300 trays of one
		 * NVLink domain (MNNVL), and two such domains */
		{ "tests/data/topo/gb200-tray-dump.xml", "topologies/gb200-nvl72.yaml", "nodes=2", "scaleout.sharp=false" },
		{ "tests/data/topo/gb300-2tray-mnnvl-dump.xml", "topologies/gb200-nvl72.yaml", "nodes=2",
		  "scaleup.nodes_per_domain=2" },
		{ "tests/data/topo/gb300-2tray-mnnvl-dump.xml", "topologies/gb200-nvl72.yaml", "nodes=4",
		  "scaleup.nodes_per_domain=2" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		const char *set[] = { pairs[i].nodes, pairs[i].like, "scaleout.sharp=false" };
		struct ccs_topo *d = fx_load(pairs[i].dump, set, 1), *p = fx_load(pairs[i].preset, set, pairs[i].like ? 3 : 1);
		CHECK(d && p);
		if (!d || !p) {
			ccs_topo_free(d);
			ccs_topo_free(p);
			continue;
		}
		CHECK(d->ngpu == p->ngpu);
		for (uint64_t n = 64u << 20; n <= 1u << 30; n <<= 4) {
			double td = allreduce_s(d, n), tp = allreduce_s(p, n);
			CHECK(td > 0 && tp > 0);
			CHECK_NEAR(td, tp, 0.01);
		}
		ccs_topo_free(d);
		ccs_topo_free(p);
	}
	/* what the dumps say beyond the presets: H200 by its device id (4.8 TB/s
	 * of memory, where sm 90 alone says H100), one socket NIC for eth0 seen
	 * under both CPUs, the hint file's NICs at their slots' rate */
	struct ccs_topo *t = fx_load("tests/data/topo/vm-numa-h200-dump.xml", NULL, 0);
	CHECK(t && t->ngpu == 8);
	if (t)
		CHECK_NEAR(t->dev[t->gpu[0].dev].bw_Bps, 4.8e12, 1e-9);
	ccs_topo_free(t);
	CHECK(nics_at("tests/data/topo/hgx-b200-socket-dump.xml", 10e9 / 8) == 1);
	CHECK(nics_at("tests/data/topo/hint-8gpu-gen5.xml", 400e9 / 8) == 8);
}

/* A node whose GPUs sit in two NVLink-bridged pairs joined over PCIe (four
 * PCIe A100s, each on its own NUMA node): one group, the node, whatever the
 * pairs (never the network between them); the ring's rate is the PCIe cut
 * between the pairs both ways (NCCL's second ring takes the PCIe directions
 * the first leaves free), and the simulator's rings, odd channels reversed,
 * reach the closed form's time. */
static void test_nvlink_pairs(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	if (fx_up("tests/data/topo/nvlink-pairs-4gpu-dump.xml", NULL, 0, 0, &t, &c, &fab)) {
		CHECK(0);
		return;
	}
	CHECK(c.G == 1 && c.n == 4 && !c.intra_nvl);
	/* two gen 4 x16 links (the dump says no speed: gen 4 x16 taken) at
	 * pcie's efficiency */
	CHECK_NEAR(c.b_su, 2 * 16e9 * 16 * 128 / 130 / 8 * c.prm.eff[CCS_LINK_PCIE], 1e-9);
	uint64_t n = 1u << 30;
	struct ccs_cost cc;
	CHECK(!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 8, n, &cc, NULL));
	struct ccs_sim_stats st;
	double ts = fx_sim_time(&c, fab, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 8, n, &st);
	CHECK(ts > 0);
	CHECK_NEAR(ts, cc.time_s, 0.01);
	fx_down(t, &c, fab);
}

static void test_names_count(void)
{
	CHECK(ccs_topo_names_count("gpu0") == 1);
	CHECK(ccs_topo_names_count("gpu[0-7]") == 8);
	CHECK(ccs_topo_names_count("nvsw[0,3,5-6]") == 4);
	CHECK(ccs_topo_names_count("n[0-1]/g[0-3]") == 8);
	CHECK(ccs_topo_names_count("gpu[0-455553]") == 455554);
	CHECK(ccs_topo_names_count("a[0-999999]b[0-999999]c[0-999999]") == 1ull << 40);
	CHECK(ccs_topo_names_count("gpu[7-0]") == 0);
}

int main(void)
{
	test_names_count();
	test_hgx_h100();
	test_hgx_cluster();
	test_16k();
	test_nvl72();
	test_other_shipped();
	test_fabric_kinds();
	test_explicit();
	test_xgmi();
	test_set_and_extends();
	test_dumps();
	test_nvlink_pairs();
	return CHECK_DONE("test_topo");
}
