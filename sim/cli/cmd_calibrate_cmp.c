/* sim/cli/cmd_calibrate_cmp.c: `ccsim calibrate diff` and `check`: one run
** against another, per size and per fit, judged by a tolerance and
** written as JUnit XML for CI (runs.h). */
#define _DEFAULT_SOURCE
#include "junit.h"
#include "runs.h"

#include "../../calibrate/calib.h"
#include "../../calibrate/store.h"
#include "../../model/ccs.h"
#include "../../model/coll.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


struct cmp {
	char cls[32], what[96], size[24];
	double base, cur;           /* the compared quantity */
	int higher_better;
	int verdict;                /* 0 ok, 1 regression, -1 better */
	char unit[8];               /* "GB/s" or "us" */
};

struct cmps {
	struct cmp *v;
	size_t n, cap;
};

static int cmp_push(struct cmps *c, struct cmp *x)
{
	if (ccs_grow(&c->v, &c->cap, c->n + 1, sizeof *c->v))
		return -1;
	c->v[c->n++] = *x;
	return 0;
}

/* verdict of cur against base beyond tol; sig: the fits' intervals do not
 * overlap (1 for raw rows, which have none) */
static int judge(double base, double cur, int higher_better, double tol, int sig)
{
	double ch = cur / base - 1;
	if (!higher_better)
		ch = -ch;
	if (ch < -tol && sig)
		return 1;
	if (ch > tol && sig)
		return -1;
	return 0;
}

/* Whether a and b are rows of one nccl-tests series (collective, variant,
 * ranks). */
static int same_series(const struct ccs_meas *a, const struct ccs_meas *b)
{
	return ccs_meas_is_coll(a) && ccs_meas_is_coll(b) && !strcmp(a->name, b->name) &&
	       !strcmp(a->variant, b->variant) && a->ranks == b->ranks;
}

/* The baseline's time at row b's size: its own row at that size, or
 * interpolated between the two rows around it, log-linear in size (busbw
 * changes smoothly with size between a sweep's points); 0 when the
 * baseline has no rows around it.  *interp tells which. */
static double base_time_at(const struct ccs_meas *a, size_t na, const struct ccs_meas *b, int *interp, double *rlo,
                           double *rhi)
{
	const struct ccs_meas *lo = NULL, *hi = NULL;
	*interp = 0;
	for (size_t i = 0; i < na; i++) {
		if (!same_series(&a[i], b) || !(a[i].median_s > 0))
			continue;
		if (a[i].size == b->size)
			return a[i].median_s;
		if (a[i].size < b->size && (!lo || a[i].size > lo->size))
			lo = &a[i];
		if (a[i].size > b->size && (!hi || a[i].size < hi->size))
			hi = &a[i];
	}
	if (!lo || !hi)
		return 0;
	/* rate = size / time, interpolated in log size and log rate */
	double x = log((double)b->size), x0 = log((double)lo->size), x1 = log((double)hi->size);
	double r0 = log((double)lo->size / lo->median_s), r1 = log((double)hi->size / hi->median_s);
	double r = r0 + (r1 - r0) * (x - x0) / (x1 - x0);
	*interp = 1;
	*rlo = exp(r0);
	*rhi = exp(r1);
	return (double)b->size / exp(r);
}

/* nccl-tests rows: busbw per collective, variant, ranks and size, the
 * baseline interpolated where its sweep has other sizes. */
