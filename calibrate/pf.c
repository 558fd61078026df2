/* calibrate/pf.c: perftest logs (ib_write_bw, ib_read_lat ...) into records (ccs_pf_*, ingest.h). */
#include "ingest.h"
#include "lines.h"

#include "../model/escape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Settings lines: the verb (RDMA_Write, RDMA_Read, Send), the device, the
 * link type. */
static void pf_settings(const struct ccs_lines_toks *k, struct ccs_pf_log *out)
{
	if (!out->verb[0]) {
		for (int i = 0; i < k->n; i++) {
			if (!strcmp(k->t[i], "RDMA_Write"))
				snprintf(out->verb, sizeof out->verb, "write");
			else if (!strcmp(k->t[i], "RDMA_Read"))
				snprintf(out->verb, sizeof out->verb, "read");
			else if (!strcmp(k->t[i], "Send") && i + 1 < k->n &&
			         (!strcmp(k->t[i + 1], "BW") || !strcmp(k->t[i + 1], "Latency")))
				snprintf(out->verb, sizeof out->verb, "send");
		}
	}
	/* " Dual-port : OFF		Device : ib0": settings two to a line */
	for (int i = 0; i + 2 < k->n && !out->device[0]; i++)
		if (!strcmp(k->t[i], "Device") && !strcmp(k->t[i + 1], ":"))
			snprintf(out->device, sizeof out->device, "%s", k->t[i + 2]);
	/* " Link type       : Ethernet" */
	if (k->n >= 4 && !strcmp(k->t[0], "Link") && !strcmp(k->t[1], "type") && !strcmp(k->t[2], ":"))
		snprintf(out->link, sizeof out->link, "%s", !strcmp(k->t[3], "IB") ? "ib" : "roce");
}

/* A table row: size, iterations, then bandwidths (in the header's unit) or
 * latencies (us) as the table's kind has them. */
static int pf_row(const struct ccs_lines_toks *k, int line, int duration, double unit, struct ccs_pf_log *out, size_t *cap,
                  struct ccs_diag *d)
{
	int rc = CCS_OK;
	int want = out->kind == CCS_PF_BW ? 5 : duration ? 4 : 6;
	if (k->n < want) {
		rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[k->n - 1]), "a perftest row of %d fields, %d expected", k->n, want);
		return rc;
	}
	double v[9] = { 0 };
	int nv = k->n < 9 ? k->n : 9;
	for (int i = 1; i < nv; i++)
		if (ccs_lines_num(k->t[i], &v[i]) || v[i] < 0 || v[i] > 1e15) {
			rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[i]), "expected a number (0 to 1e15), got '%s'", k->t[i]);
			return rc;
		}
	if ((rc = ccs_grow(&out->row, cap, out->nrow + 1, sizeof *out->row)))
		return rc;
	struct ccs_pf_row *r = &out->row[out->nrow++];
	memset(r, 0, sizeof *r);
	r->line = line;
	if (ccs_lines_u63(k->t[0], &r->bytes)) {
		out->nrow--;
		return ccs_diag_at(d, ccs_lines_mark(line, k->col[0]), "expected a size in bytes below 2^63, got '%s'", k->t[0]);
	}
	if (v[1] >= 0x1p63 || v[1] != floor(v[1])) {
		out->nrow--;
		return ccs_diag_at(d, ccs_lines_mark(line, k->col[1]), "expected a whole iteration count, got '%s'", k->t[1]);
	}
	r->iters = (uint64_t)v[1];
	if (out->kind == CCS_PF_BW) {
		r->peak_Bps = v[2] * unit;
		r->avg_Bps = v[3] * unit;
		r->rate_Mpps = v[4];
	} else if (duration) {
		r->t_avg_s = v[2] * 1e-6;
	} else {
		r->t_min_s = v[2] * 1e-6;
		r->t_max_s = v[3] * 1e-6;
		r->t_typ_s = v[4] * 1e-6;
		r->t_avg_s = v[5] * 1e-6;
	}
	return CCS_OK;
}

