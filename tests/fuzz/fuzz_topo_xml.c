/*
** tests/fuzz/fuzz_topo_xml.c: NCCL topology dumps (model/xml.c, topo_xml.c).
** A dump that converts gives topology YAML that loads, and on the loaded
** machine (2 to 4,096 GPUs) NCCL's choice for AllReduce, AllGather and
** AllToAll of 1 MiB prices to a finite, non-negative time wherever the
** closed form takes it.
*/
#include "fuzz.h"
#include "../../model/topo_xml.h"
#include "../../model/topo_yaml.h"
#include "../../model/cost.h"

#include <math.h>

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *yaml = NULL, *warn = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_topo_xml_yaml("fuzz.xml", (const char *)data, n, &yaml, &warn, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		FUZZ_REQUIRE(yaml != NULL);
		struct ccs_diag d2;
		memset(&d2, 0, sizeof d2);
		struct ccs_topo *t = NULL;
		int lrc = ccs_topo_yaml_load_buf("fuzz.xml.yaml", yaml, strlen(yaml), NULL, 0, &t, &d2);
		if (lrc != CCS_OK)
			fprintf(stderr, "import gave YAML that does not load: %s\n%s\n", d2.msg, yaml);
		FUZZ_REQUIRE(lrc == CCS_OK);
		struct ccs_comm c;
		char err[256];
		if (t->ngpu >= 2 && t->ngpu <= 4096 && ccs_comm_build(t, 0, 0, &c, err, sizeof err) == CCS_OK) {
			static const int colls[3] = { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_ALLTOALL };
			for (int i = 0; i < 3; i++) {
				int a, q;
				struct ccs_cost cc;
				if (!ccs_select(&c, colls[i], 1 << 20, ~0u, ~0u, 1, &a, &q) &&
				    !ccs_cost_eval(&c, colls[i], a, q, 0, 1 << 20, &cc, NULL))
					FUZZ_REQUIRE(isfinite(cc.time_s) && cc.time_s >= 0);
			}
			ccs_comm_release(&c);
		}
		ccs_topo_free(t);
	}
	ccs_free(yaml);
	ccs_free(warn);
	return 0;
}
