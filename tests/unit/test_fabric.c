/*
** tests/unit/test_fabric.c: sim/fabric.h on 2 HGX H100 nodes (rail-optimized,
** one 400G NIC per GPU), checked by hand: how many resources and what each
** is called, a GPU's ports and copy ports, a route inside a node (its two
** scale-up ports, at 18 x 25 GB/s x NVLink's efficiency), a route across
** nodes (PCIe up to the NIC, the NIC's port, the leaf, down again: every
** hop live, the NIC's port at 400 Gb/s x the verbs' efficiency, the first
** hop leaving a's GPU and the last entering b's), routes under dmodk equal
** for equal destinations, a link at 50% seen by its resources, and under
** ECMP a route by destination (CCS_FABRIC_WAY_DST) equal to the route
** D-mod-k gives, whatever the salt, without changing the hashed routes;
** the same routes from the distance tables as from a search per route.
*/
#include "../check.h"
#include "fixture.h"

#include "../../sim/fabric.h"

#include <string.h>

#define TOPO "topologies/hgx-h100-cluster.yaml"

static void name_of(const struct ccs_fabric *f, uint32_t r, char *buf)
{
	ccs_fabric_res_name(f, r, buf, 128);
}

static void test_layout(void)
{
	struct fx_world w;
	const char *sets[] = { "nodes=2" };
	if (fx_world_up(&w, TOPO, sets, 1, 0)) {
		CHECK(0);
		return;
	}
	const struct ccs_topo *t = w.t;
	struct ccs_fabric *f = w.fab;
	/* ports, links both ways, copy ports, memories: no two-tier uplinks */
	CHECK(ccs_fabric_nres(f) == 5 * t->ngpu + 2 * t->nlink);
	CHECK(ccs_fabric_ranks(f) == 16);
	char nm[128];
	uint32_t res[CCS_FLOW_MAXPATH];
	int n = 0;
	/* rank 1's scale-up ports */
	CHECK(ccs_fabric_ports(f, 1, res, &n) == CCS_OK && n == 2);
	name_of(f, res[0], nm);
	CHECK(!strcmp(nm, "node0/gpu1 scale-up out"));
	name_of(f, res[1], nm);
	CHECK(!strcmp(nm, "node0/gpu1 scale-up in"));
	const double *cap = ccs_fabric_caps(f);
	double nvl = 18 * 25e9 * t->params.eff[CCS_LINK_NVLINK];
	CHECK_NEAR(cap[res[0]], nvl, 1e-9);
	CHECK_NEAR(cap[res[1]], nvl, 1e-9);
	/* copy ports: a's out, b's in; memory is no resource on equal GPUs */
	n = 0;
	ccs_fabric_copy(f, 2, 9, res, &n);
	CHECK(n == 2 && ccs_fabric_is_copy(f, res[0]) && ccs_fabric_is_copy(f, res[1]));
	name_of(f, res[0], nm);
	CHECK(!strcmp(nm, "node0/gpu2 copy out"));
	name_of(f, res[1], nm);
	CHECK(!strcmp(nm, "node1/gpu1 copy in"));
	CHECK(ccs_fabric_mem(f, 3) == UINT32_MAX);
	/* inside a node: a's port out, b's port in */
	CHECK(ccs_fabric_route(f, 0, 5, UINT32_MAX, UINT32_MAX, 0, res, &n) == CCS_OK && n == 2);
	name_of(f, res[0], nm);
	CHECK(!strcmp(nm, "node0/gpu0 scale-up out"));
	name_of(f, res[1], nm);
	CHECK(!strcmp(nm, "node0/gpu5 scale-up in"));
	CHECK(!ccs_fabric_crosses(f, 0, 5) && ccs_fabric_crosses(f, 0, 8));
	/* across nodes on rail 3: links only, every one live, named A->B, the
	 * first leaving rank 3's GPU and the last entering rank 11's */
	CHECK(ccs_fabric_route(f, 3, 11, UINT32_MAX, UINT32_MAX, 0, res, &n) == CCS_OK);
	CHECK(n >= 5 && n <= CCS_FLOW_MAXPATH);
	int nic_port = 0;
	for (int i = 0; i < n; i++) {
		CHECK(ccs_fabric_live(f, res[i]));
		CHECK(!ccs_fabric_is_copy(f, res[i]) && !ccs_fabric_is_mem(f, res[i]));
		name_of(f, res[i], nm);
		CHECK(strstr(nm, "->") != NULL);
		if (strstr(nm, "node0/nic3->"))
			nic_port = i;
	}
	name_of(f, res[0], nm);
	CHECK(!strncmp(nm, "node0/gpu3->", 12));
	name_of(f, res[n - 1], nm);
	CHECK(strstr(nm, "->node1/gpu3 (") != NULL);
	CHECK(nic_port > 0);
	CHECK_NEAR(cap[res[nic_port]], 400e9 / 8 * t->params.eff[CCS_LINK_IB], 1e-9);
	CHECK(ccs_fabric_res_kind(f, res[nic_port]) > 0);
	/* destination-based: the same destination, the same way up from the leaf */
	uint32_t r2[CCS_FLOW_MAXPATH];
	int n2 = 0;
	CHECK(ccs_fabric_route(f, 3, 11, UINT32_MAX, UINT32_MAX, 77, r2, &n2) == CCS_OK);
	CHECK(n2 == n && !memcmp(r2, res, (size_t)n * sizeof *res));
	fx_world_down(&w);
}

