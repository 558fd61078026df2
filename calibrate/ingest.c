/* calibrate/ingest.c: nccl-tests logs into records, and any log into measurements (ingest.h);
** perftest logs are read in pf.c. */
#include "ingest.h"
#include "lines.h"
#include "ntinfo.h"

#include "../model/coll.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ccs_ingest_read_file(const char *path, char **text, size_t *len, struct ccs_diag *d)
{
	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		ccs_diag_msg(d, "%s: cannot open: %s", path, strerror(errno));
		return CCS_EIO;
	}
	int rc = ccs_stream_read(f, CCS_INGEST_MAX_FILE, text, len);
	fclose(f);
	if (rc == CCS_EIO)
		ccs_diag_msg(d, "%s: cannot read", path);
	else if (rc == CCS_EINPUT)
		ccs_diag_msg(d, "%s: larger than %u MiB; not a log (split it)", path, CCS_INGEST_MAX_FILE >> 20);
	return rc;
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
	int nhalves;                    /* time columns in the header: 2, or 1 (ccsim predict's own table) */
	int nowrong;                    /* no #wrong column after busbw (ccsim predict's own table) */
};

static int nt_header(const struct ccs_lines_toks *k, struct ntschema *s, int *cputime)
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
	s->nhalves = halves == 1 ? 1 : 2;
	/* the column after the first busbw: #wrong or error, else none */
	s->nowrong = j + 3 < k->n && strcmp(k->t[j + 3], "#wrong") && strcmp(k->t[j + 3], "error");
	s->extra = k->n - (j + (4 - s->nowrong) * s->nhalves) > 0;
	return 1;
}

static int nt_half(int line, const struct ccs_lines_toks *k, int at, int wrong, struct ccs_nt_half *h, struct ccs_diag *d)
{
	memset(h, 0, sizeof *h);
	double v[3];
	for (int q = 0; q < 3; q++) {
		if (!strcmp(k->t[at + q], "N/A"))
			return CCS_OK;
		/* at most 1e12 us (11 days) and 1e7 GB/s (10 PB/s): past that a
		 * number is not a measurement (and 1e308 GB/s is not finite in B/s) */
		if (ccs_lines_num(k->t[at + q], &v[q]) || v[q] < 0 || v[q] > (q == 0 ? 1e12 : 1e7))
			return ccs_diag_at(d, ccs_lines_mark(line, k->col[at + q]), "expected a %s, got '%s'",
			                   q == 0 ? "time in us (at most 1e12)" : "bandwidth in GB/s (at most 1e7)", k->t[at + q]);
	}
	double w;
	if (wrong && strcmp(k->t[at + 3], "N/A") && ccs_lines_num(k->t[at + 3], &w))
		return ccs_diag_at(d, ccs_lines_mark(line, k->col[at + 3]), "expected an error count, got '%s'", k->t[at + 3]);
	h->valid = 1;
	h->time_s = v[0] * 1e-6;
	h->algbw_Bps = v[1] * 1e9;
	h->busbw_Bps = v[2] * 1e9;
	h->wrong = wrong && strcmp(k->t[at + 3], "N/A") ? w : 0;
	return CCS_OK;
}

/* Why half h of a row of size bytes contradicts itself, or NULL: nccl-tests
 * marked it wrong; a time under its printing's resolution (0.01 us); an
 * algbw off size / time by more than any nccl-tests release's convention
 * (legacy releases printed half of it: outside 0.4-2.5x); a busbw that is
 * neither 0 (one rank) nor 0.5-2x algbw (every collective's factor lies
 * there).  Below 0.05 GB/s the printed digits say too little to judge. */
static const char *nt_inconsistent(const struct ccs_nt_half *h, uint64_t size, char *buf, size_t n)
{
	if (h->wrong > 0) {
		snprintf(buf, n, "nccl-tests counted %.0f wrong results", h->wrong);
		return buf;
	}
	if (h->time_s < 0.01e-6) {
		snprintf(buf, n, "a time of %.3g us, under the log's 0.01 us resolution", h->time_s * 1e6);
		return buf;
	}
	double alg = (double)size / h->time_s;
	if (size > 0 && h->algbw_Bps >= 0.05e9 && alg >= 0.05e9 && (h->algbw_Bps > 2.5 * alg || h->algbw_Bps < 0.4 * alg)) {
		snprintf(buf, n, "algbw %.4g GB/s but size / time is %.4g GB/s", h->algbw_Bps / 1e9, alg / 1e9);
		return buf;
	}
	if (h->algbw_Bps >= 0.05e9 && h->busbw_Bps > 0.01e9 &&
	    (h->busbw_Bps < 0.5 * h->algbw_Bps - 0.01e9 || h->busbw_Bps > 2 * h->algbw_Bps + 0.01e9)) {
		snprintf(buf, n, "busbw %.4g GB/s is not 0.5-2x algbw %.4g GB/s", h->busbw_Bps / 1e9, h->algbw_Bps / 1e9);
		return buf;
	}
	return NULL;
}

