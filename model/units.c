/* model/units.c: parse and format quantities with units (see units.h). */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const qty_name[] = { "bandwidth", "time", "size" };
static const char *const qty_example[] = { "400Gb/s or 450GB/s", "1.5us or 600ns", "16MiB or 4KiB" };

/* Strict decimal number: [+-]digits[.digits][e[+-]digits].  Returns the
 * length consumed, 0 if there is no number. */
static size_t scan_number(const char *s, double *v)
{
	size_t i = 0, digits = 0;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (s[i] >= '0' && s[i] <= '9') { i++; digits++; }
	if (s[i] == '.') {
		i++;
		while (s[i] >= '0' && s[i] <= '9') { i++; digits++; }
	}
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (s[j] >= '0' && s[j] <= '9') {
			while (s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	char buf[64];
	if (i >= sizeof buf)
		return 0;
	memcpy(buf, s, i);
	buf[i] = 0;
	*v = strtod(buf, NULL);
	return i;
}

/* Decimal or binary prefix at *u; advances *u.  Returns the multiplier. */
static double scan_prefix(const char **u)
{
	static const struct { char c; double dec, bin; } px[] = {
		{ 'k', 1e3, 1024.0 }, { 'K', 1e3, 1024.0 }, { 'M', 1e6, 1048576.0 },
		{ 'G', 1e9, 1073741824.0 }, { 'T', 1e12, 1099511627776.0 },
		{ 'P', 1e15, 1125899906842624.0 },
	};
	for (size_t i = 0; i < sizeof px / sizeof px[0]; i++) {
		if ((*u)[0] == px[i].c && (*u)[1] && (*u)[1] != '/' && (*u)[1] != 'p') {
			if ((*u)[1] == 'i') {
				*u += 2;
				return px[i].bin;
			}
			*u += 1;
			return px[i].dec;
		}
	}
	return 1.0;
}

/* Unit -> multiplier to base units for quantity q; 0 if unknown; -1 if the
 * unit is known but of another kind (wrong_kind gets that kind). */
static double unit_factor(const char *u, enum ccs_qty q, int *wrong_kind)
{
	*wrong_kind = -1;
	/* times */
	static const struct { const char *u; double f; } tu[] = {
		{ "ps", 1e-12 }, { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 },
		{ "\xce\xbcs", 1e-6 }, { "ms", 1e-3 }, { "s", 1.0 },
	};
	for (size_t i = 0; i < sizeof tu / sizeof tu[0]; i++)
		if (!strcmp(u, tu[i].u)) {
			if (q == CCS_QTY_TIME)
				return tu[i].f;
			*wrong_kind = CCS_QTY_TIME;
			return -1;
		}
	const char *p = u;
	double mul = scan_prefix(&p);
	int bits;
	if (*p == 'b')
		bits = 1;
	else if (*p == 'B')
		bits = 0;
	else
		return 0;
	p++;
	if (!strcmp(p, "/s") || !strcmp(p, "ps")) {
		if (q != CCS_QTY_BW) {
			*wrong_kind = CCS_QTY_BW;
			return -1;
		}
		return bits ? mul / 8.0 : mul;
	}
	if (*p == 0) {
		if (q != CCS_QTY_SIZE) {
			*wrong_kind = CCS_QTY_SIZE;
			return -1;
		}
		if (bits)
			return 0;           /* sizes in bits are not accepted */
		return mul;
	}
	return 0;
}

int ccs_parse_qty(const char *s, enum ccs_qty q, double *out, char *err, size_t errn)
{
	double v = 0;
	size_t n = scan_number(s, &v);
	if (!n) {
		snprintf(err, errn, "expected a %s such as %s, got '%s'", qty_name[q], qty_example[q], s);
		return -1;
	}
	const char *u = s + n;
	while (*u == ' ')
		u++;
	if (!*u) {
		snprintf(err, errn, "missing unit in '%s' (write e.g. %s)", s, qty_example[q]);
		return -1;
	}
	int wk;
	double f = unit_factor(u, q, &wk);
	if (f < 0) {
		snprintf(err, errn, "'%s' is a %s, expected a %s such as %s", s, qty_name[wk],
		         qty_name[q], qty_example[q]);
		return -1;
	}
	if (f == 0) {
		snprintf(err, errn, "unknown unit '%s' in '%s' (write e.g. %s)", u, s, qty_example[q]);
		return -1;
	}
	double r = v * f;
	if (!isfinite(r)) {
		snprintf(err, errn, "%s '%s' is out of range", qty_name[q], s);
		return -1;
	}
	if (q == CCS_QTY_BW && r <= 0) {
		snprintf(err, errn, "bandwidth must be positive, got '%s'", s);
		return -1;
	}
	/* the limits keep every simulated time inside int64 picoseconds for
	 * the inputs people write (sim/time.h) */
	if (q == CCS_QTY_BW && r < CCS_QTY_MIN_BPS) {
		snprintf(err, errn, "bandwidth '%s' is below the least ccsim takes (1kB/s)", s);
		return -1;
	}
	if (q == CCS_QTY_TIME && r > CCS_QTY_MAX_S) {
		snprintf(err, errn, "time '%s' is above the most ccsim takes (1000s)", s);
		return -1;
	}
	if (q == CCS_QTY_SIZE && r > CCS_QTY_MAX_B) {
		snprintf(err, errn, "size '%s' is above the most ccsim takes (8PiB, 2^53 bytes)", s);
		return -1;
	}
	if (r < 0) {
		snprintf(err, errn, "%s must not be negative, got '%s'", qty_name[q], s);
		return -1;
	}
	*out = r;
	return 0;
}

int ccs_parse_size(const char *s, uint64_t *out, char *err, size_t errn)
{
	double v;
	if (ccs_parse_qty(s, CCS_QTY_SIZE, &v, err, errn))
		return -1;
	if (v >= 18446744073709551615.0 || v != floor(v)) {
		snprintf(err, errn, "size '%s' is not a whole number of bytes in range", s);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

static void fmt_scaled(double v, const char *const units[], int nunits, double base,
                       char *buf, size_t n)
{
	int i = 0;
	double a = fabs(v);
	while (i + 1 < nunits && a >= base * 0.9995) {
		a /= base;
		v /= base;
		i++;
	}
	if (a == 0 || a >= 100)
		snprintf(buf, n, "%.0f %s", v, units[i]);
	else if (a >= 10)
		snprintf(buf, n, "%.4g %s", v, units[i]);
	else
		snprintf(buf, n, "%.3g %s", v, units[i]);
}

void ccs_fmt_Bps(double Bps, char *buf, size_t n)
{
	static const char *const u[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s" };
	fmt_scaled(Bps, u, 7, 1000.0, buf, n);
}

void ccs_fmt_bps(double Bps, char *buf, size_t n)
{
	static const char *const u[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s", "Pb/s", "Eb/s" };
	fmt_scaled(Bps * 8.0, u, 7, 1000.0, buf, n);
}

void ccs_fmt_time(double s, char *buf, size_t n)
{
	if (s == 0) {
		snprintf(buf, n, "0 ns");
		return;
	}
	static const struct { double f; const char *u; } t[] = {
		{ 1.0, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" }, { 1e-12, "ps" },
	};
	for (size_t i = 0; i < 5; i++)
		if (fabs(s) >= t[i].f * 0.9995 || i == 4) {
			snprintf(buf, n, "%.4g %s", s / t[i].f, t[i].u);
			return;
		}
}

void ccs_fmt_size(double bytes, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	fmt_scaled(bytes, u, 6, 1024.0, buf, n);
}
