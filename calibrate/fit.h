/*
** calibrate/fit.h: alpha-beta fits of measured times (with irls.c, the
** one place that uses GSL: its t quantile).
**
** Model of one piece:  t(n) = alpha + beta n      n bytes, t seconds
**   alpha [s]: the fixed cost (latency, launch, synchronisation)
**   beta [s/B]: 1 / bandwidth
** Times over a sweep span six decades, so each point is weighted by 1/t_i
** (relative residuals r_i = (t_i - alpha - beta n_i) / t_i): small sizes
** fix alpha, large ones beta.  Robust least squares (Tukey bisquare,
** calibrate/irls.h, GSL's estimator): with every row scaled to target 1
** its scale stays at 1, so a point off by several times its own time (a
** preempted iteration) loses its weight (none past 4.685x) while ordinary
** noise keeps nearly all of it.  95% confidence intervals: estimate +- t(0.975, m - 2)
** x standard error from the robust covariance.  R^2 is computed on the
** times themselves, rms on the relative residuals.
**
** Piecewise: a protocol switch (LL -> LL128 -> Simple) or a cache edge
** bends the line.  ccs_fit_pieces tries every split of the sorted sizes
** into up to max_pieces runs of at least 4 points and keeps the split with
** the smallest BIC = m ln(SSR/m) + 3k ln m (k pieces; SSR of relative
** residuals), so a second piece must pay for its three parameters.
*/
#ifndef CCS_FIT_H
#define CCS_FIT_H

#include "../model/ccs.h"

#include <stddef.h>
#include <stdint.h>

struct ccs_fit {
	char cls[16], name[32];     /* what was fitted (link class; bench, perftest test or collective) */
	uint64_t lo, hi;            /* sizes this piece covers [B] */
	double alpha_s, alpha_lo, alpha_hi;
	double beta_spB, beta_lo, beta_hi;
	double r2, rms;
	int n;                      /* points */
};

#define CCS_FIT_MIN_POINTS 3
#define CCS_FIT_MIN_PIECE 4

/* One line through (n[i], t[i]), i < m (sizes need not be sorted; t > 0).
 * resid (m entries, may be NULL) gets the relative residuals.  CCS_EFIT
 * with d set when m < 3, sizes are all equal, or GSL fails. */
int ccs_fit_line(const double *n, const double *t, size_t m, struct ccs_fit *f, double *resid, struct ccs_diag *d);

/* Up to max_pieces (1..3) lines over contiguous size ranges; out holds
 * max_pieces entries, *npieces gets how many were kept (sizes sorted
 * ascending inside).  Same errors as ccs_fit_line. */
int ccs_fit_pieces(const double *n, const double *t, size_t m, int max_pieces, struct ccs_fit *out, int *npieces,
                   struct ccs_diag *d);

/* Silence GSL's default abort-on-error (call once, in main). */
void ccs_fit_init(void);

#endif