/* Row r (the last one parsed): halves that contradict themselves are kept
 * out, and a row equal to an earlier one of its table is dropped; both
 * counted for one warning.  1 when the row goes. */
static int nt_vet(struct ccs_nt_log *out, size_t first, struct ccs_nt_row *r)
{
	for (size_t i = first; i < out->nrow; i++) {
		const struct ccs_nt_row *q = &out->row[i];
		if (q->size == r->size && q->count == r->count && q->root == r->root && !strcmp(q->type, r->type) &&
		    !strcmp(q->redop, r->redop) && q->half[0].time_s == r->half[0].time_s &&
		    q->half[1].time_s == r->half[1].time_s && q->half[0].busbw_Bps == r->half[0].busbw_Bps &&
		    q->half[1].busbw_Bps == r->half[1].busbw_Bps && q->half[0].wrong == r->half[0].wrong &&
		    q->half[1].wrong == r->half[1].wrong) {
			if (!out->ndup++)
				out->dup_line = r->line;
			return 1;
		}
	}
	char why[160];
	for (int h = 0; h < 2; h++) {
		if (!r->half[h].valid || !nt_inconsistent(&r->half[h], r->size, why, sizeof why))
			continue;
		r->half[h].valid = 0;
		if (!out->nbad++) {
			out->bad_line = r->line;
			snprintf(out->bad_why, sizeof out->bad_why, "%s", why);
		}
	}
	return 0;
}

/* A Rank line of table tb on host h: the table's Rank lines and distinct
 * hosts (up to host_hash's size; more make the count unknown). */
static void count_host(struct ccs_nt_log *out, struct ccs_nt_table *tb, const char *h)
{
	uint64_t x = 1469598103934665603ull;
	for (const char *p = h; *p; p++)
		x = (x ^ (unsigned char)*p) * 1099511628211ull;
	tb->rank_lines++;
	for (int i = 0; i < tb->hosts && i < (int)(sizeof out->host_hash / sizeof out->host_hash[0]); i++)
		if (out->host_hash[i] == x)
			return;
	if (tb->hosts < (int)(sizeof out->host_hash / sizeof out->host_hash[0]))
		out->host_hash[tb->hosts] = x;
	tb->hosts++;
}

/* A '#' line: the table's header, the collective, the highest rank and
 * host, the average bus bandwidth. */
static int nt_comment(const struct ccs_lines_toks *k, int line, struct ntschema *sc, struct ccs_nt_log *out, struct ccs_diag *d)
{
	int cpu = 0;
	if (nt_header(k, sc, &cpu)) {
		out->cputime = cpu;
		return CCS_OK;
	}
	struct ccs_nt_table *tb = &out->tab[out->ntab - 1];
	/* "# Collective test starting: all_reduce_perf" */
	for (int i = 0; i + 1 < k->n; i++)
		if (!strcmp(k->t[i], "starting:"))
			coll_from(k->t[i + 1], tb->coll, sizeof tb->coll);
	/* "#  Rank  0 Group  0 Pid 123 on host device ..." */
	if (k->n > 2 && !strcmp(k->t[1], "Rank") && ccs_lines_is_uint(k->t[2])) {
		/* the highest rank + 1: quoted logs often keep one line */
		long rk = strtol(k->t[2], NULL, 10);
		if (rk >= tb->ranks && rk < 1000000)
			tb->ranks = (int)rk + 1;
		for (int i = 3; i + 1 < k->n; i++)
			if (!strcmp(k->t[i], "on")) {
				if (!out->host[0] && !strcmp(k->t[2], "0"))
					snprintf(out->host, sizeof out->host, "%s", k->t[i + 1]);
				count_host(out, tb, k->t[i + 1]);
				break;
			}
	}
	/* ccsim predict's own table: "# ccsim predict: AllReduce on hgx-h100:
	 * 32 ranks in 4 groups ..." (its busbw / algbw cannot tell 32 from 33) */
	if (k->n >= 8 && !strcmp(k->t[1], "ccsim") && !strcmp(k->t[2], "predict:") && !strcmp(k->t[4], "on") &&
	    ccs_lines_is_uint(k->t[6]) && !strcmp(k->t[7], "ranks")) {
		int c = ccs_coll_parse(k->t[3]);
		long rk = strtol(k->t[6], NULL, 10);
		if (c >= 0 && !tb->coll[0])
			snprintf(tb->coll, sizeof tb->coll, "%s", ccs_coll_cli[c]);
		if (rk >= 1 && rk < 1000000 && rk > tb->ranks)
			tb->ranks = (int)rk;
	}
	/* "# Avg bus bandwidth    : 745.53" */
	if (k->n >= 6 && !strcmp(k->t[1], "Avg") && !strcmp(k->t[2], "bus") && !strcmp(k->t[3], "bandwidth")) {
		double v;
		if (ccs_lines_num(k->t[5], &v) || v < 0)
			return ccs_diag_at(d, ccs_lines_mark(line, k->col[5]), "expected the average bus bandwidth in GB/s, got '%s'",
			                 k->t[5]);
		else
			out->avg_busbw_Bps = v * 1e9;
	}
	return CCS_OK;
}