/* perftest's failure lines (its src/perftest_resources.c and the
 * *_bw.c / *_lat.c mains print these and exit): the first one into out. */
static void pf_fail(const char *raw, int line, struct ccs_pf_log *out)
{
	static const char *const marks[] = { "Completion with error", "Failed status", "Couldn't", "Failed to",
		                             "Problems with", "Unable to", "Error in" };
	const char *s = raw;
	if (out->fail[0])
		return;
	while (*s == ' ' || *s == '\t')
		s++;
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
		if (!strncmp(s, marks[i], strlen(marks[i]))) {
			snprintf(out->fail, sizeof out->fail, "%.159s", s);
			ccs_escape_utf8_fix(out->fail);
			size_t n = strlen(out->fail);
			while (n && (out->fail[n - 1] == '\r' || out->fail[n - 1] == ' ' || out->fail[n - 1] == '\n'))
				out->fail[--n] = 0;
			out->fail_line = line;
			out->fail_col = (int)(s - raw) + 1;
			return;
		}
}

int ccs_pf_parse(const char *src, const char *text, size_t len, struct ccs_pf_log *out, struct ccs_diag *d)
{
	memset(out, 0, sizeof *out);
	const char *srcs[1] = { src };
	size_t cap = 0;
	int rc = CCS_OK, in_table = 0, duration = 0;
	double unit = 0;            /* B/s per printed bandwidth unit */
	struct ccs_lines *L = ccs_lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	L->strip = 1;
	const struct ccs_lines_toks *k = &L->k;
	while (!rc && ccs_lines_next(L)) {
		int line = L->line;
		const char *s = L->raw;
		if (!k->n)
			continue;
		pf_settings(k, out);
		if (!strcmp(k->t[0], "#bytes")) {
			in_table = 1;
			if (strstr(s, "BW average")) {
				out->kind = CCS_PF_BW;
				const char *u = strstr(s, "BW average[");
				u = u ? u + 11 : "";
				unit = !strncmp(u, "Gb/sec", 6) ? 125e6 : (!strncmp(u, "MB/sec", 6) || !strncmp(u, "MiB/sec", 7))
				                                              ? 1048576.0 : 0;
				if (!unit) {
					rc = ccs_diag_at(d, ccs_lines_mark(line, (int)(u - s) + 1), "unknown bandwidth unit in the perftest header");
					break;
				}
			} else if (strstr(s, "t_min") || strstr(s, "t_avg")) {
				out->kind = CCS_PF_LAT;
				duration = !strstr(s, "t_min");
			} else {
				rc = ccs_diag_at(d, ccs_lines_mark(line, 1), "a perftest header that is neither bandwidth nor latency");
				break;
			}
			continue;
		}
		if (k->t[0][0] == '-' && k->t[0][1] == '-') {
			in_table = 0;
			continue;
		}
		if (!ccs_lines_is_uint(k->t[0]))
			pf_fail(s, line, out);
		if (!in_table || !ccs_lines_is_uint(k->t[0]))
			continue;       /* settings, warnings ("Conflicting CPU frequency ...") */
		rc = pf_row(k, line, duration, unit, out, &cap, d);
	}
	if (!rc && !out->nrow && out->fail[0])
		rc = ccs_diag_at(d, ccs_lines_mark(out->fail_line, out->fail_col), "no perftest row: the test failed: %s",
		                 out->fail);
	else if (!rc && !out->nrow)
		rc = ccs_diag_at(d, ccs_lines_mark(L->line > 0 ? L->line : 1, 1), "no perftest table found");
	ccs_lines_free(L, d);
	out->round_trip = out->kind == CCS_PF_LAT && !strcmp(out->verb, "read");
	if (rc)
		ccs_pf_release(out);
	return rc;
}

void ccs_pf_release(struct ccs_pf_log *l)
{
	ccs_free(l->row);
	memset(l, 0, sizeof *l);
}
