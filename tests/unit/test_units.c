/* tests/unit/test_units.c: quantities with units (model/units.h). */
#include "../check.h"
#include "../../model/units.h"

#include <string.h>

static double qty(const char *s, enum ccs_qty q)
{
	double v = -1;
	char err[256];
	if (ccs_parse_qty(s, q, &v, err, sizeof err))
		return -1;
	return v;
}

static int fails_with(const char *s, enum ccs_qty q, const char *want)
{
	double v;
	char err[256] = "";
	if (!ccs_parse_qty(s, q, &v, err, sizeof err))
		return 0;
	if (strcmp(err, want)) {
		fprintf(stderr, "  '%s': got '%s'\n  want '%s'\n", s, err, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	/* bits vs bytes, 1000 vs 1024, exactly as written */
	CHECK_NEAR(qty("400Gb/s", CCS_QTY_BW), 50e9, 1e-15);
	CHECK_NEAR(qty("450GB/s", CCS_QTY_BW), 450e9, 1e-15);
	CHECK_NEAR(qty("400Gbps", CCS_QTY_BW), 50e9, 1e-15);
	CHECK_NEAR(qty("25 GB/s", CCS_QTY_BW), 25e9, 1e-15);
	CHECK_NEAR(qty("1GiB/s", CCS_QTY_BW), 1073741824.0, 1e-15);
	CHECK_NEAR(qty("1.6Tb/s", CCS_QTY_BW), 200e9, 1e-15);
	CHECK_NEAR(qty("100Mb/s", CCS_QTY_BW), 12.5e6, 1e-15);
	CHECK_NEAR(qty("1.5us", CCS_QTY_TIME), 1.5e-6, 1e-15);
	CHECK_NEAR(qty("600ns", CCS_QTY_TIME), 600e-9, 1e-15);
	CHECK_NEAR(qty("2ms", CCS_QTY_TIME), 2e-3, 1e-15);
	CHECK_NEAR(qty("5ps", CCS_QTY_TIME), 5e-12, 1e-15);
	CHECK_NEAR(qty("1\xc2\xb5s", CCS_QTY_TIME), 1e-6, 1e-15);
	CHECK_NEAR(qty("0ns", CCS_QTY_TIME), 0, 0);
	CHECK_NEAR(qty("16MiB", CCS_QTY_SIZE), 16.0 * 1048576, 1e-15);
	CHECK_NEAR(qty("16MB", CCS_QTY_SIZE), 16e6, 1e-15);
	CHECK_NEAR(qty("4KiB", CCS_QTY_SIZE), 4096, 1e-15);
	CHECK_NEAR(qty("1e3B", CCS_QTY_SIZE), 1000, 1e-15);

	uint64_t b = 0;
	char err[256];
	CHECK(ccs_parse_size("8GiB", &b, err, sizeof err) == 0 && b == 8589934592ull);
	CHECK(ccs_parse_size("1.5B", &b, err, sizeof err) == -1);

	/* a bare number, a wrong kind, a bad unit, bad values */
	CHECK(fails_with("400", CCS_QTY_BW, "missing unit in '400' (write e.g. 400Gb/s or 450GB/s)"));
	CHECK(fails_with("400GBs", CCS_QTY_BW, "unknown unit 'GBs' in '400GBs' (write e.g. 400Gb/s or 450GB/s)"));
	CHECK(fails_with("1.5us", CCS_QTY_BW, "'1.5us' is a time, expected a bandwidth such as 400Gb/s or 450GB/s"));
	CHECK(fails_with("16MiB", CCS_QTY_TIME, "'16MiB' is a size, expected a time such as 1.5us or 600ns"));
	CHECK(fails_with("-5GB/s", CCS_QTY_BW, "bandwidth must be positive, got '-5GB/s'"));
	CHECK(fails_with("0Gb/s", CCS_QTY_BW, "bandwidth must be positive, got '0Gb/s'"));
	CHECK(fails_with("-1ns", CCS_QTY_TIME, "time must not be negative, got '-1ns'"));
	CHECK(fails_with("fast", CCS_QTY_BW, "expected a bandwidth such as 400Gb/s or 450GB/s, got 'fast'"));
	CHECK(fails_with("nanGB/s", CCS_QTY_BW, "expected a bandwidth such as 400Gb/s or 450GB/s, got 'nanGB/s'"));
	CHECK(fails_with("1e999GB/s", CCS_QTY_BW, "bandwidth '1e999GB/s' is out of range"));
	CHECK(fails_with("16Mb", CCS_QTY_SIZE, "unknown unit 'Mb' in '16Mb' (write e.g. 16MiB or 4KiB)"));
	CHECK(fails_with("16 MiB extra", CCS_QTY_SIZE, "unknown unit 'MiB extra' in '16 MiB extra' (write e.g. 16MiB or 4KiB)"));

	/* formatting */
	char buf[32];
	ccs_fmt_Bps(450e9, buf, sizeof buf);
	CHECK(!strcmp(buf, "450 GB/s"));
	ccs_fmt_Bps(25.6e12, buf, sizeof buf);
	CHECK(!strcmp(buf, "25.6 TB/s"));
	ccs_fmt_bps(50e9, buf, sizeof buf);
	CHECK(!strcmp(buf, "400 Gb/s"));
	ccs_fmt_time(1.5e-6, buf, sizeof buf);
	CHECK(!strcmp(buf, "1.5 us"));
	ccs_fmt_size(16.0 * 1048576, buf, sizeof buf);
	CHECK(!strcmp(buf, "16 MiB"));
	return CHECK_DONE("test_units");
}
