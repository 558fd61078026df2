/* calibrate/ingest.c: nccl-tests and perftest logs into records (ingest.h). */
#include "ingest.h"

#include "../model/coll.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 48

/* One line split on blanks: tokens (NUL-terminated copies) and their
 * 1-based columns. */
struct toks {
	int n;
	char buf[1024];
	char *t[MAXTOK];
	int col[MAXTOK];
};

static void split(const char *s, size_t len, struct toks *k)
{
	k->n = 0;
	size_t o = 0;
	for (size_t i = 0; i < len && k->n < MAXTOK;) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i >= len)
			break;
		size_t j = i;
		while (j < len && !isspace((unsigned char)s[j]))
			j++;
		if (o + (j - i) + 1 > sizeof k->buf)
			break;
		memcpy(k->buf + o, s + i, j - i);
		k->buf[o + (j - i)] = 0;
		k->t[k->n] = k->buf + o;
		k->col[k->n] = (int)i + 1;
		k->n++;
		o += j - i + 1;
		i = j;
	}
}

/* A text walked line by line: each line split into k, its text (NUL-
 * terminated, truncated to the buffer) in raw, its number in line. */
struct lines {
	const char *text;
	size_t len, pos;
	int line;
	char raw[1024];
	struct toks k;
};

static int next_line(struct lines *L)
{
	if (L->pos >= L->len)
		return 0;
	const char *s = L->text + L->pos;
	const char *nl = memchr(s, '\n', L->len - L->pos);
	size_t ll = nl ? (size_t)(nl - s) : L->len - L->pos;
	L->pos += ll + 1;
	L->line++;
	size_t c = ll < sizeof L->raw - 1 ? ll : sizeof L->raw - 1;
	memcpy(L->raw, s, c);
	L->raw[c] = 0;
	split(s, ll, &L->k);
	return 1;
}

/* Lines of text, diagnostics in d naming src (srcs, which must outlive the
 * parse); NULL when out of memory. */
static struct lines *lines_new(const char *text, size_t len, const char *const *srcs, struct ccs_diag *d)
{
	struct lines *L = ccs_calloc(1, sizeof *L);
	if (L) {
		L->text = text;
		L->len = len;
		d->srcs = srcs;
		d->nsrcs = 1;
	}
	return L;
}

static void lines_free(struct lines *L, struct ccs_diag *d)
{
	ccs_free(L);
	d->srcs = NULL;
	d->nsrcs = 0;
}

static int is_uint(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || x != x)
		return -1;
	*out = x;
	return 0;
}

static struct ccs_mark mk(int line, int col)
{
	struct ccs_mark m = { 0, line, col };
	return m;
}