/* A link at half speed: both of its resources at half the healthy
 * capacity, every other resource as before. */
static void test_fault(void)
{
	struct fx_world h, s;
	const char *hs[] = { "nodes=2" };
	const char *ss[] = { "nodes=2", "faults+=link:node0/nic3-leaf3:50%" };
	if (fx_world_up(&h, TOPO, hs, 1, 0) || fx_world_up(&s, TOPO, ss, 2, 0)) {
		CHECK(0);
		return;
	}
	uint32_t nres = ccs_fabric_nres(h.fab);
	CHECK(nres == ccs_fabric_nres(s.fab));
	const double *a = ccs_fabric_caps(h.fab), *b = ccs_fabric_caps(s.fab);
	int halved = 0, other = 0;
	char nm[128];
	for (uint32_t r = 0; r < nres; r++) {
		if (a[r] == b[r])
			continue;
		name_of(s.fab, r, nm);
		if ((strstr(nm, "node0/nic3->leaf3") || strstr(nm, "leaf3->node0/nic3")) && fabs(b[r] / a[r] - 0.5) < 1e-12)
			halved++;
		else {
			fprintf(stderr, "changed: %s %g -> %g\n", nm, a[r], b[r]);
			other++;
		}
	}
	CHECK(halved == 2 && other == 0);
	fx_world_down(&h);
	fx_world_down(&s);
}

/* 1,024 ranks of cluster-16k-3tier (two leaves a rail, so routes between
 * leaves choose among the spines): under ECMP, ccs_fabric_route_way with
 * CCS_FABRIC_WAY_DST takes D-mod-k's path for every pair and salt, asked
 * before or after the hashed route of the same pair, and the hashed routes
 * (which differ from it for most pairs) are those a fabric that was never
 * asked by destination gives: the route cache keeps the two apart both
 * ways. */
