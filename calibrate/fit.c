/* calibrate/fit.c: robust and piecewise alpha-beta fits (fit.h). */
#include "fit.h"

#include "irls.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ccs_fit_init(void)
{
	gsl_set_error_handler_off();
}

struct pt {
	double n, t;
};

static int by_size(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;
	return (x->n > y->n) - (x->n < y->n);
}

/* Fill f from the points p[0..m) (sorted or not) by bisquare regression on
 * rows scaled by 1/t; sizes divided by xs to keep the system conditioned. */
static int robust(const struct pt *p, size_t m, struct ccs_fit *f, double *resid, struct ccs_diag *d)
{
	if (m < CCS_FIT_MIN_POINTS) {
		ccs_diag_msg(d, "fit of %s/%s: %zu point%s, at least %d needed", f->cls, f->name, m, m == 1 ? "" : "s",
		             CCS_FIT_MIN_POINTS);
		return CCS_EFIT;
	}
	double xs = 0, lo = HUGE_VAL, hi = 0;
	for (size_t i = 0; i < m; i++) {
		xs = fmax(xs, p[i].n);
		lo = fmin(lo, p[i].n);
		hi = fmax(hi, p[i].n);
		if (!(p[i].t > 0) || !isfinite(p[i].t)) {
			ccs_diag_msg(d, "fit of %s/%s: a time of %g s at %.0f B", f->cls, f->name, p[i].t, p[i].n);
			return CCS_EFIT;
		}
	}
	if (!(hi > lo)) {
		ccs_diag_msg(d, "fit of %s/%s: every point has the same size (%.0f B); a line needs two sizes", f->cls,
		             f->name, lo);
		return CCS_EFIT;
	}
	double *col = ccs_malloc(3 * m * sizeof *col);
	if (!col)
		return CCS_ENOMEM;
	double *x0 = col, *x1 = col + m, *y = col + 2 * m;
	for (size_t i = 0; i < m; i++) {
		x0[i] = 1 / p[i].t;
		x1[i] = p[i].n / xs / p[i].t;
		y[i] = 1;
	}
	struct ccs_irls o;
	int rc = ccs_irls_fit(x0, x1, y, m, &o);
	ccs_free(col);
	if (rc == CCS_EFIT)
		ccs_diag_msg(d, "fit of %s/%s: the points do not determine a line (too few kept by the robust weights)",
		             f->cls, f->name);
	if (rc)
		return rc;
	double a = o.c[0], b = o.c[1] / xs;
	double sa = sqrt(fmax(o.cov[0], 0)), sb = sqrt(fmax(o.cov[2], 0)) / xs;
	double q = m > 2 ? gsl_cdf_tdist_Pinv(0.975, (double)(m - 2)) : HUGE_VAL;
	f->alpha_s = a;
	f->beta_spB = b;
	f->alpha_lo = a - q * sa;
	f->alpha_hi = a + q * sa;
	f->beta_lo = b - q * sb;
	f->beta_hi = b + q * sb;
	double mean = 0, ssr = 0, sst = 0, rr = 0;
	for (size_t i = 0; i < m; i++)
		mean += p[i].t / (double)m;
	for (size_t i = 0; i < m; i++) {
		double e = p[i].t - (a + b * p[i].n);
		ssr += e * e;
		sst += (p[i].t - mean) * (p[i].t - mean);
		rr += (e / p[i].t) * (e / p[i].t);
		if (resid)
			resid[i] = e / p[i].t;
	}
	f->r2 = sst > 0 ? 1 - ssr / sst : (ssr > 0 ? 0 : 1);
	f->rms = sqrt(rr / (double)m);
	f->n = (int)m;
	f->lo = (uint64_t)lo;
	f->hi = (uint64_t)hi;
	return CCS_OK;
}

int ccs_fit_line(const double *n, const double *t, size_t m, struct ccs_fit *f, double *resid, struct ccs_diag *d)
{
	struct pt *p = ccs_malloc(m * sizeof *p);
	if (!p)
		return CCS_ENOMEM;
	for (size_t i = 0; i < m; i++)
		p[i] = (struct pt){ n[i], t[i] };
	int rc = robust(p, m, f, resid, d);
	ccs_free(p);
	return rc;
}

