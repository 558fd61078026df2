/*
** tests/prop/prop_cost.c: seeded properties of the closed form (model/cost.h)
** on shipped topologies: time never decreases as bytes grow, more bandwidth
** or less latency is never slower, busbw stays within the wire rate on one
** group.  The sizes come from fixture.h's generator at its fixed seed,
** printed with a failure.  Run from the root.
*/
#include "../check.h"
#include "../unit/fixture.h"
#include "../../model/cost.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every available (coll, algo, proto): time never decreases with bytes;
 * in the faster comm f (more bandwidth or less latency) never slower;
 * busbw within the per-GPU wire rate on one group (but for NVLS). */
static void props(const struct ccs_comm *c, const struct ccs_comm *f, double wire, const char *what)
{
	uint64_t sizes[48];
	for (int i = 0; i < 48; i++)
		sizes[i] = 1 + fx_next() % (1ull << (3 + fx_next() % 32));
	qsort(sizes, 48, sizeof sizes[0], cmp_u64);
	int bad_mono = 0, bad_fast = 0, bad_wire = 0, checked = 0;
	for (int coll = 0; coll < CCS_COLL_N; coll++)
		for (int a = 0; a < CCS_ALGO_N; a++)
			for (int q = 0; q < CCS_PROTO_N; q++) {
				double prev = 0;
				for (int i = 0; i < 48; i++) {
					struct ccs_cost x, y;
					if (ccs_cost_eval(c, coll, a, q, 0, sizes[i], &x, NULL))
						break;
					checked++;
					if (!(x.time_s > 0) || isinf(x.time_s)) {
						if (!bad_mono++)
							fprintf(stderr, "%s: %s %s %s time %g at %llu bytes\n", what, ccs_coll_name[coll],
							        ccs_algo_desc[a].name, ccs_proto_name[q], x.time_s, (unsigned long long)sizes[i]);
						break;
					}
					if (x.time_s + 1e-15 < prev) {
						if (!bad_mono++)
							fprintf(stderr, "%s: %s %s %s not monotone at %llu bytes (seed 88172645463325252)\n",
							        what, ccs_coll_name[coll], ccs_algo_desc[a].name, ccs_proto_name[q],
							        (unsigned long long)sizes[i]);
					}
					prev = x.time_s;
					if (f && !ccs_cost_eval(f, coll, a, q, 0, sizes[i], &y, NULL) && y.time_s > x.time_s * (1 + 1e-12)) {
						if (!bad_fast++)
							fprintf(stderr, "%s: %s %s %s slower on faster hardware at %llu bytes\n", what,
							        ccs_coll_name[coll], ccs_algo_desc[a].name, ccs_proto_name[q],
							        (unsigned long long)sizes[i]);
					}
					double busbw = (double)sizes[i] / x.time_s * ccs_busbw_factor(coll, c->n);
					if (wire > 0 && a != CCS_ALGO_NVLS && busbw > wire * (1 + 1e-9))
						bad_wire++;
				}
			}
	CHECK(checked > 100);
	CHECK(bad_mono == 0);
	CHECK(bad_fast == 0);
	CHECK(bad_wire == 0);
}

static void test_properties(void)
{
	struct {
		const char *file;
		const char *sets[2], *faster[3];
		double wire;
	} cases[] = {
		{ "topologies/hgx-h100.yaml", { 0 }, { "scaleup.lane_bandwidth=50GB/s" }, 450e9 },
		{ "topologies/hgx-h100.yaml", { "nodes=4" }, { "nodes=4", "scaleout.switch_latency=100ns" }, 0 },
		{ "topologies/hgx-h100.yaml", { "nodes=4" }, { "nodes=4", "node.devices.3.bandwidth=800Gb/s" }, 0 },
		{ "topologies/pcie-8gpu.yaml", { "nodes=2" }, { "nodes=2", "node.links.0.gen=5" }, 0 },
		{ "topologies/gb200-nvl72.yaml", { 0 }, { "scaleup.lane_bandwidth=60GB/s" }, 900e9 },
		{ "topologies/cloudmatrix384.yaml", { 0 }, { 0 }, 392e9 },
		{ "topologies/ascend-8npu-hccs.yaml", { "nodes=2" }, { "nodes=2", "scaleout.radix=128" }, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int ns = 0, nf = 0;
		while (ns < 2 && cases[i].sets[ns])
			ns++;
		while (nf < 3 && cases[i].faster[nf])
			nf++;
		struct ccs_topo *t = fx_load(cases[i].file, cases[i].sets, ns);
		struct ccs_topo *u = nf ? fx_load(cases[i].file, cases[i].faster, nf) : NULL;
		struct ccs_comm c, f;
		char err[256];
		CHECK(t && !ccs_comm_build(t, 0, 0, &c, err, sizeof err));
		if (!t)
			continue;
		int have_f = u && !ccs_comm_build(u, 0, 0, &f, err, sizeof err);
		props(&c, have_f ? &f : NULL, c.G == 1 ? cases[i].wire : 0, cases[i].file);
		if (have_f)
			ccs_comm_release(&f);
		ccs_comm_release(&c);
		ccs_topo_free(t);
		ccs_topo_free(u);
	}
}

int main(void)
{
	test_properties();
	return CHECK_DONE("prop_cost");
}