/* Whether nothing but blanks follows L's current line. */
static int rest_blank(const struct ccs_lines *L)
{
	for (size_t i = L->pos; i < L->len; i++)
		if (!isspace((unsigned char)L->text[i]))
			return 0;
	return 1;
}

/* Whether k is one of nccl-tests' '#' lines without its '#' (a log pasted
 * into a Markdown page, where a line that starts with '#' becomes a heading
 * and loses it): its tokens with "#" put first into hk.  The words that open
 * those lines: nThread, Using devices, Rank N, the column header, the
 * footer's Out of bounds and Avg bus bandwidth, Collective test. */
static int dehashed(const struct ccs_lines_toks *k, struct ccs_lines_toks *hk)
{
	static const char *const first[] = { "nThread", "Using", "Rank", "size", "(B)", "Out", "Avg", "Collective",
		                             "out-of-place" };
	size_t i = 0;
	for (; i < sizeof first / sizeof first[0]; i++)
		if (!strcmp(k->t[0], first[i]))
			break;
	if (i == sizeof first / sizeof first[0] || k->n + 1 > CCS_LINES_MAXTOK ||
	    (!strcmp(k->t[0], "Rank") && (k->n < 2 || !ccs_lines_is_uint(k->t[1]))))
		return 0;
	hk->n = k->n + 1;
	hk->t[0] = (char *)"#";
	hk->col[0] = k->col[0];
	for (int j = 0; j < k->n; j++) {
		hk->t[j + 1] = k->t[j];
		hk->col[j + 1] = k->col[j];
	}
	return 1;
}

/* Whether line k begins a new run when the current table has rows
 * (struct ccs_nt_table). */
static int run_starts(const struct ccs_lines_toks *k)
{
	if (k->n >= 2 && !strcmp(k->t[0], "#") &&
	    (!strcmp(k->t[1], "nThread") || !strcmp(k->t[1], "Collective") || !strcmp(k->t[1], "Rank")))
		return 1;
	if (!strcmp(k->t[0], "nThread") || (!strcmp(k->t[0], "Collective") && k->n > 1 && !strcmp(k->t[1], "test")))
		return 1;   /* the same, its '#' lost */
	for (int i = 0; i + 2 < k->n; i++)
		if (!strcmp(k->t[i], "size") && !strcmp(k->t[i + 1], "count") && !strcmp(k->t[i + 2], "type"))
			return 1;
	if (k->t[0][0] != '#' && !ccs_lines_is_uint(k->t[0]))
		for (int i = 0; i < k->n; i++)
			if (strstr(k->t[i], "_perf"))
				return 1;
	return 0;
}

static void nt_chatter(const struct ccs_lines_toks *k, const char *raw, int line, struct ccs_nt_log *out)
{
	struct ccs_nt_table *tb = &out->tab[out->ntab - 1];
	if (!tb->cmd[0])
		for (int i = 0; i < k->n && !tb->cmd[0]; i++)
			if (strstr(k->t[i], "_perf"))
				coll_from(k->t[i], tb->cmd, sizeof tb->cmd);
	ccs_ntinfo_line(raw, line, out);
	if (!out->fail[0] && (strstr(raw, "Test NCCL failure") || strstr(raw, "Test CUDA failure") ||
	                      strstr(raw, "Test failure"))) {
		const char *p = strstr(raw, "Test ");
		snprintf(out->fail, sizeof out->fail, "%s", p);
		size_t n = strlen(out->fail);
		while (n && (out->fail[n - 1] == '\r' || out->fail[n - 1] == ' '))
			out->fail[--n] = 0;
		out->fail_line = line;
	}
}

