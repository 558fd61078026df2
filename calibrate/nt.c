/* calibrate/nt.c: nccl-tests logs into records (ccs_nt_*, ingest.h): tables, rows, the
** collective and ranks each table states or its columns imply. */
#include "ingest.h"
#include "lines.h"
#include "ntinfo.h"

#include "../model/coll.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Why half h of a row of size bytes contradicts itself (ingest.h), or NULL: nccl-tests
 * marked it wrong; a time under its printing's resolution (0.01 us); an
 * algbw off size / time by more than any nccl-tests release's convention
 * (legacy releases printed half of it: outside 0.4-2.5x); a busbw that is
 * neither 0 (one rank) nor 0.5-2x algbw (every collective's factor lies
 * there).  Below 0.05 GB/s the printed digits say too little to judge. */
const char *ccs_nt_inconsistent(const struct ccs_nt_half *h, uint64_t size, char *buf, size_t n)
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
 * out of what the log implies (valid 0, bad 1), and a row equal to
 * an earlier one of its table is dropped; both counted for one warning.  1
 * when the row goes. */
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
		if (!r->half[h].valid || !ccs_nt_inconsistent(&r->half[h], r->size, why, sizeof why))
			continue;
		r->half[h].valid = 0;
		r->half[h].bad = 1;
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
	ccs_ntinfo_line(raw, line, &out->info);
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
