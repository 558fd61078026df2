/*
** tests/fuzz/fuzz_log.c: the log readers (calibrate/ingest.c, nt.c, pf.c: nccl-tests,
** rccl-tests, perftest and ccsim-bench logs, with launcher prefixes).
** Every measurement of an accepted log is finite and positive, its size a
** count SQLite can store.
*/
#include "fuzz.h"
#include "../../calibrate/ingest.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_ingest_text("fuzz.log", (const char *)data, n, &set, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK)
		for (size_t i = 0; i < set.n; i++) {
			const struct ccs_meas *m = &set.m[i];
			FUZZ_REQUIRE(isfinite(m->median_s) && m->median_s > 0);
			FUZZ_REQUIRE(isnan(m->min_s) || (isfinite(m->min_s) && m->min_s >= 0));
			FUZZ_REQUIRE(isnan(m->max_s) || (isfinite(m->max_s) && m->max_s >= 0));
			FUZZ_REQUIRE(isnan(m->busbw_Bps) || (isfinite(m->busbw_Bps) && m->busbw_Bps >= 0));
			FUZZ_REQUIRE(m->size < (UINT64_C(1) << 63) && m->iters < (UINT64_C(1) << 63));
			FUZZ_REQUIRE(m->ranks >= 0 && m->line > 0);
			FUZZ_REQUIRE(memchr(m->name, 0, sizeof m->name) && m->name[0]);
		}
	ccs_meas_set_release(&set);
	return 0;
}
