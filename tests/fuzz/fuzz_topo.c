/*
** tests/fuzz/fuzz_topo.c: topology YAML (model/topo_yaml.c, ytree.c).  Lines
** "#set KEY=VALUE" at the top are --set overrides.  A topology that loads
** must pass its statistics, build a communicator of all its GPUs (or say
** why not) and price an AllReduce at a finite, non-negative time.
*/
#include "fuzz.h"
#include "../../model/comm.h"
#include "../../model/cost.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *text = fuzz_text(data, n);
	const char *sets[8];
	int ns = 0;
	char *body = text;
	while (ns < 8 && !strncmp(body, "#set ", 5)) {
		char *nl = strchr(body, '\n');
		if (!nl)
			break;
		*nl = 0;
		sets[ns++] = body + 5;
		body = nl + 1;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	int rc = ccs_topo_yaml_load_buf("fuzz.yaml", body, strlen(body), sets, ns, &t, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		struct ccs_topo_stats st;
		FUZZ_REQUIRE(ccs_topo_stats(t, &st) == CCS_OK);
		FUZZ_REQUIRE(st.ngpu == t->ngpu);
		struct ccs_comm c;
		char err[256];
		if (t->ngpu > 0 && t->ngpu <= 512 && ccs_comm_build(t, (int)t->ngpu, 0, &c, err, sizeof err) == CCS_OK) {
			struct ccs_cost cc;
			const char *why;
			if (!ccs_cost_eval(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 1 << 20, &cc, &why))
				FUZZ_REQUIRE(isfinite(cc.time_s) && cc.time_s >= 0);
			ccs_comm_release(&c);
		}
		ccs_topo_free(t);
	}
	free(text);
	return 0;
}