int ccs_ingest_read_file(const char *path, char **text, size_t *len, struct ccs_diag *d)
{
	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		ccs_diag_msg(d, "%s: cannot open: %s", path, strerror(errno));
		return CCS_EIO;
	}
	size_t cap = 65536, n = 0;
	char *b = ccs_malloc(cap);
	while (b) {
		size_t r = fread(b + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
		if (n + 1 >= cap) {
			char *nb = ccs_realloc(b, cap * 2);
			if (!nb) {
				ccs_free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	int err = ferror(f);
	fclose(f);
	if (!b)
		return CCS_ENOMEM;
	if (err) {
		ccs_free(b);
		ccs_diag_msg(d, "%s: cannot read", path);
		return CCS_EIO;
	}
	b[n] = 0;
	*text = b;
	*len = n;
	return CCS_OK;
}

/* "all_reduce_perf" (or a path ending in it, or with .log / .txt after it)
 * to the CLI name of the collective; "" when none matches. */
static void coll_from(const char *s, char *out, size_t outn)
{
	out[0] = 0;
	const char *base = strrchr(s, '/');
	base = base ? base + 1 : s;
	static const char *const tests[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
	                                     "alltoall", "sendrecv" };
	static const int colls[] = { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER, CCS_COLL_BROADCAST,
	                             CCS_COLL_REDUCE, CCS_COLL_ALLTOALL, CCS_COLL_SENDRECV };
	for (int i = 0; i < 7; i++) {
		char pat[40];
		snprintf(pat, sizeof pat, "%s_perf", tests[i]);
		const char *p = strstr(base, pat);
		/* "reduce_perf" is inside "all_reduce_perf": take the match at
		 * the start of the name or after a separator */
		while (p && p != base && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			p = strstr(p + 1, pat);
		if (p) {
			snprintf(out, outn, "%s", ccs_coll_cli[colls[i]]);
			return;
		}
	}
}

/* ---- nccl-tests ---- */

struct ntschema {
	int have, redop, root, extra;   /* header seen; columns present; extra columns after the halves */
	int inplace_col;                /* column of the in-place time in the header */
};

static int nt_header(const struct toks *k, struct ntschema *s, int *cputime)
{
	/* "#  size count type [redop] [root] time algbw busbw #wrong time ..." */
	int i = 0;
	if (k->n > 0 && !strcmp(k->t[0], "#"))
		i = 1;
	if (k->n - i < 9 || strcmp(k->t[i], "size") || strcmp(k->t[i + 1], "count") || strcmp(k->t[i + 2], "type"))
		return 0;
	memset(s, 0, sizeof *s);
	s->have = 1;
	int j = i + 3;
	if (j < k->n && !strcmp(k->t[j], "redop")) {
		s->redop = 1;
		j++;
	}
	if (j < k->n && !strcmp(k->t[j], "root")) {
		s->root = 1;
		j++;
	}
	*cputime = j < k->n && !strcmp(k->t[j], "cputime");
	int halves = 0;
	for (int m = j; m < k->n; m++)
		if (!strcmp(k->t[m], "time") || !strcmp(k->t[m], "cputime")) {
			if (++halves == 2)
				s->inplace_col = k->col[m];
		}
	s->extra = k->n - (j + 8) > 0;
	return 1;
}

static int nt_half(int line, const struct toks *k, int at, struct ccs_nt_half *h, struct ccs_diag *d)
{
	memset(h, 0, sizeof *h);
	double v[3];
	for (int q = 0; q < 3; q++) {
		if (!strcmp(k->t[at + q], "N/A"))
			return CCS_OK;
		if (num(k->t[at + q], &v[q]) || v[q] < 0)
			return ccs_diag_at(d, mk(line, k->col[at + q]), "expected a %s, got '%s'",
			                   q == 0 ? "time in us" : "bandwidth in GB/s", k->t[at + q]);
	}
	double w;
	if (strcmp(k->t[at + 3], "N/A") && num(k->t[at + 3], &w))
		return ccs_diag_at(d, mk(line, k->col[at + 3]), "expected an error count, got '%s'", k->t[at + 3]);
	h->valid = 1;
	h->time_s = v[0] * 1e-6;
	h->algbw_Bps = v[1] * 1e9;
	h->busbw_Bps = v[2] * 1e9;
	return CCS_OK;
}

/* A '#' line: the table's header, the collective, the highest rank and
 * host, the average bus bandwidth. */
static int nt_comment(const struct toks *k, int line, struct ntschema *sc, struct ccs_nt_log *out, struct ccs_diag *d)
{
	int cpu = 0;
	if (nt_header(k, sc, &cpu)) {
		out->cputime = cpu;
		return CCS_OK;
	}
	/* "# Collective test starting: all_reduce_perf" */
	for (int i = 0; i + 1 < k->n; i++)
		if (!strcmp(k->t[i], "starting:"))
			coll_from(k->t[i + 1], out->coll, sizeof out->coll);
	/* "#  Rank  0 Group  0 Pid 123 on host device ..." */
	if (k->n > 2 && !strcmp(k->t[1], "Rank") && is_uint(k->t[2])) {
		/* the highest rank + 1: quoted logs often keep one line */
		long rk = strtol(k->t[2], NULL, 10);
		if (rk >= out->ranks && rk < 1000000)
			out->ranks = (int)rk + 1;
		for (int i = 3; i + 1 < k->n; i++)
			if (!strcmp(k->t[i], "on") && !out->host[0] && !strcmp(k->t[2], "0"))
				snprintf(out->host, sizeof out->host, "%s", k->t[i + 1]);
	}
	/* "# Avg bus bandwidth    : 745.53" */
	if (k->n >= 6 && !strcmp(k->t[1], "Avg") && !strcmp(k->t[2], "bus") && !strcmp(k->t[3], "bandwidth")) {
		double v;
		if (num(k->t[5], &v) || v < 0)
			return ccs_diag_at(d, mk(line, k->col[5]), "expected the average bus bandwidth in GB/s, got '%s'",
			                 k->t[5]);
		else
			out->avg_busbw_Bps = v * 1e9;
	}
	return CCS_OK;
}

/* A data row: size, count, type, redop and root as the schema has them,
 * then its out-of-place and in-place halves. */
static int nt_row(const struct toks *k, int line, const struct ntschema *sc, struct ccs_nt_log *out, size_t *cap,
                  struct ccs_diag *d)
{
	int rc = CCS_OK;
	/* the schema: the header's, else by token count (11: no redop or
	 * root, 12: no root, 13: both) */
	struct ntschema rs = *sc;
	if (!rs.have) {
		if (k->n < 11 || k->n > 13) {
			rc = ccs_diag_at(d, mk(line, 1), "a data row before any nccl-tests header, with %d fields", k->n);
			return rc;
		}
		rs.redop = k->n >= 12;
		rs.root = k->n == 13;
	}
	int fixed = 3 + rs.redop + rs.root;
	int halves = k->n >= fixed + 8 ? 2 : k->n >= fixed + 4 ? 1 : 0;
	if (!halves || (k->n > fixed + 8 && !rs.extra) || (halves == 1 && k->n > fixed + 4 && !rs.extra)) {
		int c = k->n > fixed + 8 ? k->col[fixed + 8] : k->col[k->n - 1];
		rc = ccs_diag_at(d, mk(line, c), "a row of %d fields does not fit the header (%d or %d expected)", k->n,
		                 fixed + 4, fixed + 8);
		return rc;
	}
	if (out->nrow == *cap && (rc = ccs_grow(&out->row, cap, out->nrow + 1, sizeof *out->row)))
		return rc;
	struct ccs_nt_row *r = &out->row[out->nrow];
	memset(r, 0, sizeof *r);
	r->line = line;
	r->root = -1;
	char *end;
	r->size = strtoull(k->t[0], &end, 10);
	if (!is_uint(k->t[1])) {
		rc = ccs_diag_at(d, mk(line, k->col[1]), "expected an element count, got '%s'", k->t[1]);
		return rc;
	}
	r->count = strtoull(k->t[1], &end, 10);
	if (!ccs_dtype_parse(k->t[2])) {
		rc = ccs_diag_at(d, mk(line, k->col[2]), "unknown data type '%s'", k->t[2]);
		return rc;
	}
	snprintf(r->type, sizeof r->type, "%s", k->t[2]);
	int at = 3;
	if (rs.redop)
		snprintf(r->redop, sizeof r->redop, "%s", k->t[at++]);
	if (rs.root) {
		double v;
		if (num(k->t[at], &v) || v != (int)v) {
			rc = ccs_diag_at(d, mk(line, k->col[at]), "expected a root rank, got '%s'", k->t[at]);
			return rc;
		}
		r->root = (int)v;
		at++;
	}
	int which = 0;
	if (halves == 1 && sc->inplace_col && k->col[at] >= sc->inplace_col - 2)
		which = 1;      /* only the in-place half is printed */
	for (int h = 0; h < halves && !rc; h++)
		rc = nt_half(line, k, at + 4 * h, &r->half[which + h], d);
	if (rc)
		return rc;
	out->nrow++;
	return CCS_OK;
}

int ccs_nt_parse(const char *src, const char *text, size_t len, const char *coll_hint, struct ccs_nt_log *out,
                 struct ccs_diag *d)
{
	memset(out, 0, sizeof *out);
	out->avg_busbw_Bps = -1;
	const char *srcs[1] = { src };
	struct ntschema sc;
	memset(&sc, 0, sizeof sc);
	size_t cap = 0;
	int rc = CCS_OK;
	struct lines *L = lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	const struct toks *k = &L->k;
	while (!rc && next_line(L)) {
		int line = L->line;
		if (!k->n)
			continue;
		if (k->t[0][0] == '#') {
			rc = nt_comment(k, line, &sc, out, d);
			continue;
		}
		if (!is_uint(k->t[0]))
			continue;       /* NCCL INFO lines and other chatter */
		rc = nt_row(k, line, &sc, out, &cap, d);
	}
	if (!rc && !out->nrow)
		rc = ccs_diag_at(d, mk(L->line > 0 ? L->line : 1, 1), "no nccl-tests table found");
	lines_free(L, d);
	if (!rc && !out->coll[0])
		coll_from(coll_hint ? coll_hint : src, out->coll, sizeof out->coll);
	if (rc)
		ccs_nt_release(out);
	return rc;
}

void ccs_nt_release(struct ccs_nt_log *l)
{
	ccs_free(l->row);
	memset(l, 0, sizeof *l);
}

/* ---- perftest ---- */

/* Settings lines: the verb (RDMA_Write, RDMA_Read, Send), the device, the
 * link type. */
static void pf_settings(const struct toks *k, struct ccs_pf_log *out)
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
static int pf_row(const struct toks *k, int line, int duration, double unit, struct ccs_pf_log *out, size_t *cap,
                  struct ccs_diag *d)
{
	int rc = CCS_OK;
	int want = out->kind == CCS_PF_BW ? 5 : duration ? 4 : 6;
	if (k->n < want) {
		rc = ccs_diag_at(d, mk(line, k->col[k->n - 1]), "a perftest row of %d fields, %d expected", k->n, want);
		return rc;
	}
	double v[9] = { 0 };
	int nv = k->n < 9 ? k->n : 9;
	for (int i = 1; i < nv; i++)
		if (num(k->t[i], &v[i]) || v[i] < 0) {
			rc = ccs_diag_at(d, mk(line, k->col[i]), "expected a number, got '%s'", k->t[i]);
			return rc;
		}
	if ((rc = ccs_grow(&out->row, cap, out->nrow + 1, sizeof *out->row)))
		return rc;
	struct ccs_pf_row *r = &out->row[out->nrow++];
	memset(r, 0, sizeof *r);
	r->line = line;
	r->bytes = strtoull(k->t[0], NULL, 10);
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

int ccs_pf_parse(const char *src, const char *text, size_t len, struct ccs_pf_log *out, struct ccs_diag *d)
{
	memset(out, 0, sizeof *out);
	const char *srcs[1] = { src };
	size_t cap = 0;
	int rc = CCS_OK, in_table = 0, duration = 0;
	double unit = 0;            /* B/s per printed bandwidth unit */
	struct lines *L = lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	const struct toks *k = &L->k;
	while (!rc && next_line(L)) {
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
					rc = ccs_diag_at(d, mk(line, (int)(u - s) + 1), "unknown bandwidth unit in the perftest header");
					break;
				}
			} else if (strstr(s, "t_min") || strstr(s, "t_avg")) {
				out->kind = CCS_PF_LAT;
				duration = !strstr(s, "t_min");
			} else {
				rc = ccs_diag_at(d, mk(line, 1), "a perftest header that is neither bandwidth nor latency");
				break;
			}
			continue;
		}
		if (k->t[0][0] == '-' && k->t[0][1] == '-') {
			in_table = 0;
			continue;
		}
		if (!in_table || !is_uint(k->t[0]))
			continue;       /* settings, warnings ("Conflicting CPU frequency ...") */
		rc = pf_row(k, line, duration, unit, out, &cap, d);
	}
	if (!rc && !out->nrow)
		rc = ccs_diag_at(d, mk(L->line > 0 ? L->line : 1, 1), "no perftest table found");
	lines_free(L, d);
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

/* ---- ccsim-bench logs ---- */

static int warn_add(char ***w, size_t *n, const char *fmt, ...) CCS_PRINTF(3, 4);
static int warn_add(char ***w, size_t *n, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char **nw = ccs_realloc(*w, (*n + 1) * sizeof **w);
	if (!nw)
		return CCS_ENOMEM;
	*w = nw;
	size_t l = strlen(buf) + 1;
	if (!(nw[*n] = ccs_malloc(l)))
		return CCS_ENOMEM;
	memcpy(nw[*n], buf, l);
	(*n)++;
	return CCS_OK;
}

static void warn_free(char **w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ccs_free(w[i]);
	ccs_free(w);
}

static void cat_kv(char *dst, size_t n, const char *k, const char *v)
{
	size_t l = strlen(dst);
	if (l < n)
		snprintf(dst + l, n - l, "%s%s=%s", l ? " " : "", k, v);
}

/* One record line into r; 0, or -1 with why (and the column) set. */
static int bl_record(const struct toks *k, struct ccs_bl_rec *r, char *msg, size_t msgn, int *col)
{
	static const char *const keys[] = { "name", "class", "size", "iters", "median", "min", "max", "unit",
	                                    "devices", "host", "driver", "runtime", "firmware", "gpu", "nic" };
	enum { NAME, CLASS, SIZE, ITERS, MEDIAN, MIN, MAX, UNIT, NKEYS = 15 };
	const char *v[NKEYS] = { 0 };
	int c[NKEYS] = { 0 };
	memset(r, 0, sizeof *r);
	for (int i = 0; i < k->n; i++) {
		const char *eq = strchr(k->t[i], '=');
		*col = k->col[i];
		if (!eq || eq == k->t[i]) {
			snprintf(msg, msgn, "expected key=value, got '%.200s'", k->t[i]);
			return -1;
		}
		int j = 0;
		while (j < NKEYS && (strlen(keys[j]) != (size_t)(eq - k->t[i]) || strncmp(keys[j], k->t[i], (size_t)(eq - k->t[i]))))
			j++;
		if (j == NKEYS) {
			snprintf(msg, msgn, "unknown key in '%.200s'", k->t[i]);
			return -1;
		}
		v[j] = eq + 1;
		c[j] = k->col[i] + (int)(eq + 1 - k->t[i]);
	}
	static const int req[] = { NAME, SIZE, ITERS, MEDIAN, UNIT };
	for (int i = 0; i < 5; i++)
		if (!v[req[i]] || !*v[req[i]]) {
			*col = k->n ? k->col[k->n - 1] : 1;
			snprintf(msg, msgn, "record without '%s' (cut short?)", keys[req[i]]);
			return -1;
		}
	double scale = !strcmp(v[UNIT], "s") ? 1 : !strcmp(v[UNIT], "ms") ? 1e-3 : !strcmp(v[UNIT], "us") ? 1e-6
	             : !strcmp(v[UNIT], "ns") ? 1e-9 : 0;
	if (!scale) {
		*col = c[UNIT];
		snprintf(msg, msgn, "unknown time unit '%s' (s, ms, us or ns)", v[UNIT]);
		return -1;
	}
	snprintf(r->name, sizeof r->name, "%s", v[NAME]);
	snprintf(r->cls, sizeof r->cls, "%s", v[CLASS] ? v[CLASS] : "");
	for (int i = 0; i < 2; i++) {
		const char *s = v[i ? ITERS : SIZE];
		if (!is_uint(s)) {
			*col = c[i ? ITERS : SIZE];
			snprintf(msg, msgn, "expected a whole number, got '%s'", s);
			return -1;
		}
		*(i ? &r->iters : &r->size) = strtoull(s, NULL, 10);
	}
	const int tk[3] = { MEDIAN, MIN, MAX };
	double *dst[3] = { &r->median_s, &r->min_s, &r->max_s };
	for (int i = 0; i < 3; i++) {
		*dst[i] = NAN;
		if (!v[tk[i]])
			continue;
		double x;
		if (num(v[tk[i]], &x) || !(x > 0) || x > 1e9) {
			*col = c[tk[i]];
			snprintf(msg, msgn, "expected a positive time, got '%s'", v[tk[i]]);
			return -1;
		}
		*dst[i] = x * scale;
	}
	if ((r->min_s == r->min_s && r->min_s > r->median_s * (1 + 1e-9)) ||
	    (r->max_s == r->max_s && r->max_s < r->median_s * (1 - 1e-9))) {
		*col = c[MEDIAN];
		snprintf(msg, msgn, "median '%s' outside [min, max]", v[MEDIAN]);
		return -1;
	}
	if (v[8])
		snprintf(r->devices, sizeof r->devices, "%s", v[8]);
	return 0;
}

int ccs_bl_parse(const char *src, const char *text, size_t len, struct ccs_bl_log *out, struct ccs_diag *d)
{
	memset(out, 0, sizeof *out);
	const char *srcs[1] = { src };
	size_t cap = 0;
	int rc = CCS_OK, seen_magic = 0;
	struct lines *L = lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	const struct toks *k = &L->k;
	while (!rc && next_line(L)) {
		int line = L->line;
		if (!k->n)
			continue;
		if (k->t[0][0] == '#') {
			if (k->n >= 3 && !strcmp(k->t[1], "ccsim-bench")) {
				if (strcmp(k->t[2], "1")) {
					rc = ccs_diag_at(d, mk(line, k->col[2]), "ccsim-bench log version '%s' is newer than this ccsim reads (1)",
					                 k->t[2]);
					break;
				}
				seen_magic = 1;
			} else if (k->n >= 3 && !strcmp(k->t[1], "host:") && !out->host[0]) {
				snprintf(out->host, sizeof out->host, "%s", k->t[2]);
			} else if (k->n >= 3 && (!strcmp(k->t[1], "driver:") || !strcmp(k->t[1], "runtime:") ||
			                         !strcmp(k->t[1], "firmware:"))) {
				char key[16];
				snprintf(key, sizeof key, "%.*s", (int)strlen(k->t[1]) - 1, k->t[1]);
				cat_kv(out->versions, sizeof out->versions, key, k->t[2]);
			}
			continue;
		}
		if (!seen_magic) {
			rc = ccs_diag_at(d, mk(line, 1), "not a ccsim-bench log: expected '# ccsim-bench 1' before any record");
			break;
		}
		struct ccs_bl_rec r;
		char msg[256];
		int col = 1;
		if (bl_record(k, &r, msg, sizeof msg, &col)) {
			rc = warn_add(&out->warn, &out->nwarn, "%s:%d:%d: %s; record skipped", src, line, col, msg);
			continue;
		}
		r.line = line;
		if ((rc = ccs_grow(&out->rec, &cap, out->nrec + 1, sizeof *out->rec)))
			break;
		out->rec[out->nrec++] = r;
	}
	if (!rc && !out->nrec)
		rc = ccs_diag_at(d, mk(L->line > 0 ? L->line : 1, 1), "%s",
		                 seen_magic ? "no usable ccsim-bench record in the log" : "not a ccsim-bench log: no '# ccsim-bench 1' line");
	lines_free(L, d);
	if (rc)
		ccs_bl_release(out);
	return rc;
}

void ccs_bl_release(struct ccs_bl_log *l)
{
	ccs_free(l->rec);
	warn_free(l->warn, l->nwarn);
	memset(l, 0, sizeof *l);
}

/* ---- any log into measurements ---- */

int ccs_log_kind(const char *text, size_t len)
{
	/* the first 64 KiB decide: perftest's table header, nccl-tests' size
	 * header or its rows' shape, the benches' magic line */
	size_t n = len < 65536 ? len : 65536;
	struct lines L;
	memset(&L, 0, sizeof L);
	L.text = text;
	L.len = n;
	int rows = 0;
	while (next_line(&L)) {
		const struct toks *k = &L.k;
		if (!k->n)
			continue;
		if (k->n >= 2 && !strcmp(k->t[0], "#") && !strcmp(k->t[1], "ccsim-bench"))
			return CCS_LOG_BENCH;
		if (!strcmp(k->t[0], "#bytes"))
			return CCS_LOG_PERFTEST;
		for (int i = 0; i + 2 < k->n; i++)
			if (!strcmp(k->t[i], "size") && !strcmp(k->t[i + 1], "count") && !strcmp(k->t[i + 2], "type"))
				return CCS_LOG_NCCL;
		if (!strcmp(k->t[0], "#") && k->n >= 3 && (!strcmp(k->t[1], "nThread") || !strcmp(k->t[1], "Collective")))
			return CCS_LOG_NCCL;
		if (is_uint(k->t[0]) && k->n >= 11 && k->n <= 13 && is_uint(k->t[1]) && ccs_dtype_parse(k->t[2]))
			rows++;
	}
	return rows ? CCS_LOG_NCCL : CCS_LOG_NONE;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* A log without its Rank lines: the rank count from busbw / algbw of the
 * largest row (nccl-tests' factor, 2(n-1)/n or (n-1)/n); 0 when it does not
 * say (factor 1, or no row with both). */
static int ranks_from_busbw(const struct ccs_nt_log *l)
{
	int coll = ccs_coll_parse(l->coll);
	for (size_t i = l->nrow; i-- > 0;) {
		const struct ccs_nt_half *h = &l->row[i].half[0];
		if (!h->valid || !(h->algbw_Bps > 0) || !(h->busbw_Bps > 0) || h->algbw_Bps < 1e9)
			continue;   /* two printed decimals: small values say little */
		double f = h->busbw_Bps / h->algbw_Bps, n;
		if (coll == CCS_COLL_ALLREDUCE)
			n = f < 1.999 ? 2 / (2 - f) : 0;
		else if (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER || coll == CCS_COLL_ALLTOALL)
			n = f < 0.999 ? 1 / (1 - f) : 0;
		else
			return 0;
		int r = (int)lround(n);
		if (r >= 2 && fabs(ccs_busbw_factor(coll, r) / f - 1) < 0.01)
			return r;
		return 0;
	}
	return 0;
}

static int meas_push(struct ccs_meas_set *set, struct ccs_meas **m)
{
	CCS_TRY(ccs_grow(&set->m, &set->cap, set->n + 1, sizeof *set->m));
	*m = &set->m[set->n++];
	memset(*m, 0, sizeof **m);
	(*m)->min_s = (*m)->max_s = (*m)->busbw_Bps = NAN;
	return CCS_OK;
}

/* A nccl-tests log: one measurement per half (out-of-place, in-place) of
 * each row; the collective and the ranks from the log or the file name. */
static int ingest_nccl(const char *src, const char *text, size_t len, const char *file, struct ccs_meas_set *set, struct ccs_diag *d)
{
	int rc = CCS_OK;
	struct ccs_meas *m;
	struct ccs_nt_log l;
	CCS_TRY(ccs_nt_parse(src, text, len, NULL, &l, d));
	if (!l.coll[0]) {
		rc = ccs_diag_at(d, mk(l.nrow ? l.row[0].line : 1, 1),
		                 "which collective? the log does not say: name the file after the test (all_reduce_perf.log ...)");
		ccs_nt_release(&l);
		return rc;
	}
	if (!l.ranks)
		l.ranks = ranks_from_busbw(&l);
	for (size_t i = 0; i < l.nrow && !rc; i++)
		for (int h = 0; h < 2 && !rc; h++) {
			const struct ccs_nt_half *hf = &l.row[i].half[h];
			if (!hf->valid || !(hf->time_s > 0))
				continue;
			if ((rc = meas_push(set, &m)))
				break;
			snprintf(m->source, sizeof m->source, "nccl-tests");
			snprintf(m->name, sizeof m->name, "%s", l.coll);
			snprintf(m->cls, sizeof m->cls, "nccl");
			snprintf(m->variant, sizeof m->variant, "%s %s", h ? "ip" : "oop", l.row[i].type);
			m->size = l.row[i].size;
			m->ranks = l.ranks;
			m->median_s = hf->time_s;
			m->busbw_Bps = hf->busbw_Bps;
			m->line = l.row[i].line;
			snprintf(m->file, sizeof m->file, "%s", file);
		}
	if (!rc && l.host[0] && !set->host[0])
		snprintf(set->host, sizeof set->host, "%s", l.host);
	ccs_nt_release(&l);
	return rc;
}

/* A perftest log: one measurement per size (the verb from the file name
 * when the title line is missing); zero rows are skipped with a warning. */
static int ingest_perftest(const char *src, const char *text, size_t len, const char *file, struct ccs_meas_set *set, struct ccs_diag *d)
{
	int rc = CCS_OK;
	struct ccs_meas *m;
	struct ccs_pf_log l;
	CCS_TRY(ccs_pf_parse(src, text, len, &l, d));
	/* a quote without its title line: the verb from the file name */
	static const char *const verbs[] = { "write", "read", "send" };
	for (int v = 0; v < 3 && !l.verb[0]; v++)
		if (strstr(file, verbs[v]))
			snprintf(l.verb, sizeof l.verb, "%s", verbs[v]);
	l.round_trip = l.kind == CCS_PF_LAT && !strcmp(l.verb, "read");
	for (size_t i = 0; i < l.nrow && !rc; i++) {
		const struct ccs_pf_row *r = &l.row[i];
		double t = l.kind == CCS_PF_BW ? (r->avg_Bps > 0 ? (double)r->bytes / r->avg_Bps : 0)
		                               : (r->t_typ_s > 0 ? r->t_typ_s : r->t_avg_s);
		if (!(t > 0) || !r->bytes) {
			rc = warn_add(&set->warn, &set->nwarn, "%s:%d:1: a zero %s; row skipped", src, r->line,
			              l.kind == CCS_PF_BW ? "bandwidth" : "latency");
			continue;
		}
		if ((rc = meas_push(set, &m)))
			break;
		snprintf(m->source, sizeof m->source, "perftest");
		snprintf(m->name, sizeof m->name, "rdma_%s_%s", l.verb[0] ? l.verb : "unknown", l.kind == CCS_PF_BW ? "bw" : "lat");
		snprintf(m->cls, sizeof m->cls, "%s", l.link[0] ? l.link : "ib");
		snprintf(m->variant, sizeof m->variant, "%s", l.round_trip ? "rtt" : "");
		snprintf(m->devices, sizeof m->devices, "%.47s", l.device);
		m->size = r->bytes;
		m->iters = r->iters;
		m->median_s = t;
		if (l.kind == CCS_PF_LAT && r->t_min_s > 0) {
			m->min_s = r->t_min_s;
			m->max_s = r->t_max_s;
		}
		m->line = r->line;
		snprintf(m->file, sizeof m->file, "%s", file);
	}
	ccs_pf_release(&l);
	return rc;
}

/* A ccsim-bench log: its records, warnings, host and versions. */
static int ingest_bench(const char *src, const char *text, size_t len, const char *file, struct ccs_meas_set *set, struct ccs_diag *d)
{
	int rc = CCS_OK;
	struct ccs_meas *m;
	struct ccs_bl_log l;
	CCS_TRY(ccs_bl_parse(src, text, len, &l, d));
	for (size_t i = 0; i < l.nrec && !rc; i++) {
		const struct ccs_bl_rec *r = &l.rec[i];
		if ((rc = meas_push(set, &m)))
			break;
		snprintf(m->source, sizeof m->source, "bench");
		snprintf(m->name, sizeof m->name, "%s", r->name);
		snprintf(m->cls, sizeof m->cls, "%s", r->cls[0] ? r->cls : "gpu");
		snprintf(m->devices, sizeof m->devices, "%s", r->devices);
		m->size = r->size;
		m->iters = r->iters;
		m->median_s = r->median_s;
		m->min_s = r->min_s;
		m->max_s = r->max_s;
		m->line = r->line;
		snprintf(m->file, sizeof m->file, "%s", file);
	}
	for (size_t i = 0; i < l.nwarn && !rc; i++)
		rc = warn_add(&set->warn, &set->nwarn, "%s", l.warn[i]);
	if (!rc && l.host[0] && !set->host[0])
		snprintf(set->host, sizeof set->host, "%s", l.host);
	if (!rc && l.versions[0] && !set->versions[0])
		snprintf(set->versions, sizeof set->versions, "%s", l.versions);
	ccs_bl_release(&l);
	return rc;
}

/* The readers by the log's kind (ccs_log_kind). */
static const struct {
	int kind;
	int (*read)(const char *src, const char *text, size_t len, const char *file, struct ccs_meas_set *set,
	            struct ccs_diag *d);
} readers[] = {
	{ CCS_LOG_NCCL, ingest_nccl },
	{ CCS_LOG_PERFTEST, ingest_perftest },
	{ CCS_LOG_BENCH, ingest_bench },
};

int ccs_ingest_text(const char *src, const char *text, size_t len, struct ccs_meas_set *set, struct ccs_diag *d)
{
	size_t n0 = set->n, w0 = set->nwarn;
	int rc = CCS_OK, kind = ccs_log_kind(text, len);
	size_t r = 0;
	while (r < sizeof readers / sizeof readers[0] && readers[r].kind != kind)
		r++;
	if (r < sizeof readers / sizeof readers[0]) {
		rc = readers[r].read(src, text, len, base_of(src), set, d);
	} else {
		const char *srcs[1] = { src };
		d->srcs = srcs;
		d->nsrcs = 1;
		rc = ccs_diag_at(d, mk(1, 1), "not a nccl-tests, perftest or ccsim-bench log");
		d->srcs = NULL;
		d->nsrcs = 0;
	}
	if (rc) {
		set->n = n0;
		while (set->nwarn > w0)
			ccs_free(set->warn[--set->nwarn]);
	}
	return rc;
}

int ccs_ingest_file(const char *path, struct ccs_meas_set *set, struct ccs_diag *d)
{
	char *text;
	size_t len;
	CCS_TRY(ccs_ingest_read_file(path, &text, &len, d));
	int rc = ccs_ingest_text(path, text, len, set, d);
	ccs_free(text);
	return rc;
}

void ccs_meas_set_release(struct ccs_meas_set *set)
{
	ccs_free(set->m);
	warn_free(set->warn, set->nwarn);
	memset(set, 0, sizeof *set);
}
