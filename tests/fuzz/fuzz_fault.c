/*
** tests/fuzz/fuzz_fault.c: fault specs (model/fault.c), applied to HGX H100
** (loaded once, copied per input by loading its text again).  A fault that
** applies leaves a topology whose statistics hold.
*/
#include "fuzz.h"
#include "../../model/fault.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"

#include <string.h>

static char *base;
static size_t base_n;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (!base) {
		FILE *f = fopen("topologies/hgx-h100.yaml", "rb");
		FUZZ_REQUIRE(f != NULL);
		base = malloc(1 << 16);
		base_n = fread(base, 1, (1 << 16) - 1, f);
		fclose(f);
	}
	char *spec = fuzz_text(data, n < 512 ? n : 512);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	FUZZ_REQUIRE(ccs_topo_yaml_load_buf("hgx-h100.yaml", base, base_n, NULL, 0, &t, &d) == CCS_OK);
	char err[512] = "";
	int rc = ccs_fault_apply(t, spec, err, sizeof err);
	FUZZ_REQUIRE(rc == CCS_OK || (rc == CCS_EINPUT && err[0]));
	if (rc == CCS_OK && t->ntimed)
		FUZZ_REQUIRE(ccs_fault_settle(t, t->ntimed) == CCS_OK);
	struct ccs_topo_stats st;
	if (rc == CCS_OK)
		FUZZ_REQUIRE(ccs_topo_stats(t, &st) == CCS_OK);
	ccs_topo_free(t);
	free(spec);
	return 0;
}