/* Table t's collective from its columns alone (ingest.h), or coll_why. */
static void coll_from_columns(struct ccs_nt_log *l, int t)
{
	struct ccs_nt_table *tb = &l->tab[t];
	const struct ccs_nt_row *r = NULL;
	const struct ccs_nt_half *h = NULL;
	/* the row with the highest busbw: its two decimals the most precise */
	for (size_t i = 0; i < l->nrow; i++)
		for (int q = 0; q < 2; q++)
			if (l->row[i].tab == t && l->row[i].half[q].valid && l->row[i].half[q].time_s > 0 &&
			    (!h || l->row[i].half[q].busbw_Bps > h->busbw_Bps)) {
				r = &l->row[i];
				h = &r->half[q];
			}
	if (!r || h->busbw_Bps < 0.05e9) {
		snprintf(tb->coll_why, sizeof tb->coll_why, "no row fast enough (0.05 GB/s busbw) to read busbw / algbw from");
		return;
	}
	/* algbw as size / time (the printed one has two decimals too); the
	 * ratio's uncertainty: busbw's last digit, and the time's */
	double f = h->busbw_Bps * h->time_s / (double)r->size, tol = 0.005e9 / h->busbw_Bps + 0.002;
	int none = !strcmp(r->redop, "none");
	int c = -1;
	if (r->root >= 0)
		c = none ? CCS_COLL_BROADCAST : CCS_COLL_REDUCE;
	else if (f > 1 + 2 * tol)
		c = CCS_COLL_ALLREDUCE;
	else if (f < 1 - 2 * tol && r->redop[0] && !none)
		c = CCS_COLL_REDUCESCATTER;
	if (c >= 0) {
		snprintf(tb->coll, sizeof tb->coll, "%s", ccs_coll_cli[c]);
		return;
	}
	snprintf(tb->coll_why, sizeof tb->coll_why, "%s",
	         f >= 1 - 2 * tol ? "busbw equals algbw: sendrecv, or allreduce on 2 ranks"
	         : none    ? "busbw below algbw with redop none: all_gather or alltoall"
	                   : "busbw below algbw and no redop column: all_gather, reduce_scatter or alltoall");
}

/* A data row: size, count, type, redop and root as the schema has them,
 * then its out-of-place and in-place halves. */