static int compare_rows(const struct ccs_meas *a, size_t na, const struct ccs_meas *b, size_t nb, double tol,
                        struct cmps *out)
{
	for (size_t j = 0; j < nb; j++) {
		if (!ccs_meas_is_coll(&b[j]) || !(b[j].median_s > 0))
			continue;
		int interp;
		double rlo = 0, rhi = 0;
		double ta = base_time_at(a, na, &b[j], &interp, &rlo, &rhi);
		if (!(ta > 0))
			continue;
		{
			struct cmp c;
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "%s", b[j].source);
			if (b[j].ranks)
				snprintf(c.what, sizeof c.what, "%s/%d %s busbw", b[j].name, b[j].ranks, b[j].variant);
			else
				snprintf(c.what, sizeof c.what, "%s %s busbw", b[j].name, b[j].variant);
			ccs_fmt_size((double)b[j].size, c.size, sizeof c.size);
			/* from the time (printed to 0.01 us), not the printed busbw
			 * (0.01 GB/s, nothing at small sizes): busbw = S / t x f */
			int coll = ccs_coll_parse(b[j].name);
			double fct = b[j].ranks && coll >= 0 ? ccs_busbw_factor(coll, b[j].ranks) : 1;
			if (!b[j].ranks || coll < 0)
				memcpy(c.what + strlen(c.what) - 5, "algbw", 5);
			if (interp && strlen(c.what) + 11 < sizeof c.what)
				strcat(c.what, " (interp.)");
			c.base = (double)b[j].size / ta * fct / 1e9;
			c.cur = (double)b[j].size / b[j].median_s * fct / 1e9;
			snprintf(c.unit, sizeof c.unit, "GB/s");
			c.higher_better = 1;
			c.verdict = c.base > 0 && c.cur > 0 ? judge(c.base, c.cur, 1, tol, 1) : 0;
			/* between two sizes of the baseline a protocol or algorithm
			 * switch can bend the curve: a regression is a rate below
			 * both neighbours', an improvement one above both */
			if (interp && c.verdict) {
				double r = (double)b[j].size / b[j].median_s;
				double lo = rlo < rhi ? rlo : rhi, hi = rlo < rhi ? rhi : rlo;
				c.verdict = c.verdict > 0 ? judge(lo, r, 1, tol, 1) > 0 : -(judge(hi, r, 1, tol, 1) < 0);
			}
			if (cmp_push(out, &c))
				return -1;
		}
	}
	return 0;
}

/* The run being judged, read and fitted once however many baselines are
 * tried: its measurements, its fits, and with a topology its calibration
 * (cal_ok: derived, nothing refused). */
struct newest {
	const struct ccs_meas *m;
	size_t n;
	struct ccs_fit *fit;
	size_t nfit;
	struct ccs_topo *t;
	struct ccs_calib cal;
	int cal_ok;
};

static int newest_init(struct newest *w, struct ccs_topo *t, const struct ccs_meas *m, size_t n)
{
	memset(w, 0, sizeof *w);
	w->m = m;
	w->n = n;
	w->t = t;
	if (t) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		w->cal_ok = !ccs_calib_derive(t, m, n, &w->cal, &d);
	}
	return ccs_calib_fits(m, n, &w->fit, &w->nfit);
}

static void newest_release(struct newest *w)
{
	ccs_free(w->fit);
	ccs_calib_release(&w->cal);
}

/* With a topology: each link type's fitted efficiency in both runs
 * (ccs_calib_derive), where both fitted it and neither fit was refused. */
static int compare_effs(const struct newest *w, const struct ccs_meas *a, size_t na, double tol, struct cmps *out)
{
	if (!w->t || !w->cal_ok)
		return 0;
	struct ccs_calib ca;
	struct ccs_diag d;
	memset(&ca, 0, sizeof ca);
	memset(&d, 0, sizeof d);
	int ra = ccs_calib_derive(w->t, a, na, &ca, &d);
	const struct ccs_calib *cb = &w->cal;
	int rc = 0;
	for (int k = 0; k < CCS_LINK_NTYPES && !ra && !rc; k++) {
		if (!ca.eff_from[k] || !cb->eff_from[k] || !(ca.eff[k] > 0) || !(cb->eff[k] > 0))
			continue;
		struct cmp c;
		memset(&c, 0, sizeof c);
		snprintf(c.cls, sizeof c.cls, "%s", ccs_link_type_name[k]);
		snprintf(c.what, sizeof c.what, "%s efficiency (fit)", ccs_link_type_name[k]);
		snprintf(c.size, sizeof c.size, "-");
		c.base = ca.eff[k];
		c.cur = cb->eff[k];
		c.higher_better = 1;
		c.verdict = judge(c.base, c.cur, 1, tol, 1);
		rc = cmp_push(out, &c);
	}
	ccs_calib_release(&ca);
	return rc;
}

