/*
** tests/fuzz/fuzz_units.c: quantities with units (model/units.c).  The
** input is one string, tried as a bandwidth, a time and a size; a value
** taken is finite and inside the limits units.h states.
*/
#include "fuzz.h"
#include "../../model/units.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *s = fuzz_text(data, n < 256 ? n : 256);
	char err[256];
	double v;
	if (!ccs_parse_qty(s, CCS_QTY_BW, &v, err, sizeof err))
		FUZZ_REQUIRE(isfinite(v) && v >= CCS_QTY_MIN_BPS);
	else
		FUZZ_REQUIRE(err[0]);
	if (!ccs_parse_qty(s, CCS_QTY_TIME, &v, err, sizeof err))
		FUZZ_REQUIRE(isfinite(v) && v >= 0 && v <= CCS_QTY_MAX_S);
	if (!ccs_parse_qty(s, CCS_QTY_SIZE, &v, err, sizeof err))
		FUZZ_REQUIRE(isfinite(v) && v >= 0 && v <= CCS_QTY_MAX_B);
	uint64_t b;
	if (!ccs_parse_size(s, &b, err, sizeof err))
		FUZZ_REQUIRE((double)b <= CCS_QTY_MAX_B);
	free(s);
	return 0;
}