static int nt_row(const struct ccs_lines_toks *k, int line, const struct ntschema *sc, struct ccs_nt_log *out, size_t *cap,
                  size_t first, struct ccs_diag *d)
{
	int rc = CCS_OK;
	/* the schema: the header's, else by token count (11: no redop or
	 * root, 12: no root, 13: both) */
	struct ntschema rs = *sc;
	if (!rs.have) {
		if (k->n < 11 || k->n > 13) {
			rc = ccs_diag_at(d, ccs_lines_mark(line, 1), "a data row before any nccl-tests header, with %d fields", k->n);
			return rc;
		}
		rs.redop = k->n >= 12;
		rs.root = k->n == 13;
	}
	int fixed = 3 + rs.redop + rs.root;
	int halves = k->n >= fixed + 8 ? 2 : k->n >= fixed + 4 ? 1 : 0;
	int hw = 4;
	if (rs.have && rs.nhalves == 1 && rs.nowrong) {
		/* ccsim predict's own table: time algbw busbw, then algo, proto ... */
		hw = 3;
		halves = k->n >= fixed + 3 ? 1 : 0;
	} else if (rs.have && rs.nhalves == 1 && halves) {
		halves = 1;
	}
	if (!halves || (k->n > fixed + 8 && !rs.extra) || (halves == 1 && k->n > fixed + 4 && !rs.extra)) {
		int c = k->n > fixed + 8 ? k->col[fixed + 8] : k->col[k->n - 1];
		rc = ccs_diag_at(d, ccs_lines_mark(line, c), "a row of %d fields does not fit the header (%d or %d expected)", k->n,
		                 fixed + 4, fixed + 8);
		return rc;
	}
	if (out->nrow == *cap && (rc = ccs_grow(&out->row, cap, out->nrow + 1, sizeof *out->row)))
		return rc;
	struct ccs_nt_row *r = &out->row[out->nrow];
	memset(r, 0, sizeof *r);
	r->line = line;
	r->tab = out->ntab - 1;
	r->root = -1;
	if (ccs_lines_u63(k->t[0], &r->size))
		return ccs_diag_at(d, ccs_lines_mark(line, k->col[0]), "expected a size in bytes below 2^63, got '%s'", k->t[0]);
	if (ccs_lines_u63(k->t[1], &r->count)) {
		rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[1]), "expected an element count, got '%s'", k->t[1]);
		return rc;
	}
	if (!ccs_dtype_parse(k->t[2])) {
		rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[2]), "unknown data type '%s'", k->t[2]);
		return rc;
	}
	snprintf(r->type, sizeof r->type, "%s", k->t[2]);
	int at = 3;
	if (rs.redop)
		snprintf(r->redop, sizeof r->redop, "%s", k->t[at++]);
	if (rs.root) {
		double v;
		if (ccs_lines_num(k->t[at], &v) || v < -1 || v >= 1 << 30 || v != floor(v)) {
			rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[at]), "expected a root rank, got '%s'", k->t[at]);
			return rc;
		}
		r->root = (int)v;
		at++;
	}
	int which = 0;
	if (halves == 1 && sc->inplace_col && k->col[at] >= sc->inplace_col - 2)
		which = 1;      /* only the in-place half is printed */
	for (int h = 0; h < halves && !rc; h++)
		rc = nt_half(line, k, at + hw * h, hw == 4, &r->half[which + h], d);
	if (rc)
		return rc;
	if (!nt_vet(out, first, r))
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
	struct ccs_lines *L = ccs_lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	L->strip = 1;
	const struct ccs_lines_toks *k = &L->k;
	out->ntab = 1;
	out->tab[0].line = 1;
	size_t first = 0;           /* the current table's first row */
	struct ccs_lines_toks hk;   /* a header line that lost its '#', with it put back */
	while (!rc && ccs_lines_next(L)) {
		int line = L->line;
		if (!k->n)
			continue;
		if (out->nrow > first && run_starts(k)) {
			if (out->ntab == CCS_NT_MAXTAB) {
				rc = ccs_diag_at(d, ccs_lines_mark(line, 1), "more than %d nccl-tests runs in one log", CCS_NT_MAXTAB);
				break;
			}
			memset(&out->tab[out->ntab], 0, sizeof out->tab[0]);
			out->tab[out->ntab++].line = line;
			first = out->nrow;
		}
		nt_chatter(k, L->raw, line, out);
		if (k->t[0][0] == '#') {
			rc = nt_comment(k, line, &sc, out, d);
			continue;
		}
		if (dehashed(k, &hk)) {
			rc = nt_comment(&hk, line, &sc, out, d);
			continue;
		}
		if (!ccs_lines_is_uint(k->t[0]))
			continue;       /* NCCL INFO lines and other chatter */
		struct ccs_diag d1;
		memset(&d1, 0, sizeof d1);
		d1.srcs = d->srcs;
		d1.nsrcs = d->nsrcs;
		rc = nt_row(k, line, &sc, out, &cap, first, &d1);
		/* the file's last line cut short (a truncated copy): skipped, said */
		if (rc == CCS_EINPUT && rest_blank(L) && k->n < 3 + sc.redop + sc.root + 8) {
			snprintf(out->cut, sizeof out->cut, "%.250s", d1.msg);
			rc = CCS_OK;
		} else if (rc) {
			*d = d1;
			d->srcs = srcs;
		}
	}
	if (!rc && !out->nrow) {
		if (out->cut[0])
			rc = ccs_diag_msg(d, "%s", out->cut);   /* its only row was the cut one */
		else if (out->fail[0])
			rc = ccs_diag_at(d, ccs_lines_mark(out->fail_line, 1), "no nccl-tests table: the test failed: %s", out->fail);
		else
			rc = ccs_diag_at(d, ccs_lines_mark(L->line > 0 ? L->line : 1, 1), "no nccl-tests table found");
	}
	ccs_lines_free(L, d);
	for (int t = 0; !rc && t < out->ntab; t++) {
		struct ccs_nt_table *tb = &out->tab[t];
		if (!tb->coll[0])
			memcpy(tb->coll, tb->cmd, sizeof tb->coll);   /* both 32 bytes, cmd NUL-terminated */
		if (!tb->coll[0])
			coll_from(coll_hint ? coll_hint : src, tb->coll, sizeof tb->coll);
		if (!tb->coll[0])
			coll_from_columns(out, t);
	}
	if (rc)
		ccs_nt_release(out);
	return rc;
}