static int compare(const struct newest *w, const struct ccs_meas *a, size_t na, double tol, struct cmps *out)
{
	if (compare_rows(a, na, w->m, w->n, tol, out) || compare_effs(w, a, na, tol, out))
		return -1;
	/* fits per link class: bandwidth of the largest sizes' piece, alpha of
	 * the smallest sizes' piece */
	struct ccs_fit *fa = NULL;
	const struct ccs_fit *fb = w->fit;
	size_t nfa = 0, nfb = w->nfit;
	if (ccs_calib_fits(a, na, &fa, &nfa)) {
		ccs_free(fa);
		return -1;
	}
	int rc = 0;
	for (size_t j = 0; j < nfb && !rc; j++) {
		const struct ccs_fit *y = &fb[j];
		int first = j == 0 || strcmp(fb[j - 1].cls, y->cls) || strcmp(fb[j - 1].name, y->name);
		int last = j + 1 == nfb || strcmp(fb[j + 1].cls, y->cls) || strcmp(fb[j + 1].name, y->name);
		const struct ccs_fit *xf = NULL, *xl = NULL;
		for (size_t i = 0; i < nfa; i++)
			if (!strcmp(fa[i].cls, y->cls) && !strcmp(fa[i].name, y->name)) {
				if (!xf)
					xf = &fa[i];
				xl = &fa[i];
			}
		if (!xf)
			continue;
		struct cmp c;
		if (last && xl->beta_spB > 0 && y->beta_spB > 0 && strcmp(y->cls, "nccl")) {
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "%s", y->cls);
			snprintf(c.what, sizeof c.what, "%s bandwidth (fit)", y->name);
			ccs_fmt_size((double)y->hi, c.size, sizeof c.size);
			c.base = 1 / xl->beta_spB / 1e9;
			c.cur = 1 / y->beta_spB / 1e9;
			snprintf(c.unit, sizeof c.unit, "GB/s");
			c.higher_better = 1;
			/* significant when the slopes' intervals are apart */
			int sig = y->beta_lo > xl->beta_hi || y->beta_hi < xl->beta_lo;
			c.verdict = judge(c.base, c.cur, 1, tol, sig);
			rc = cmp_push(out, &c);
		}
		if (!rc && first && xf->alpha_s > 0 && y->alpha_s > 0 && strcmp(y->cls, "nccl")) {
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "%s", y->cls);
			snprintf(c.what, sizeof c.what, "%s alpha (fit)", y->name);
			ccs_fmt_size((double)y->lo, c.size, sizeof c.size);
			c.base = xf->alpha_s * 1e6;
			c.cur = y->alpha_s * 1e6;
			snprintf(c.unit, sizeof c.unit, "us");
			int sig = y->alpha_lo > xf->alpha_hi || y->alpha_hi < xf->alpha_lo;
			c.verdict = judge(c.base, c.cur, 0, tol, sig);
			rc = cmp_push(out, &c);
		}
	}
	ccs_free(fa);
	return rc;
}

/* The JUnit file: one test case per comparison, or, with err, one test case
 * in error saying why nothing was compared (base may then be NULL). */
