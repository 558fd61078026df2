/*
** tests/fuzz/fuzz_sched.c: schedule YAML (sim/sched/file.c) for HGX H100's
** eight ranks.  An accepted schedule declares 1 to 1,000,000 ranks
** and has ops.
*/
#include "fuzz.h"
#include "../../model/comm.h"
#include "../../sim/sched/sched.h"

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
	int rc = ccs_sched_load(path, comm, 1 << 20, &s, &ranks, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		FUZZ_REQUIRE(ranks >= 1 && ranks <= 1000000 && s.nops >= 1);
		ccs_sched_release(&s);
	}
	return 0;
}