/* Prefix sums of the scaled rows (a, b) = (1/t, n/(xs t)) against target 1,
 * so a piece's weighted least-squares SSR costs O(1). */
struct sums {
	double aa, ab, bb, a, b;
};

static double piece_ssr(const struct sums *S, size_t i, size_t j)
{
	double aa = S[j].aa - S[i].aa, ab = S[j].ab - S[i].ab, bb = S[j].bb - S[i].bb;
	double sa = S[j].a - S[i].a, sb = S[j].b - S[i].b, cnt = (double)(j - i);
	double det = aa * bb - ab * ab;
	if (!(det > 1e-12 * aa * bb))
		return HUGE_VAL;
	double c0 = (bb * sa - ab * sb) / det, c1 = (aa * sb - ab * sa) / det;
	double ssr = cnt - 2 * (c0 * sa + c1 * sb) + c0 * c0 * aa + 2 * c0 * c1 * ab + c1 * c1 * bb;
	return ssr > 0 ? ssr : 0;
}

int ccs_fit_pieces(const double *n, const double *t, size_t m, int max_pieces, struct ccs_fit *out, int *npieces,
                   struct ccs_diag *d)
{
	if (max_pieces < 1)
		max_pieces = 1;
	if (max_pieces > 3)
		max_pieces = 3;
	*npieces = 0;
	struct pt *p = ccs_malloc(m * sizeof *p);
	struct sums *S = ccs_calloc(m + 1, sizeof *S);
	int rc = CCS_OK;
	if (!p || !S) {
		rc = CCS_ENOMEM;
		goto out;
	}
	double xs = 0;
	for (size_t i = 0; i < m; i++) {
		p[i] = (struct pt){ n[i], t[i] };
		xs = fmax(xs, n[i]);
	}
	qsort(p, m, sizeof *p, by_size);
	for (size_t i = 0; i < m; i++) {
		double a = p[i].t > 0 ? 1 / p[i].t : 0, b = p[i].t > 0 && xs > 0 ? p[i].n / xs / p[i].t : 0;
		S[i + 1] = (struct sums){ S[i].aa + a * a, S[i].ab + a * b, S[i].bb + b * b, S[i].a + a, S[i].b + b };
	}
	/* best split by BIC; cut[] holds the piece boundaries */
	size_t best[4] = { 0, m, m, m };
	int bestk = 1;
	double ssr1 = piece_ssr(S, 0, m), lm = log((double)m);
	double bic = (double)m * log(fmax(ssr1, 1e-300) / (double)m) + 3 * lm;
	const size_t P = CCS_FIT_MIN_PIECE;
	if (max_pieces >= 2)
		for (size_t i = P; i + P <= m; i++) {
			if (p[i].n == p[i - 1].n)
				continue;   /* equal sizes stay in one piece */
			double s2 = piece_ssr(S, 0, i) + piece_ssr(S, i, m);
			double b2 = (double)m * log(fmax(s2, 1e-300) / (double)m) + 6 * lm;
			if (b2 < bic) {
				bic = b2;
				bestk = 2;
				best[1] = i;
				best[2] = m;
			}
			if (max_pieces < 3)
				continue;
			for (size_t j = i + P; j + P <= m; j++) {
				if (p[j].n == p[j - 1].n)
					continue;
				double s3 = piece_ssr(S, 0, i) + piece_ssr(S, i, j) + piece_ssr(S, j, m);
				double b3 = (double)m * log(fmax(s3, 1e-300) / (double)m) + 9 * lm;
				if (b3 < bic) {
					bic = b3;
					bestk = 3;
					best[1] = i;
					best[2] = j;
					best[3] = m;
				}
			}
		}
	best[bestk] = m;
	for (int k = 0; k < bestk; k++) {
		out[k] = out[0];    /* class and name */
		if ((rc = robust(p + best[k], best[k + 1] - best[k], &out[k], NULL, d)))
			goto out;
	}
	*npieces = bestk;
out:
	ccs_free(p);
	ccs_free(S);
	return rc;
}