static int write_junit(const char *path, const struct cmps *c, const struct ccs_run_info *base,
                       const struct ccs_run_info *cur, double tol, const char *err)
{
	size_t n = err ? 1 : c->n;
	struct ccs_junit_case *jc = ccs_calloc(n + 1, sizeof *jc);
	char (*txt)[2][256] = ccs_calloc(n + 1, sizeof *txt);   /* per case: its name and message */
	char suite[128];
	int rc = -1;
	if (!jc || !txt)
		goto out;
	if (base)
		snprintf(suite, sizeof suite, "ccsim calibrate check: run %lld vs run %lld", (long long)cur->id,
		         (long long)base->id);
	else
		snprintf(suite, sizeof suite, "ccsim calibrate check: run %lld", (long long)cur->id);
	if (err)
		jc[0] = (struct ccs_junit_case){ "calibrate", "baseline comparison", "error", "nothing compared", err };
	for (size_t i = 0; !err && i < c->n; i++) {
		const struct cmp *x = &c->v[i];
		snprintf(txt[i][0], sizeof txt[i][0], "%s @ %s", x->what, x->size);
		snprintf(txt[i][1], sizeof txt[i][1], "%.4g %s, baseline %.4g %s (%+.1f%%, tolerance %.1f%%)", x->cur, x->unit,
		         x->base, x->unit, 100 * (x->cur / x->base - 1), 100 * tol);
		jc[i] = (struct ccs_junit_case){ x->cls, txt[i][0], x->verdict == 1 ? "failure" : NULL, "regression", txt[i][1] };
	}
	rc = ccs_junit_write(path, ME " check", suite, cur->created, cur->host, jc, n);
out:
	ccs_free(jc);
	ccs_free(txt);
	return rc;
}

/* Which two runs: check's newest (or --run) and its baseline (a run, or the
 * host's previous one), or diff's two named; 0, or -1 after a message. */
static int pick_runs(const struct ccs_runs_opts *o, int check, const struct ccs_run_info *runs, size_t nr, long *ia,
                     long *ib)
{
	if (check) {
		*ib = ccs_runs_find(runs, nr, o->run, NULL);
		if (*ib < 0)
			return -1;
		if (!strcmp(o->baseline, "previous")) {
			*ia = -2;       /* the newest earlier run of the host with something in common */
		} else {
			long long id;
			if (ccs_runs_parse_arg(o->baseline, &id) || (*ia = ccs_runs_find(runs, nr, id, "--baseline")) < 0)
				return -1;
		}
	} else {
		long long x, y;
		if (ccs_runs_parse_arg(o->pos[0], &x) || ccs_runs_parse_arg(o->pos[1], &y))
			return -1;
		if ((*ia = ccs_runs_find(runs, nr, x, NULL)) < 0 || (*ib = ccs_runs_find(runs, nr, y, NULL)) < 0)
			return -1;
	}
	return 0;
}

/* The comparisons as a table; how many are regressions. */
static size_t print_cmps(const struct cmps *c, double tol)
{
	printf("%-10s %-36s %10s %12s %12s %9s  %s\n", "class", "what", "size", "baseline", "newest", "change",
	       "verdict");
	size_t bad = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp *x = &c->v[i];
		char b1[32], b2[32];
		snprintf(b1, sizeof b1, "%.4g %s", x->base, x->unit);
		snprintf(b2, sizeof b2, "%.4g %s", x->cur, x->unit);
		bad += x->verdict == 1;
		printf("%-10s %-36s %10s %12s %12s %+8.1f%%  %s\n", x->cls, x->what, x->size, b1, b2,
		       100 * (x->cur / x->base - 1), x->verdict == 1 ? "REGRESSION" : x->verdict < 0 ? "better" : "ok");
	}
	printf("%zu compared, %zu regression%s beyond %.1f%%\n", c->n, bad, bad == 1 ? "" : "s", 100 * tol);
	return bad;
}

/* The baseline of run ib compared into c: run *ia, or (*ia == -2) the
 * newest earlier run of the same host that has something in common with
 * it; its measurements in *ma.  why says what left nothing to compare
 * ("" when c holds comparisons); -1 on a store or memory failure. */
static int find_baseline(struct ccs_store *s, const struct ccs_run_info *runs, long ib, long *ia, const struct newest *w,
                         double tol, struct cmps *c, struct ccs_meas **ma, size_t *na, char *why, size_t whyn)
{
	int searched = *ia == -2, any = 0;
	why[0] = 0;
	for (long i = searched ? ib - 1 : *ia; i >= 0; i = searched ? i - 1 : -1) {
		if (searched && strcmp(runs[i].host, runs[ib].host))
			continue;
		any = 1;
		ccs_free(*ma);
		*ma = NULL;
		c->n = 0;
		if (ccs_runs_read_meas(s, runs[i].id, 0, ma, na) || compare(w, *ma, *na, tol, c))
			return -1;
		*ia = i;
		if (c->n)
			break;
	}
	if (searched && !any)
		snprintf(why, whyn, "run %lld is the first of host %s; no previous run to compare with", (long long)runs[ib].id,
		         runs[ib].host);
	else if (!c->n && searched)
		snprintf(why, whyn, "no earlier run of host %s has anything in common with run %lld (no shared collective and "
		         "sizes, no shared fit)", runs[ib].host, (long long)runs[ib].id);
	else if (!c->n)
		snprintf(why, whyn, "the two runs have nothing in common to compare (no shared collective and sizes, no shared "
		         "fit)");
	return 0;
}