static void test_by_dst(void)
{
	struct fx_world e, e2, d;
	const char *es[] = { "nodes=128", "scaleout.radix=128", "scaleout.routing=ecmp" };
	const char *ds[] = { "nodes=128", "scaleout.radix=128", "scaleout.routing=dmodk" };
	const char *topo = "topologies/cluster-16k-3tier.yaml";
	if (fx_world_up(&e, topo, es, 3, 0) || fx_world_up(&e2, topo, es, 3, 0) || fx_world_up(&d, topo, ds, 3, 0)) {
		CHECK(0);
		return;
	}
	CHECK(ccs_fabric_nres(e.fab) == ccs_fabric_nres(d.fab));
	int pairs = 0, differ = 0;
	for (int a = 0; a < 1024; a += 37)
		for (int b = 1; b < 1024; b += 101) {
			if (!ccs_fabric_crosses(e.fab, a, b))
				continue;
			uint32_t h[CCS_FLOW_MAXPATH], h2[CCS_FLOW_MAXPATH], x[CCS_FLOW_MAXPATH], x2[CCS_FLOW_MAXPATH];
			uint32_t y[CCS_FLOW_MAXPATH];
			int nh = 0, nh2 = 0, nx = 0, nx2 = 0, ny = 0;
			uint32_t salt = (uint32_t)(a * 7 + b);
			/* e: by destination first, then hashed; e2: the other way round */
			CHECK(!ccs_fabric_route_way(e.fab, a, b, UINT32_MAX, UINT32_MAX, salt, CCS_FABRIC_WAY_DST, x, &nx));
			CHECK(!ccs_fabric_route(e.fab, a, b, UINT32_MAX, UINT32_MAX, salt, h, &nh));
			CHECK(!ccs_fabric_route(e2.fab, a, b, UINT32_MAX, UINT32_MAX, salt, h2, &nh2));
			CHECK(!ccs_fabric_route_way(e2.fab, a, b, UINT32_MAX, UINT32_MAX, salt, CCS_FABRIC_WAY_DST, x2, &nx2));
			CHECK(!ccs_fabric_route(d.fab, a, b, UINT32_MAX, UINT32_MAX, 0, y, &ny));
			CHECK(nx == ny && !memcmp(x, y, (size_t)nx * sizeof *x));
			CHECK(nx2 == ny && !memcmp(x2, y, (size_t)nx2 * sizeof *x2));
			CHECK(nh == nh2 && !memcmp(h, h2, (size_t)nh * sizeof *h));
			differ += nh != ny || memcmp(h, y, (size_t)nh * sizeof *h) != 0;
			pairs++;
		}
	CHECK(pairs > 50 && differ > pairs / 2);
	fx_world_down(&e);
	fx_world_down(&e2);
	fx_world_down(&d);
}

/* The distance tables (sim/fabric_dist.c) give the routes a search per
 * route gives: on 192 nodes of cluster-16k-3tier (radix 64: six rail
 * groups, two pods, so routes within a leaf, between leaves of a pod, and
 * between pods through the cores) under
 * D-mod-k, ECMP with its ways, and with a leaf-spine link down, every
 * sampled pair's route is the same with a table for every NIC (the
 * default), with 2,000 bytes of direct-mapped slots (a destination
 * evicting another on most routes) and with none. */
static void test_tables(void)
{
	const char *topo = "topologies/cluster-16k-3tier.yaml";
	const char *sets[3][2] = { { "nodes=192", "scaleout.routing=dmodk" },
		                   { "nodes=192", "scaleout.routing=ecmp" },
		                   { "nodes=192", "faults+=link:leaf0-spine0:down" } };
	for (int v = 0; v < 3; v++) {
		struct fx_world w[3];
		int up = 0;
		for (; up < 3 && !fx_world_up(&w[up], topo, sets[v], 2, 0); up++)
			;
		CHECK(up == 3);
		if (up == 3) {
			CHECK(!ccs_fabric_set_route_tables(w[1].fab, 2000));
			CHECK(!ccs_fabric_set_route_tables(w[2].fab, 0));
		}
		int pairs = 0, same = 0, hops = 0;
		for (int a = 0; up == 3 && a < 1536; a += 43)
			for (int b = 3; b < 1536; b += 79) {
				uint32_t way = v == 1 ? (uint32_t)(a + b) % 4 : 0;
				uint32_t r[3][CCS_FLOW_MAXPATH];
				int n[3] = { 0, 0, 0 }, rc[3];
				for (int k = 0; k < 3; k++)
					rc[k] = ccs_fabric_route_way(w[k].fab, a, b, UINT32_MAX, UINT32_MAX, (uint32_t)a, way, r[k], &n[k]);
				same += rc[0] == rc[1] && rc[0] == rc[2] && n[0] == n[1] && n[0] == n[2] &&
				        !memcmp(r[0], r[1], (size_t)n[0] * sizeof **r) && !memcmp(r[0], r[2], (size_t)n[0] * sizeof **r);
				hops = n[0] > hops ? n[0] : hops;
				pairs++;
			}
		CHECK(pairs > 500 && same == pairs && hops >= 10);
		for (int k = 0; k < up; k++)
			fx_world_down(&w[k]);
	}
}

int main(void)
{
	test_layout();
	test_fault();
	test_by_dst();
	test_tables();
	return CHECK_DONE("test_fabric");
}
