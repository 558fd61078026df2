/*
** tests/unit/test_comm.c: model/comm.h's figures for communicators worked
** out by hand on 2 HGX H100 nodes (8 GPUs each on NVLink4 through NVSwitch,
** 18 links of 25 GB/s; 8 NICs of 400 Gb/s, two GPUs and two NICs behind
** each PCIe Gen5 switch, on a rail-optimized fabric): ranks, groups and
** members, a rank's scale-up rate (18 x 25 GB/s x NVLink's efficiency),
** its share of its switch's two NICs (50 GB/s x InfiniBand's efficiency
** each), alone on them (both NICs, at most its x16 link), a group's
** network (8 NICs), capabilities (NVLS on Hopper's NVSwitch), NCCL's
** own view mirroring the communicator (nccl_tables.h), a job of 4 ranks a
** node placed by ppn, ranks placed on chosen GPUs, and the requests that
** cannot be met refused with a reason.
*/
#include "../check.h"
#include "fixture.h"

#include <string.h>

#define TOPO "topologies/hgx-h100-cluster.yaml"

/* GPU g's PCIe link rate, its efficiency applied. */
static double pcie_of(const struct ccs_topo *t, uint32_t g)
{
	uint32_t d = t->gpu[g].dev;
	for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++)
		if (t->link[t->adj[k]].type == CCS_LINK_PCIE)
			return t->link[t->adj[k]].bw_Bps * t->params.eff[CCS_LINK_PCIE];
	return 0;
}

static void test_full(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t = fx_load(TOPO, sets, 1);
	CHECK(t != NULL);
	if (!t)
		return;
	struct ccs_comm c;
	char err[256];
	CHECK(ccs_comm_build(t, 0, 0, &c, err, sizeof err) == CCS_OK);
	CHECK(c.n == 16 && c.G == 2 && c.p == 8 && c.p_min == 8 && c.nnodes == 2 && c.arch == CCS_ARCH_HOPPER);
	for (int r = 0; r < 16; r++) {
		CHECK(c.rank_gpu[r] == (uint32_t)r);
		CHECK(c.rank_group[r] == r / 8);
	}
	double nvl = 18 * 25e9 * t->params.eff[CCS_LINK_NVLINK];
	double nic = 400e9 / 8 * t->params.eff[CCS_LINK_IB];
	double pcie = pcie_of(t, 0);
	double alone = 2 * nic < pcie ? 2 * nic : pcie;
	CHECK(c.intra_nvl == 1);
	CHECK_NEAR(c.b_su, nvl, 1e-12);
	CHECK_NEAR(c.b_nic, nic, 1e-12);
	CHECK_NEAR(c.b_nic1, alone, 1e-12);
	CHECK_NEAR(c.B_net, 8 * nic, 1e-12);
	CHECK(c.nvls == 1);
	CHECK(c.mem_bw > 0);
	CHECK(c.lat_net > 0);
	/* NCCL's view mirrors the communicator */
	CHECK(c.nccl.n == c.n && c.nccl.G == c.G && c.nccl.p == c.p && c.nccl.arch == c.arch);
	CHECK(c.nccl.intra_nvl == c.intra_nvl && c.nccl.nvls == c.nvls && c.nccl.sharp == c.sharp);
	CHECK(c.nccl.lat_net == c.lat_net && c.nccl.msg_lat_s == ccs_comm_tr(&c)->msg_lat_s);
	CHECK(c.nccl.nics == 8 && c.nccl.net_GBps > 0 && c.nccl.nch_ring > 0);
	CHECK(c.ring_C == ccs_nccl_channels(&c.nccl, CCS_ALGO_RING));
	/* members of each group in rank order */
	int32_t *start = NULL, *mem = NULL;
	CHECK(ccs_comm_members(&c, &start, &mem) == CCS_OK);
	CHECK(start && start[0] == 0 && start[1] == 8 && start[2] == 16);
	for (int i = 0; mem && i < 16; i++)
		CHECK(mem[i] == i);
	ccs_free(start);
	ccs_free(mem);
	/* two NICs each, as close as the best: those behind its PCIe switch */
	CHECK(ccs_comm_fewest_nics(&c, 8) == 2);
	CHECK(ccs_comm_best_nics(&c, 5) == 2);
	const char *n0 = t->dev[ccs_comm_nic(&c, 5, 0)].name, *n1 = t->dev[ccs_comm_nic(&c, 5, 1)].name;
	CHECK((!strcmp(n0, "node0/nic4") && !strcmp(n1, "node0/nic5")) || (!strcmp(n0, "node0/nic5") && !strcmp(n1, "node0/nic4")));
	ccs_comm_release(&c);
	/* 4 ranks a node: 8 ranks, 2 groups of 4 on GPUs 0-3 of each node */
	CHECK(ccs_comm_build(t, 8, 4, &c, err, sizeof err) == CCS_OK);
	CHECK(c.n == 8 && c.G == 2 && c.p == 4);
	CHECK(c.rank_gpu[3] == 3 && c.rank_gpu[4] == 8 && c.rank_group[4] == 1);
	CHECK_NEAR(c.B_net, 4 * nic, 1e-12);
	ccs_comm_release(&c);
	/* ranks on chosen GPUs: node0's gpu2 and node1's gpu6 */
	uint32_t gpus[2] = { 2, 14 };
	CHECK(ccs_comm_build_gpus(t, gpus, 2, &c, err, sizeof err) == CCS_OK);
	CHECK(c.n == 2 && c.G == 2 && c.p == 1 && c.rank_gpu[1] == 14);
	CHECK_NEAR(c.b_nic1, alone, 1e-12);
	ccs_comm_release(&c);
	/* what cannot be: more ranks than GPUs */
	err[0] = 0;
	CHECK(ccs_comm_build(t, 32, 0, &c, err, sizeof err) == CCS_EINPUT && strstr(err, "32") && strstr(err, "16"));
	ccs_topo_free(t);
}

/* One NIC at half speed: the two ranks behind its switch share 1.5 NICs,
 * the slowest rank's rate (b_nic) 0.75 of one; the group's network is its
 * NICs' sum at most their count x the slowest (comm.h): 8 half NICs. */
static void test_slow_nic(void)
{
	const char *sets[] = { "nodes=2", "faults+=nic:node1/nic2:50%" };
	struct ccs_topo *t = fx_load(TOPO, sets, 2);
	CHECK(t != NULL);
	if (!t)
		return;
	struct ccs_comm c;
	char err[256];
	CHECK(ccs_comm_build(t, 0, 0, &c, err, sizeof err) == CCS_OK);
	double nic = 400e9 / 8 * t->params.eff[CCS_LINK_IB];
	CHECK_NEAR(c.b_nic, 0.75 * nic, 1e-12);
	CHECK_NEAR(c.B_net, 8 * nic / 2, 1e-12);
	ccs_comm_release(&c);
	ccs_topo_free(t);
}

int main(void)
{
	test_full();
	test_slow_nic();
	return CHECK_DONE("test_comm");
}
