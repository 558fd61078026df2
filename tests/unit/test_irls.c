/*
** tests/unit/test_irls.c: calibrate/irls.c against GSL's bisquare
** (gsl_multifit_robust) on seeded alpha-beta sweeps with outliers, scaled
** as calibrate/fit.c scales them: coefficients within 1e-9 relative and
** standard errors within 1e-7; and the cases irls.c refuses.
*/
#include "../../calibrate/irls.h"
#include "../check.h"
#include "fixture.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define uni fx_urand

/* CHECK, and on a failure the sweep it failed in */
#define CHECK_AT(cond, trial) do { int f_ = check_fail; CHECK(cond); \
	if (check_fail > f_) fprintf(stderr, "  (sweep %d; generator state %llu)\n", (trial), (unsigned long long)fx_rng); } while (0)

/* One seeded sweep: irls.c and GSL on the same rows; the worst relative
 * differences so far in wc (coefficients) and ws (standard errors). */
static void sweep(int trial, double *wc, double *ws)
{
	size_t m = 3 + (size_t)(uni() * 40);
	double x0[64], x1[64], y[64], ns[64], xs = 0;
	double a = 1e-6 * (1 + 99 * uni()), b = 1e-11 * (1 + 999 * uni());
	for (size_t i = 0; i < m; i++) {
		ns[i] = ldexp(1, 2 + (int)(uni() * 32));
		xs = fmax(xs, ns[i]);
	}
	gsl_matrix *X = gsl_matrix_alloc(m, 2), *cov = gsl_matrix_alloc(2, 2);
	gsl_vector *Y = gsl_vector_alloc(m), *c = gsl_vector_alloc(2);
	for (size_t i = 0; i < m; i++) {
		double t = (a + b * ns[i]) * (1 + 0.05 * (uni() - 0.5));
		if (uni() < 0.1)
			t *= 1 + 8 * uni();   /* a preempted point, up to 9x */
		x0[i] = 1 / t;
		x1[i] = ns[i] / xs / t;
		y[i] = 1;
		gsl_matrix_set(X, i, 0, x0[i]);
		gsl_matrix_set(X, i, 1, x1[i]);
		gsl_vector_set(Y, i, 1);
	}
	gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, m, 2);
	int gs = gsl_multifit_robust(X, Y, c, cov, w);
	struct ccs_irls o;
	int rc = ccs_irls_fit(x0, x1, y, m, &o);
	int same_sizes = 1;
	for (size_t i = 1; i < m; i++)
		same_sizes &= ns[i] == ns[0];
	if (same_sizes) {
		CHECK_AT(rc == CCS_EFIT, trial);
	} else if (gs == 0 || gs == GSL_EMAXITER) {
		CHECK_AT(rc == CCS_OK, trial);
		for (int j = 0; j < 2 && rc == CCS_OK; j++) {
			double g = gsl_vector_get(c, j), e = sqrt(gsl_matrix_get(cov, j, j));
			double dc = fabs(o.c[j] - g) / fmax(fabs(g), 1e-300);
			double ds = fabs(sqrt(o.cov[j ? 2 : 0]) - e) / fmax(e, 1e-300);
			*wc = fmax(*wc, dc);
			*ws = fmax(*ws, ds);
			CHECK_AT(dc <= 1e-9, trial);
			CHECK_AT(ds <= 1e-7, trial);
		}
		if (rc == CCS_OK)
			CHECK_AT(fabs(o.cov[1] - gsl_matrix_get(cov, 0, 1)) <=
			                 1e-7 * sqrt(fabs(gsl_matrix_get(cov, 0, 0) * gsl_matrix_get(cov, 1, 1))),
			         trial);
	}
	gsl_multifit_robust_free(w);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(Y);
	gsl_vector_free(c);
}

int main(void)
{
	gsl_set_error_handler_off();
	double worst_c = 0, worst_s = 0;
	int trials = 3000;
	for (int trial = 0; trial < trials; trial++)
		sweep(trial, &worst_c, &worst_s);
	/* refusals: too few rows, a zero column */
	double z[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 }, v[3] = { 1, 2, 3 };
	struct ccs_irls o;
	CHECK(ccs_irls_fit(v, one, one, 2, &o) == CCS_EFIT);
	CHECK(ccs_irls_fit(z, v, one, 3, &o) == CCS_EFIT);
	CHECK(ccs_irls_fit(v, v, one, 3, &o) == CCS_EFIT);
	/* an exact line comes back exactly, with zero spread */
	double ex0[6], ex1[6], ey[6];
	for (int i = 0; i < 6; i++) {
		ex0[i] = 1;
		ex1[i] = i;
		ey[i] = 3 + 0.5 * i;
	}
	CHECK(ccs_irls_fit(ex0, ex1, ey, 6, &o) == CCS_OK);
	CHECK_NEAR(o.c[0], 3, 1e-12);
	CHECK_NEAR(o.c[1], 0.5, 1e-12);
	CHECK(o.cov[0] < 1e-20 && o.cov[2] < 1e-20);
	/* the Nth allocation failing: CCS_ENOMEM, never a crash */
	ccs_alloc_fail_at(1);
	CHECK(ccs_irls_fit(ex0, ex1, ey, 6, &o) == CCS_ENOMEM);
	ccs_alloc_fail_at(0);
	printf("irls: %d sweeps against GSL, worst coefficient %.2g, worst standard error %.2g relative\n", trials,
	       worst_c, worst_s);
	return CHECK_DONE("test_irls");
}
