/*
** tests/fuzz/fuzz_moe.c: MoE routing traces and byte matrices
** (sim/cli/moe_io.c).  The first byte picks the reader; a trace is read
** for 4 ranks x 8 tokens x top-2 of 16 experts, a matrix for 4 ranks.
** Accepted ids are in range and distinct per token; bytes are finite and
** not negative.
*/
#include "fuzz.h"
#include "../../model/ccs.h"
#include "../../sim/cli/moe_io.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (!n)
		return 0;
	int matrix = data[0] & 1;
	const char *path = fuzz_file(data + 1, n - 1, "build/fuzz/tmp", matrix ? ".csv" : ".txt");
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (matrix) {
		double *m = NULL;
		int rc = ccs_moe_matrix_load(path, 4, &m, &d);
		fuzz_check_diag(rc, d.msg, d.set);
		for (int i = 0; rc == CCS_OK && i < 16; i++)
			FUZZ_REQUIRE(isfinite(m[i]) && m[i] >= 0);
		ccs_free(m);
	} else {
		int32_t *ids = NULL;
		int rc = ccs_moe_trace_load(path, 4, 8, 2, 16, &ids, &d);
		fuzz_check_diag(rc, d.msg, d.set);
		for (int i = 0; rc == CCS_OK && i < 4 * 8; i++) {
			FUZZ_REQUIRE(ids[2 * i] >= 0 && ids[2 * i] < 16 && ids[2 * i + 1] >= 0 && ids[2 * i + 1] < 16);
			FUZZ_REQUIRE(ids[2 * i] != ids[2 * i + 1]);
		}
		ccs_free(ids);
	}
	return 0;
}
