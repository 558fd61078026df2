/*
** tests/fuzz/fuzz_msccl.c: MSCCL algorithm XML (sim/sched/msccl.c).  XML
** that converts gives schedule YAML that loads for HGX H100's eight ranks
** or is refused with a positioned reason (never a crash).
*/
#include "../../sim/sched/build.h"
#include "fuzz.h"
#include "../../model/comm.h"
#include "../../sim/sched/sched.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const struct ccs_comm *comm = fuzz_hgx_h100();
	char *yaml = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_sched_msccl_yaml("fuzz.xml", (const char *)data, n, 1 << 20, &yaml, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		FUZZ_REQUIRE(yaml != NULL);
		const char *path = fuzz_file((const uint8_t *)yaml, strlen(yaml), "build/fuzz/tmp", ".yaml");
		struct ccs_sched s;
		memset(&s, 0, sizeof s);
		struct ccs_diag d2;
		memset(&d2, 0, sizeof d2);
		int ranks = 0;
		int lrc = ccs_sched_file_load(path, comm, 1 << 20, &s, &ranks, &d2);
		fuzz_check_diag(lrc, d2.msg, d2.set);
		if (lrc == CCS_OK)
			ccs_sched_release(&s);
	}
	ccs_free(yaml);
	return 0;
}
