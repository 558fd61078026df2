/* calibrate/ingest.c: any log into measurements (ingest.h); nccl-tests logs are read into
** records in nt.c, perftest logs in pf.c. */
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
		/* perftest's table header, or its title ("RDMA_Write BW Test",
		 * "Send Lat Test") where it failed before the table */
		if (!strcmp(k->t[0], "#bytes") || (k->n == 3 && !strcmp(k->t[2], "Test") &&
		                                   (!strcmp(k->t[1], "BW") || !strcmp(k->t[1], "Lat")) &&
		                                   (!strncmp(k->t[0], "RDMA_", 5) || !strcmp(k->t[0], "Send"))))
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


/* What ingest_nccl kept out of log l, as warnings: zero row halves of size
 * 0 (the first at zero_line), a row cut short, halves whose numbers
 * contradict themselves, repeated rows. */
static int nccl_kept_out(const char *src, const struct ccs_nt_log *l, int zero, int zero_line, struct ccs_meas_set *set)
{
	int rc = CCS_OK;
	if (zero)
		rc = ccs_lines_warn(&set->warn, &set->nwarn, "%s:%d:1: %d row half(s) of size 0 kept out (NCCL moves nothing and "
		                    "launches nothing: the time is the host's loop)", src, zero_line, zero);
	if (!rc && l->cut[0])
		rc = ccs_lines_warn(&set->warn, &set->nwarn, "%s (the log ends inside this row: skipped)", l->cut);
	if (!rc && l->nbad)
		rc = ccs_lines_warn(&set->warn, &set->nwarn,
		                    "%s:%d:1: %d row half(s) whose numbers contradict themselves stored with a flag, kept out "
		                    "of fits and checks (the first: %s)", src,
		                    l->bad_line, l->nbad, l->bad_why);
	if (!rc && l->ndup)
		rc = ccs_lines_warn(&set->warn, &set->nwarn,
		                    "%s:%d:1: %d row(s) repeat an earlier row of their table exactly (several tasks' output "
		                    "interleaved?); kept once", src, l->dup_line, l->ndup);
	return rc;
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
	int zero = 0, zero_line = 0;
	for (size_t i = 0; i < l.nrow && !rc; i++)
		for (int h = 0; h < 2 && !rc; h++) {
			const struct ccs_nt_table *tb = &l.tab[l.row[i].tab];
			const struct ccs_nt_half *hf = &l.row[i].half[h];
			if ((!hf->valid && !hf->bad) || !(hf->time_s > 0))
				continue;
			/* NCCL returns from a call of count 0 without launching
			 * anything: the time is nccl-tests' host loop, not the
			 * collective's, and would pull a fitted latency down */
			if (!l.row[i].size) {
				zero_line = zero++ ? zero_line : l.row[i].line;
				continue;
			}
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
			if (hf->bad)   /* stored, kept out of fits and checks */
				ccs_nt_inconsistent(hf, l.row[i].size, m->flag, sizeof m->flag);
		}
	if (!rc)
		rc = nccl_kept_out(src, &l, zero, zero_line, set);
	if (!rc)
		ccs_ntinfo_evidence(src, &l.info, &set->nt);
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
	if (!rc && l.fail[0])
		rc = ccs_lines_warn(&set->warn, &set->nwarn, "%s:%d:%d: the test stopped: %s; the %zu size(s) before it kept",
		                    src, l.fail_line, l.fail_col, l.fail, l.nrow);
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
