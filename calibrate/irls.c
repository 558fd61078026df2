/* calibrate/irls.c: bisquare robust regression on two columns (irls.h). */
#include "irls.h"

#include "../model/ccs.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

struct ws {
	double *q0, *q1;   /* the sqrt(w)-scaled columns, orthonormalised */
	double *w, *f, *r, *a;
};

static double dot(const double *u, const double *v, size_t m)
{
	double s = 0;
	for (size_t i = 0; i < m; i++)
		s += u[i] * v[i];
	return s;
}

static void axpy(double k, const double *u, double *v, size_t m)
{
	for (size_t i = 0; i < m; i++)
		v[i] += k * u[i];
}

/* Least squares of y on (x0, x1) with weights w (NULL: all 1): c and R =
 * (r00, r01, r11), Q's columns left in q0, q1.  CCS_EFIT when dependent. */
static int lsq(const double *x0, const double *x1, const double *y, const double *w, size_t m, struct ws *s,
               double c[2], double R[3])
{
	for (size_t i = 0; i < m; i++) {
		double k = w ? sqrt(w[i]) : 1;
		s->q0[i] = k * x0[i];
		s->q1[i] = k * x1[i];
	}
	double r00 = sqrt(dot(s->q0, s->q0, m)), n1 = sqrt(dot(s->q1, s->q1, m));
	if (!(r00 > 0) || !(n1 > 0))
		return CCS_EFIT;
	for (size_t i = 0; i < m; i++)
		s->q0[i] /= r00;
	double r01 = 0;
	for (int pass = 0; pass < 2; pass++) {   /* twice is enough (Kahan) */
		double d = dot(s->q0, s->q1, m);
		axpy(-d, s->q0, s->q1, m);
		r01 += d;
	}
	double r11 = sqrt(dot(s->q1, s->q1, m));
	if (!(r11 > 1e-13 * n1))
		return CCS_EFIT;
	for (size_t i = 0; i < m; i++)
		s->q1[i] /= r11;
	double b0 = 0, b1 = 0;
	for (size_t i = 0; i < m; i++) {
		double k = w ? sqrt(w[i]) : 1;
		b0 += s->q0[i] * k * y[i];
		b1 += s->q1[i] * k * y[i];
	}
	c[1] = b1 / r11;
	c[0] = (b0 - r01 * c[1]) / r00;
	R[0] = r00;
	R[1] = r01;
	R[2] = r11;
	return CCS_OK;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* r = y - X c; returns MAD / 0.6745 of |r| (times the leverage factors f
 * when adj), the smallest p - 1 = 1 left out (Street et al. 1988). */
static double scale(const double *x0, const double *x1, const double *y, size_t m, const double c[2], int adj,
                    struct ws *s)
{
	for (size_t i = 0; i < m; i++) {
		s->r[i] = y[i] - (c[0] * x0[i] + c[1] * x1[i]);
		s->a[i] = fabs(adj ? s->r[i] * s->f[i] : s->r[i]);
	}
	qsort(s->a, m, sizeof *s->a, by_value);
	const double *t = s->a + 1;
	size_t k = m - 1;
	double med = k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
	return med / 0.6745;
}

static int fit(const double *x0, const double *x1, const double *y, size_t m, struct ws *s, struct ccs_irls *o)
{
	double c[2], R[3], Rw[3];
	int rc = lsq(x0, x1, y, NULL, m, s, c, R);
	if (rc)
		return rc;
	/* leverages from the unweighted Q; the OLS residual spread; the
	 * scale's floor */
	for (size_t i = 0; i < m; i++) {
		double h = fmin(s->q0[i] * s->q0[i] + s->q1[i] * s->q1[i], 0.9999);
		s->f[i] = 1 / sqrt(1 - h);
	}
	/* y's mean as a running mean, exact when y is constant (as it is here:
	 * the rows are scaled to y = 1) */
	double ssr = 0, ym = 0, yv = 0;
	for (size_t i = 0; i < m; i++) {
		double e = y[i] - (c[0] * x0[i] + c[1] * x1[i]);
		ssr += e * e;
		ym += (y[i] - ym) / (double)(i + 1);
	}
	for (size_t i = 0; i < m; i++)
		yv += (y[i] - ym) * (y[i] - ym) / (double)(m - 1);
	double s_ols = sqrt(ssr / (double)(m - 2)), floor = 1e-6 * sqrt(yv);
	if (floor == 0)
		floor = 1;
	const double K = CCS_IRLS_TUNE, tol = sqrt(DBL_EPSILON);
	o->iters = CCS_IRLS_MAXITER + 1;
	for (int it = 1; it <= CCS_IRLS_MAXITER; it++) {
		double ks = K * fmax(scale(x0, x1, y, m, c, 1, s), floor);
		size_t kept = 0;
		for (size_t i = 0; i < m; i++) {
			double u = s->r[i] * s->f[i] / ks;
			s->w[i] = fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0;
			kept += s->w[i] > 0;
		}
		if (kept < 2)
			return CCS_EFIT;
		double cn[2];
		if ((rc = lsq(x0, x1, y, s->w, m, s, cn, Rw)))
			return rc;
		int done = 1;
		for (int j = 0; j < 2; j++)
			if (fabs(cn[j] - c[j]) > tol * fmax(fabs(cn[j]), fabs(c[j])))
				done = 0;
		c[0] = cn[0];
		c[1] = cn[1];
		if (done) {
			o->iters = it;
			break;
		}
	}
	/* the robust sigma at the final coefficients, from their plain MAD */
	double ks = K * scale(x0, x1, y, m, c, 0, s), m1 = 0, m2 = 0;
	for (size_t i = 0; i < m; i++) {
		double u = ks > 0 ? s->r[i] * s->f[i] / ks : 0, v = 1 - u * u;
		double psi = fabs(u) < 1 ? u * v * v : 0, dpsi = fabs(u) < 1 ? v * (1 - 5 * u * u) : 0;
		m1 += dpsi / (double)m;
		m2 += psi * psi / (s->f[i] * s->f[i]) / (double)(m - 2);
	}
	double n = (double)m, p = 2;
	double s_rob = m1 > 0 ? (1 + p / n * (1 - m1) / m1) * sqrt(m2) * ks / m1 : s_ols;
	double sigma = fmax(s_rob, sqrt((s_ols * s_ols * p * p + s_rob * s_rob * n) / (p * p + n)));
	/* sigma^2 (X'X)^-1, from the unweighted R */
	double r00 = R[0], r01 = R[1], r11 = R[2], s2 = sigma * sigma;
	o->c[0] = c[0];
	o->c[1] = c[1];
	o->cov[0] = s2 * (1 / (r00 * r00) + r01 * r01 / (r00 * r00 * r11 * r11));
	o->cov[1] = s2 * (-r01 / (r00 * r11 * r11));
	o->cov[2] = s2 / (r11 * r11);
	return CCS_OK;
}

int ccs_irls_fit(const double *x0, const double *x1, const double *y, size_t m, struct ccs_irls *out)
{
	if (m < 3)
		return CCS_EFIT;
	struct ws s;
	double *buf = ccs_malloc(6 * m * sizeof *buf);
	if (!buf)
		return CCS_ENOMEM;
	s.q0 = buf;
	s.q1 = buf + m;
	s.w = buf + 2 * m;
	s.f = buf + 3 * m;
	s.r = buf + 4 * m;
	s.a = buf + 5 * m;
	int rc = fit(x0, x1, y, m, &s, out);
	ccs_free(buf);
	return rc;
}
