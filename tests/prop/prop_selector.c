/*
** tests/prop/prop_selector.c: the precomputed selector (cost.h,
** ccs_selector_pick) chooses what ccs_select chooses, on shipped
** topologies (one with a NIC down), for every collective at sizes from 1 B
** to 16 GiB and seeded masks of algorithms and protocols, NCCL's choice and
** ours.  Seeded by fixture.h's generator; run from the root.
*/
#include "../check.h"
#include "../unit/fixture.h"
#include "../../model/cost.h"

#include <stdio.h>

int main(void)
{
	static const struct {
		const char *file, *set[2];
	} ms[] = {
		{ "topologies/hgx-h100.yaml", { NULL, NULL } },
		{ "topologies/hgx-h100-cluster.yaml", { "nodes=4", NULL } },
		{ "topologies/gb200-nvl72.yaml", { "nodes=36", NULL } },
		{ "topologies/aws-p5.yaml", { "nodes=2", NULL } },
		{ "topologies/aws-p4de.yaml", { "nodes=2", NULL } },
		{ "topologies/dgx-a100.yaml", { "nodes=2", NULL } },
		{ "topologies/pcie-8gpu.yaml", { "nodes=2", NULL } },
		{ "topologies/hgx-h100.yaml", { "nodes=2", "faults+=nic:node1/nic3:down" } },
	};
	long checked = 0, differ = 0;
	for (size_t m = 0; m < sizeof ms / sizeof ms[0]; m++) {
		int ns = ms[m].set[0] ? (ms[m].set[1] ? 2 : 1) : 0;
		struct ccs_topo *t = fx_load(ms[m].file, ms[m].set, ns);
		CHECK(t != NULL);
		if (!t)
			continue;
		struct ccs_comm c;
		char err[256];
		if (ccs_comm_build(t, 0, 0, &c, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", ms[m].file, err);
			CHECK(0);
			ccs_topo_free(t);
			continue;
		}
		struct ccs_selector s;
		ccs_selector_init(&s, &c);
		for (int coll = 0; coll < CCS_COLL_N; coll++)
			for (int k = 0; k <= 34; k++)
				for (int r = 0; r < 4; r++) {
					unsigned am = r == 0 ? ~0u : (unsigned)fx_next(), pm = r == 0 ? ~0u : (unsigned)(fx_next() | 1);
					int nccl = r != 3;
					uint64_t b = 1ull << k;
					int a1 = -1, q1 = -1, a2 = -1, q2 = -1;
					int r1 = ccs_select(&c, coll, b, am, pm, nccl, &a1, &q1);
					int r2 = ccs_selector_pick(&s, coll, b, am, pm, nccl, &a2, &q2);
					checked++;
					if (r1 != r2 || (!r1 && (a1 != a2 || q1 != q2))) {
						if (!differ++)
							fprintf(stderr, "%s: %s %llu B masks %x/%x nccl %d: select %d %d/%d, selector %d %d/%d\n",
							        ms[m].file, ccs_coll_name[coll], (unsigned long long)b, am, pm, nccl, r1, a1,
							        q1, r2, a2, q2);
					}
				}
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	CHECK(checked >= 7840);   /* 8 machines x 7 collectives x 35 sizes x 4 mask draws */
	CHECK(differ == 0);
	fprintf(stderr, "prop_selector: %ld selections compared (seed 88172645463325252)\n", checked);
	return CHECK_DONE("prop_selector");
}