void ccs_nt_release(struct ccs_nt_log *l)
{
	ccs_free(l->row);
	memset(l, 0, sizeof *l);
}

/* ---- any log into measurements ---- */

int ccs_log_kind(const char *text, size_t len)
{
	/* the first 64 KiB decide: perftest's table header, nccl-tests' size
	 * header or its rows' shape, the benches' magic line */
	size_t n = len < 65536 ? len : 65536;
	struct ccs_lines L;
	memset(&L, 0, sizeof L);
	L.text = text;
	L.len = n;
	L.strip = 1;
	int rows = 0;
	while (ccs_lines_next(&L)) {
		const struct ccs_lines_toks *k = &L.k;
		if (!k->n)
			continue;
		if (k->n >= 2 && !strcmp(k->t[0], "#") && !strcmp(k->t[1], "ccsim-bench"))
			return CCS_LOG_BENCH;
		if (k->n >= 2 && !strcmp(k->t[0], "#") && !strcmp(k->t[1], "ccsim-profiler"))
			return CCS_LOG_PROFILER;
		if (!strcmp(k->t[0], "#bytes"))
			return CCS_LOG_PERFTEST;
		for (int i = 0; i + 2 < k->n; i++)
			if (!strcmp(k->t[i], "size") && !strcmp(k->t[i + 1], "count") && !strcmp(k->t[i + 2], "type"))
				return CCS_LOG_NCCL;
		if (!strcmp(k->t[0], "#") && k->n >= 3 && (!strcmp(k->t[1], "nThread") || !strcmp(k->t[1], "Collective")))
			return CCS_LOG_NCCL;
		if (ccs_lines_is_uint(k->t[0]) && k->n >= 11 && k->n <= 13 && ccs_lines_is_uint(k->t[1]) && ccs_dtype_parse(k->t[2]))
			rows++;
	}
	return rows ? CCS_LOG_NCCL : CCS_LOG_NONE;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* busbw / algbw of table t's largest row fast enough to read it (algbw
 * from size / time: the time's 0.01 us is fine at any size; busbw as
 * printed, 0.01 GB/s: from 0.5 GB/s up its rounding is within 1%, so a
 * host-staged machine at 1.35 GB/s still says) and the ratio's tolerance;
 * 0 when no row is. */
static int busbw_ratio(const struct ccs_nt_log *l, int t, double *f, double *tol)
{
	for (size_t i = l->nrow; i-- > 0;) {
		const struct ccs_nt_half *h = &l->row[i].half[0];
		if (l->row[i].tab != t || !h->valid || !(h->time_s > 0) || !(h->busbw_Bps >= 0.5e9))
			continue;
		*f = h->busbw_Bps * h->time_s / (double)l->row[i].size;
		*tol = 0.005e9 / h->busbw_Bps + 0.002;
		return 1;
	}
	return 0;
}

/* A log without its Rank lines: the rank count from busbw / algbw
 * (nccl-tests' factor, 2(n-1)/n or (n-1)/n); 0 when it does not say
 * (factor 1, no row fast enough, or neighbouring counts fit as well). */
static int ranks_from_busbw(const struct ccs_nt_log *l, int t)
{
	int coll = ccs_coll_parse(l->tab[t].coll);
	double f, tol, n;
	if (!busbw_ratio(l, t, &f, &tol))
		return 0;
	if (coll == CCS_COLL_ALLREDUCE)
		n = f < 1.999 ? 2 / (2 - f) : 0;
	else if (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER || coll == CCS_COLL_ALLTOALL)
		n = f < 0.999 ? 1 / (1 - f) : 0;
	else
		return 0;
	int r = (int)lround(n);
	/* the rank count whose factor matches within the rounding, and no
	 * neighbour's does */
	if (r >= 2 && fabs(ccs_busbw_factor(coll, r) / f - 1) < tol && fabs(ccs_busbw_factor(coll, r + 1) / f - 1) >= tol &&
	    (r == 2 || fabs(ccs_busbw_factor(coll, r - 1) / f - 1) >= tol))
		return r;
	return 0;
}

/* -c: the collective of a table whose log does not say; one that says
 * another (its test name, its file name, its busbw / algbw) is refused. */
static int told_coll(const char *src, int line, struct ccs_nt_table *tb, const struct ccs_meas_set *set,
                     struct ccs_diag *d)
{
	if (!set->told.coll)
		return CCS_OK;
	int c = set->told.coll - 1;
	if (tb->coll[0] && ccs_coll_parse(tb->coll) != c)
		return ccs_diag_msg(d, "%s:%d:1: the log says %s (its test name, file name or busbw / algbw), -c says %s",
		                    src, line, tb->coll, ccs_coll_cli[c]);
	snprintf(tb->coll, sizeof tb->coll, "%s", ccs_coll_cli[c]);
	return CCS_OK;
}

