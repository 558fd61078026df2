/*
** calibrate/irls.h: Tukey-bisquare robust regression of y on two columns,
** by iteratively reweighted least squares.  Written here rather than taken
** from GSL (gsl_multifit_robust) because GSL 2.7's SVD allocates inside
** itself without checking and crashes when that allocation fails
** (tests/alloc.sh); every buffer here comes from ccsim's allocator.
**
** The estimator is GSL 2.7's bisquare (the same numbers to 1e-12; checked
** against it by tests/unit/test_irls.c), after DuMouchel and O'Brien,
** "Integrating a robust option into a multiple regression computing
** environment" (1989) and Street, Carroll and Ruppert (1988), p = 2:
**   c = the OLS fit; h_i the leverages (diagonal of X (X'X)^-1 X', at most
**   0.9999), f_i = 1/sqrt(1 - h_i); s_ols = |y - X c| / sqrt(n - p);
**   floor = 1e-6 sd(y), or 1 when y is constant (as it is for ccsim's rows,
**   all scaled to y = 1: the floor then holds the scale at 1, so only a
**   residual near K = 4.685 times the target loses weight).  Repeat:
**     r = y - X c;  s = MAD(r f) / 0.6745, the median of |r_i f_i| over all
**       but the p - 1 smallest;
**     u_i = r_i f_i / (K max(s, floor));  w_i = (1 - u_i^2)^2 for |u_i| < 1,
**       else 0;  c = the least-squares fit with weights w;
**   until every |c_j - c_j,prev| <= sqrt(eps) max(|c_j|, |c_j,prev|), at
**   most CCS_IRLS_MAXITER rounds.
** Covariance: s = MAD(r) / 0.6745 at the final c; u_i = r_i f_i / (K s);
** psi(u) = u (1 - u^2)^2 and psi'(u) = (1 - u^2)(1 - 5 u^2) inside |u| < 1;
**   m1 = mean psi'(u_i),  m2 = sum (1 - h_i) psi(u_i)^2 / (n - p),
**   s_rob = (1 + (p / n)(1 - m1) / m1) sqrt(m2) K s / m1,
**   sigma = max(s_rob, sqrt((s_ols^2 p^2 + s_rob^2 n) / (p^2 + n))),
**   cov = sigma^2 (X'X)^-1 (the unweighted X).
** Least squares by modified Gram-Schmidt with one reorthogonalisation on the
** sqrt(w)-scaled columns (two columns: R is 2x2).
*/
#ifndef CCS_IRLS_H
#define CCS_IRLS_H

#include <stddef.h>

#define CCS_IRLS_MAXITER 100
#define CCS_IRLS_TUNE 4.685

struct ccs_irls {
	double c[2];      /* the coefficients */
	double cov[3];    /* their covariance: var c0, cov c0 c1, var c1 */
	int iters;        /* rounds run; CCS_IRLS_MAXITER + 1 when it did not converge */
};

/* Fit y ~ c0 x0 + c1 x1 over m rows (m >= 3).  CCS_OK, CCS_ENOMEM, or
 * CCS_EFIT when the columns are dependent or the weights leave fewer than
 * two points. */
int ccs_irls_fit(const double *x0, const double *x1, const double *y, size_t m, struct ccs_irls *out);

#endif