int ccs_cmd_calibrate_cmp(const struct ccs_runs_opts *o, int check)
{
	const char *sub = check ? "check" : "diff";
	if (check && !o->baseline) {
		fprintf(stderr, "%s check: '--baseline RUN|previous' is required\n", ME);
		return 2;
	}
	if (!check && o->npos != 2) {
		fprintf(stderr, "%s diff: name two runs (ccsim calibrate diff 3 5)\n", ME);
		return 2;
	}
	struct ccs_store *s;
	if (ccs_runs_open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	struct ccs_meas *ma = NULL, *mb = NULL;
	size_t na = 0, nb = 0;
	struct cmps c;
	memset(&c, 0, sizeof c);
	struct ccs_topo *t = NULL;
	struct newest nw;
	memset(&nw, 0, sizeof nw);
	int rc = 1;
	char why[400] = "";
	if (ccs_runs_load(s, &runs, &nr))
		goto out;
	long ia, ib;
	if (pick_runs(o, check, runs, nr, &ia, &ib))
		goto out;
	if (ccs_runs_read_meas(s, runs[ib].id, 0, &mb, &nb))
		goto out;
	/* a topology (-t, or the newest run's) adds the fitted efficiencies */
	if (ccs_runs_topology(o, &runs[ib], &t, NULL))
		goto out;
	int searched = ia == -2;
	if (newest_init(&nw, t, mb, nb) || find_baseline(s, runs, ib, &ia, &nw, o->tol, &c, &ma, &na, why, sizeof why)) {
		fprintf(stderr, "%s %s: cannot compare the runs (out of memory, or the database failed)\n", ME, sub);
		goto out;
	}
	if (why[0] && check && searched && ia == -2) {
		/* the host's first run (the README's ingest && check on a first
		 * day): nothing to compare yet, which is no regression; the next
		 * check compares with it */
		printf("run %lld is the first of host %s: nothing to compare with yet; the next 'check --baseline "
		       "previous' compares with it\n", (long long)runs[ib].id, runs[ib].host);
		struct ccs_junit_case jc = { "calibrate", "baseline comparison (the host's first run)", NULL, NULL, NULL };
		rc = o->junit && ccs_junit_write(o->junit, ME " check", "ccsim calibrate check", runs[ib].created,
		                                 runs[ib].host, &jc, 1) ? 1 : 0;
		goto out;
	}
	if (why[0]) {
		fprintf(stderr, "%s %s: %s\n", ME, sub, why);
		if (check && o->junit)
			write_junit(o->junit, &c, !searched && ia >= 0 ? &runs[ia] : NULL, &runs[ib], o->tol, why);
		goto out;
	}
	printf("run %lld (%s, %s) against %s run %lld (%s, %s), tolerance %.1f%%\n", (long long)runs[ib].id,
	       runs[ib].host, runs[ib].created, check ? "baseline" : "", (long long)runs[ia].id, runs[ia].host,
	       runs[ia].created, 100 * o->tol);
	size_t bad = print_cmps(&c, o->tol);
	if (ccs_args_flush())
		goto out;
	if (check && o->junit && write_junit(o->junit, &c, &runs[ia], &runs[ib], o->tol, NULL))
		goto out;
	rc = check && bad ? 1 : 0;
out:
	newest_release(&nw);
	ccs_topo_free(t);
	ccs_free(c.v);
	ccs_free(ma);
	ccs_free(mb);
	ccs_free(runs);
	ccs_store_close(s);
	return rc;
}