/* -n, --ppn: the ranks and nodes of table t; a log that shows more ranks,
 * whose busbw / algbw says another count or is not the factor of what -c
 * and -n say, or whose Rank lines name other hosts is refused. */
static int told_shape(const char *src, int line, struct ccs_nt_log *l, int t, int rr,
                      const struct ccs_meas_set *set, struct ccs_diag *d)
{
	struct ccs_nt_table *tb = &l->tab[t];
	int n = set->told.ranks, ppn = set->told.ppn;
	if (n) {
		if (tb->ranks > n || (rr && rr != n))
			return ccs_diag_msg(d, "%s:%d:1: the log shows %d ranks (%s), -n says %d", src, line,
			                    rr ? rr : tb->ranks, rr ? "its busbw / algbw" : "its Rank lines", n);
		tb->ranks = n;
	}
	/* what was said must give the factor nccl-tests printed */
	double f, tol;
	int c = ccs_coll_parse(tb->coll);
	if ((set->told.coll || n) && tb->ranks >= 2 && c >= 0 && busbw_ratio(l, t, &f, &tol) &&
	    fabs(ccs_busbw_factor(c, tb->ranks) / f - 1) >= tol)
		return ccs_diag_msg(d, "%s:%d:1: the log's busbw / algbw is %.3f; %s on %d ranks prints %.3f: check -c and -n",
		                    src, line, f, tb->coll, tb->ranks, ccs_busbw_factor(c, tb->ranks));
	if (ppn && tb->ranks) {
		if (tb->ranks % ppn)
			return ccs_diag_msg(d, "%s:%d:1: %d ranks do not fill nodes of --ppn %d evenly", src, line, tb->ranks, ppn);
		if (tb->nodes && tb->nodes != tb->ranks / ppn)
			return ccs_diag_msg(d, "%s:%d:1: the log's Rank lines name %d hosts for %d ranks, --ppn %d says %d", src,
			                    line, tb->nodes, tb->ranks, ppn, tb->ranks / ppn);
		tb->nodes = tb->ranks / ppn;
	}
	return CCS_OK;
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
	for (int t = 0; t < l.ntab; t++) {
		struct ccs_nt_table *tb = &l.tab[t];
		int first = 0;
		for (size_t i = 0; i < l.nrow && !first; i++)
			if (l.row[i].tab == t)
				first = l.row[i].line;
		if (!first)
			continue;       /* a run without rows (its header only) */
		if ((rc = told_coll(src, first, tb, set, d)))
			break;
		if (!tb->coll[0]) {
			rc = ccs_diag_msg(d, "%s:%d:1: which collective? the log does not say and %s: say it with -c (or name "
			                     "the file after the test, all_reduce_perf.log ...)%s%s", src, first, tb->coll_why,
			                  l.cut[0] ? "; also " : "", l.cut);
			break;
		}
		/* busbw / algbw says how many ranks ran; a quote that kept only
		 * some of the "#  Rank" lines says fewer */
		int rr = ranks_from_busbw(&l, t);
		if (rr > tb->ranks)
			tb->ranks = rr;
		/* the nodes, where every rank's line is there to say its host */
		if (tb->rank_lines == tb->ranks && tb->hosts <= (int)(sizeof l.host_hash / sizeof l.host_hash[0]))
			tb->nodes = tb->hosts;
		if ((rc = told_shape(src, first, &l, t, rr, set, d)))
			break;
	}
	if (rc) {
		ccs_nt_release(&l);
		return rc;
	}
	for (size_t i = 0; i < l.nrow && !rc; i++)
		for (int h = 0; h < 2 && !rc; h++) {
			const struct ccs_nt_table *tb = &l.tab[l.row[i].tab];
			const struct ccs_nt_half *hf = &l.row[i].half[h];
			if (!hf->valid || !(hf->time_s > 0))
				continue;
			if ((rc = meas_push(set, &m)))
				break;
			snprintf(m->source, sizeof m->source, "nccl-tests");
			snprintf(m->name, sizeof m->name, "%s", tb->coll);
			snprintf(m->cls, sizeof m->cls, "nccl");
			snprintf(m->variant, sizeof m->variant, "%s %s", h ? "ip" : "oop", l.row[i].type);
			m->size = l.row[i].size;
			m->ranks = tb->ranks;
			m->nodes = tb->nodes;
			m->median_s = hf->time_s;
			m->busbw_Bps = hf->busbw_Bps;
			m->line = l.row[i].line;
			snprintf(m->file, sizeof m->file, "%s", file);
		}
	if (!rc && l.cut[0])
		rc = ccs_lines_warn(&set->warn, &set->nwarn, "%s (the log ends inside this row: skipped)", l.cut);
	if (!rc && l.nbad)
		rc = ccs_lines_warn(&set->warn, &set->nwarn,
		                    "%s:%d:1: %d row half(s) whose numbers contradict themselves kept out (the first: %s)", src,
		                    l.bad_line, l.nbad, l.bad_why);
	if (!rc && l.ndup)
		rc = ccs_lines_warn(&set->warn, &set->nwarn,
		                    "%s:%d:1: %d row(s) repeat an earlier row of their table exactly (several tasks' output "
		                    "interleaved?); kept once", src, l.dup_line, l.ndup);
	if (!rc)
		ccs_ntinfo_evidence(src, &l, set);
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
			rc = ccs_lines_warn(&set->warn, &set->nwarn, "%s:%d:1: a zero %s; row skipped", src, r->line,
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

/* A record log's skipped-line warnings and host into set (the first host
 * any log named wins). */
static int adopt(struct ccs_meas_set *set, char *const *warn, size_t nwarn, const char *host)
{
	for (size_t i = 0; i < nwarn; i++)
		CCS_TRY(ccs_lines_warn(&set->warn, &set->nwarn, "%s", warn[i]));
	if (host[0] && !set->host[0])
		snprintf(set->host, sizeof set->host, "%s", host);
	return CCS_OK;
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
	if (!rc)
		rc = adopt(set, l.warn, l.nwarn, l.host);
	if (!rc && l.versions[0] && !set->versions[0])
		snprintf(set->versions, sizeof set->versions, "%s", l.versions);
	ccs_bl_release(&l);
	return rc;
}

int ccs_meas_is_coll(const struct ccs_meas *m)
{
	return !strcmp(m->source, "nccl-tests") || !strcmp(m->source, "profiler");
}

/* A ccsim-profiler log: one measurement per (collective, type, placement,
 * ranks, size), its records' median, fastest and slowest times. */
static int ingest_profiler(const char *src, const char *text, size_t len, const char *file,
                           struct ccs_meas_set *set, struct ccs_diag *d)
{
	struct ccs_pl_log l;
	CCS_TRY(ccs_pl_parse(src, text, len, &l, d));
	ccs_pl_sort(&l);
	int rc = CCS_OK;
	for (size_t i = 0, j; i < l.nrec && !rc; i = j) {
		for (j = i + 1; j < l.nrec && !ccs_pl_series(&l.rec[i], &l.rec[j]); j++)
			;
		const struct ccs_pl_rec *r = &l.rec[i];
		size_t n = j - i;
		struct ccs_meas *m;
		if ((rc = meas_push(set, &m)))
			break;
		snprintf(m->source, sizeof m->source, "profiler");
		snprintf(m->name, sizeof m->name, "%s", ccs_coll_cli[r->coll]);
		snprintf(m->cls, sizeof m->cls, "nccl");
		snprintf(m->variant, sizeof m->variant, "%s %s", r->inplace ? "ip" : "oop", r->type);
		m->size = r->size;
		m->iters = n;
		m->ranks = r->ranks;
		m->median_s = n % 2 ? l.rec[i + n / 2].time_s : (l.rec[i + n / 2 - 1].time_s + l.rec[i + n / 2].time_s) / 2;
		m->min_s = l.rec[i].time_s;
		m->max_s = l.rec[j - 1].time_s;
		double f = ccs_busbw_factor(r->coll, r->ranks);
		m->busbw_Bps = m->median_s > 0 ? (double)r->size / m->median_s * f : (double)NAN;
		m->line = r->line;
		snprintf(m->file, sizeof m->file, "%s", file);
	}
	if (!rc)
		rc = adopt(set, l.warn, l.nwarn, l.host);
	ccs_pl_release(&l);
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
	{ CCS_LOG_PROFILER, ingest_profiler },
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
		rc = ccs_diag_at(d, ccs_lines_mark(1, 1), "not a nccl-tests, perftest, ccsim-bench or ccsim-profiler log");
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
	ccs_lines_warn_free(set->warn, set->nwarn);
	memset(set, 0, sizeof *set);
}
