/* sim/cli/run/timeline.c: link utilisation over time of a simulated point (the heatmap's data) (run.h). */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- link utilisation over time (the heatmap of a simulated point) ---- */

static void tl_rates(void *ctx, const struct ccs_flows *fl, ccs_time t)
{
	struct timeline *tl = ctx;
	uint32_t n;
	const uint32_t *res = ccs_flows_touched(fl, &n);
	for (uint32_t i = 0; i < n && !tl->overflow; i++) {
		if (tl->nev == tl->cap) {
			if (tl->cap >= TL_MAX_EVENTS) {
				tl->overflow = 1;
				break;
			}
			if (ccs_grow(&tl->ev, &tl->cap, tl->nev + 1, sizeof *tl->ev)) {
				tl->overflow = tl->nomem = 1;
				break;
			}
		}
		double cap = ccs_flows_cap(fl, res[i]);
		tl->ev[tl->nev++] = (struct tl_ev){ t, res[i], cap > 0 ? (float)(100 * ccs_flows_load(fl, res[i]) / cap) : 0 };
	}
}

struct busy {
	uint32_t res;
	double bytes;
};

static int by_bytes(const void *a, const void *b)
{
	const struct busy *x = a, *y = b;
	return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

/* The nl busiest resources' bins (b, bins) as "bin link util" rows of
 * tl->path, one block per link, bins of w seconds.  0, or CCS_EIO with err. */
static int tl_write(const struct timeline *tl, struct ccs_fabric *fab, const struct busy *b, double (*bins)[TL_BINS],
                    int nl, double w, char *err, size_t errn)
{
	FILE *f = fopen(tl->path, "w");
	if (!f) {
		snprintf(err, errn, "cannot write '%.900s': %s", tl->path, strerror(errno));
		return CCS_EIO;
	}
	fprintf(f, "# %s: utilisation (%%) of the %d busiest links (bytes over capacity) in %d bins of %.4g us\n", tl->title,
	        nl, TL_BINS, w * 1e6);
	fprintf(f, "# time_us link util_pct name\n");
	for (int j = 0; j < nl; j++) {
		char name[128];
		ccs_fabric_res_name(fab, b[j].res, name, sizeof name);
		for (char *q = name; *q; q++)
			if (*q == ' ' || *q == '"')
				*q = '_';
		for (int i = 0; i < TL_BINS; i++)
			fprintf(f, "%.6g %d %.3f %s\n", (i + 0.5) * w * 1e6, j, bins[j][i], name);
		fprintf(f, "\n");
	}
	int bad = ferror(f);
	if (fclose(f) || bad) {
		snprintf(err, errn, "cannot write '%.900s': %s", tl->path, strerror(errno));
		return CCS_EIO;
	}
	return CCS_OK;
}

/* Simulate with the rates hook, then write the TL_LINKS busiest resources'
 * mean utilisation in TL_BINS equal time bins: one row per link, "bin
 * link util" triples for gnuplot's image plot. */
int ccs_timeline_run(struct timeline *tl, struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                  char *err, size_t errn)
{
	struct ccs_sim_hooks h = { .ctx = tl, .rates = tl_rates };
	tl->fab = fab;
	struct ccs_flows *fl = NULL;
	int rc = ccs_sim_run_hooked(fab, s, st, &fl, &h, err, errn);
	if (rc || tl->overflow || !fl) {
		ccs_flows_free(fl);
		ccs_free(tl->ev);
		tl->ev = NULL;
		if (!rc && tl->nomem)
			snprintf(err, errn, "out of memory");
		return rc || !tl->nomem ? rc : CCS_ENOMEM;
	}
	uint32_t nres = ccs_fabric_nres(fab);
	struct busy *b = ccs_malloc(((size_t)nres + 1) * sizeof *b);
	double (*bins)[TL_BINS] = ccs_calloc(TL_LINKS, sizeof *bins);
	int32_t *slot = ccs_malloc(((size_t)nres + 1) * sizeof *slot);
	rc = b && bins && slot ? CCS_OK : CCS_ENOMEM;
	if (rc)
		snprintf(err, errn, "out of memory");
	else {
		for (uint32_t r = 0; r < nres; r++) {
			b[r].res = r;
			double cap = ccs_flows_cap(fl, r);
			b[r].bytes = cap > 0 ? ccs_flows_stats(fl, r)->bytes / cap : 0;   /* busy seconds at full rate */
			slot[r] = -1;
		}
		qsort(b, nres, sizeof *b, by_bytes);
		int nl = 0;
		while (nl < TL_LINKS && (uint32_t)nl < nres && b[nl].bytes > 0) {
			slot[b[nl].res] = nl;
			nl++;
		}
		double T = st->time_s > 0 ? st->time_s : 1e-12, w = T / TL_BINS;
		double last_t[TL_LINKS] = { 0 }, last_u[TL_LINKS] = { 0 };
		/* utilisation is piecewise constant between events */
		for (size_t i = 0; i <= tl->nev; i++) {
			int k = i < tl->nev ? slot[tl->ev[i].res] : -1;
			double t = i < tl->nev ? ccs_time_to_s(tl->ev[i].t) : T;
			for (int j = 0; j < nl; j++) {
				if (i < tl->nev && j != k)
					continue;
				int b0 = (int)(last_t[j] / w), b1 = (int)(t / w);
				if (b1 >= TL_BINS)
					b1 = TL_BINS - 1;
				for (int bi = b0 < 0 ? 0 : b0; bi <= b1 && last_u[j] > 0; bi++) {
					double ov = fmin(t, (bi + 1) * w) - fmax(last_t[j], bi * w);
					if (ov > 0)
						bins[j][bi] += last_u[j] * ov / w;
				}
				last_t[j] = t;
				if (i < tl->nev)
					last_u[j] = tl->ev[i].util;
			}
		}
		rc = tl_write(tl, fab, b, bins, nl, w, err, errn);
	}
	ccs_free(b);
	ccs_free(bins);
	ccs_free(slot);
	ccs_flows_free(fl);
	ccs_free(tl->ev);
	tl->ev = NULL;
	return rc;
}
