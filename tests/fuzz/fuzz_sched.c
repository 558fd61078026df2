/*
** tests/fuzz/fuzz_sched.c: schedule YAML (sim/sched/file.c) for HGX H100's
** eight ranks.  An accepted schedule declares 1 to 1,000,000 ranks
** and has ops; one for the eight ranks (of at most 20,000 ops) is then
** simulated on the H100 node: it ends with a finite time, or is refused
** with a message.
*/
#include "fuzz.h"
#include "../../model/comm.h"
#include "../../sim/sched/sched.h"
#include "../../sim/fabric.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"

#include <math.h>

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const struct ccs_comm *comm = fuzz_hgx_h100();
	const char *path = fuzz_file(data, n, "build/fuzz/tmp", ".yaml");
	struct ccs_sched s;
	memset(&s, 0, sizeof s);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int ranks = 0;
	int rc = ccs_sched_file_load(path, comm, 1 << 20, &s, &ranks, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		FUZZ_REQUIRE(ranks >= 1 && ranks <= 1000000 && s.nops >= 1);
		struct ccs_fabric *fab = NULL;
		if (ranks == 8 && s.nops <= 20000 && ccs_fabric_new(comm, &fab) == CCS_OK) {
			struct ccs_sim_stats st;
			char err[256] = "";
			memset(&st, 0, sizeof st);
			int src = ccs_sim_run(fab, &s, &st, NULL, err, sizeof err);
			if (src == CCS_OK)
				FUZZ_REQUIRE(isfinite(st.time_s) && st.time_s >= 0);
			else if (src != CCS_ENOMEM)
				FUZZ_REQUIRE(err[0] != 0);
			ccs_fabric_free(fab);
		}
		ccs_sched_release(&s);
	}
	return 0;
}
