/* calibrate/calib.c: measurements -> fits -> model parameters (calib.h). */
#include "calib.h"

#include "../model/coll.h"
#include "../model/cost.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BIG_SIZE (64ull << 20)      /* nccl-tests rows that fix the efficiencies */
#define SMALL_SIZE (64ull << 10)    /* ... and those that fix the step overheads */

/* Append the formatted line to the list v of *n lines (notes, refusals). */
static int add_line(char ***v, size_t *n, const char *fmt, va_list ap) CCS_PRINTF(3, 0);
static int add_line(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char buf[384];
	vsnprintf(buf, sizeof buf, fmt, ap);
	char **nv = ccs_realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return CCS_ENOMEM;
	*v = nv;
	size_t l = strlen(buf) + 1;
	if (!(nv[*n] = ccs_malloc(l)))
		return CCS_ENOMEM;
	memcpy(nv[(*n)++], buf, l);
	return CCS_OK;
}

/* What was skipped and why. */
static int note(struct ccs_calib *c, const char *fmt, ...) CCS_PRINTF(2, 3);
static int note(struct ccs_calib *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = add_line(&c->note, &c->nnote, fmt, ap);
	va_end(ap);
	return rc;
}

/* A fitted value refused, and why (calib.h, CCS_CALIB_EFF_*). */
static int refuse(struct ccs_calib *c, const char *fmt, ...) CCS_PRINTF(2, 3);
static int refuse(struct ccs_calib *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = add_line(&c->refused, &c->nrefused, fmt, ap);
	va_end(ap);
	return rc;
}

/* Each fitted efficiency against its bounds: (1, 1.05] is written as 1;
 * outside [0.2, 1.05] it is refused. */
static int check_effs(struct ccs_calib *c)
{
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++) {
		if (!c->eff_from[ty])
			continue;
		double e = c->eff[ty];
		const char *from = c->eff_from[ty] == 1 ? "a bench or perftest" : "nccl-tests";
		if (e < CCS_CALIB_EFF_MIN || e > CCS_CALIB_EFF_MAX) {
			CCS_TRY(refuse(c, "%s efficiency %.3g from %s is outside [%.2g, %.3g]: %s", ccs_link_type_name[ty], e,
			               from, CCS_CALIB_EFF_MIN, CCS_CALIB_EFF_MAX,
			               e < CCS_CALIB_EFF_MIN
			                   ? "the machine ran far slower than the topology allows (fewer or slower links or NICs than it lists, other traffic, or a fault)"
			                   : "the machine ran faster than the topology's links allow (more or faster links or NICs than it lists)"));
		} else if (e > 1) {
			CCS_TRY(note(c, "%s efficiency %.3f from %s is within measurement noise above 1; written as 1",
			             ccs_link_type_name[ty], e, from));
			c->eff[ty] = 1;
		}
	}
	return CCS_OK;
}

void ccs_calib_release(struct ccs_calib *c)
{
	ccs_free(c->fit);
	for (size_t i = 0; i < c->nnote; i++)
		ccs_free(c->note[i]);
	ccs_free(c->note);
	for (size_t i = 0; i < c->nrefused; i++)
		ccs_free(c->refused[i]);
	ccs_free(c->refused);
	memset(c, 0, sizeof *c);
}

/* ---- groups ---- */

static int is_nccl(const struct ccs_meas *m)
{
	return ccs_meas_is_coll(m);
}

/* nccl-tests rows fit out-of-place only (in-place is the same curve) */
static int fitted(const struct ccs_meas *m)
{
	return !is_nccl(m) || !strncmp(m->variant, "oop", 3);
}

static int same_group(const struct ccs_meas *a, const struct ccs_meas *b)
{
	return !strcmp(a->source, b->source) && !strcmp(a->cls, b->cls) && !strcmp(a->name, b->name) &&
	       !strcmp(a->variant, b->variant) && a->ranks == b->ranks;
}

void ccs_calib_group(const struct ccs_meas *m, char *buf, size_t n)
{
	const char *type = is_nccl(m) ? strchr(m->variant, ' ') : NULL;
	type = type && strcmp(type + 1, "float") ? type : "";
	if (is_nccl(m) && m->ranks)
		snprintf(buf, n, "%.16s/%d%.12s", m->name, m->ranks, type);
	else
		snprintf(buf, n, "%.16s%.12s", m->name, type);
}

int ccs_calib_fitted(const struct ccs_meas *m)
{
	return fitted(m);
}

/* Fit every group; notes (may be NULL) get what was skipped. */
static int fit_groups(const struct ccs_meas *m, size_t n, struct ccs_fit **out, size_t *nout, struct ccs_calib *notes)
{
	*out = NULL;
	*nout = 0;
	size_t cap = 0;
	char *done = ccs_calloc(n ? n : 1, 1);
	double *x = ccs_malloc((n ? n : 1) * sizeof *x), *y = ccs_malloc((n ? n : 1) * sizeof *y);
	int rc = done && x && y ? CCS_OK : CCS_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		if (done[i] || !fitted(&m[i]))
			continue;
		size_t k = 0, distinct = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && same_group(&m[i], &m[j])) {
				done[j] = 1;
				distinct += k == 0 || m[j].size != (uint64_t)x[k - 1];
				x[k] = (double)m[j].size;
				y[k++] = m[j].median_s;
			}
		struct ccs_fit f[3];
		memset(f, 0, sizeof f);
		snprintf(f[0].cls, sizeof f[0].cls, "%s", m[i].cls);
		ccs_calib_group(&m[i], f[0].name, sizeof f[0].name);
		if (distinct < 2 || k < CCS_FIT_MIN_POINTS) {
			if (notes)
				rc = note(notes, "%s/%s: %zu point%s over %zu size%s, too few to fit", f[0].cls, f[0].name, k,
				          k == 1 ? "" : "s", distinct, distinct == 1 ? "" : "s");
			continue;
		}
		int np = 0;
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		int r = ccs_fit_pieces(x, y, k, is_nccl(&m[i]) ? 3 : 2, f, &np, &d);
		if (r == CCS_EFIT) {
			if (notes)
				rc = note(notes, "%s", d.msg);
			continue;
		}
		if ((rc = r))
			break;
		if ((rc = ccs_grow(out, &cap, *nout + (size_t)np, sizeof **out)))
			break;
		memcpy(*out + *nout, f, (size_t)np * sizeof *f);
		*nout += (size_t)np;
	}
	ccs_free(done);
	ccs_free(x);
	ccs_free(y);
	if (rc) {
		ccs_free(*out);
		*out = NULL;
		*nout = 0;
	}
	return rc;
}

int ccs_calib_fits(const struct ccs_meas *m, size_t n, struct ccs_fit **out, size_t *nout)
{
	return fit_groups(m, n, out, nout, NULL);
}

/* ---- efficiencies from benches and perftest ---- */

static int bound_link(int bound, int net_type)
{
	switch (bound) {
	case CCS_BOUND_NVLINK: return CCS_LINK_NVLINK;
	case CCS_BOUND_PCIE: return CCS_LINK_PCIE;
	case CCS_BOUND_C2C: return CCS_LINK_C2C;
	case CCS_BOUND_UB: return CCS_LINK_UB;
	case CCS_BOUND_HCCS: return CCS_LINK_HCCS;
	case CCS_BOUND_XGMI: return CCS_LINK_XGMI;
	case CCS_BOUND_SMP: return CCS_LINK_SMP;
	case CCS_BOUND_NIC: case CCS_BOUND_LEAF: case CCS_BOUND_SPINE: case CCS_BOUND_CORE: return net_type;
	default: return -1;
	}
}

static double first_nic_speed(const struct ccs_topo *t, int *type)
{
	for (uint32_t i = 0; i < t->ndev; i++) {
		if (t->dev[i].kind != CCS_DEV_NIC)
			continue;
		double s = 0;
		for (uint32_t k = t->adj_off[i]; k < t->adj_off[i + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (ccs_link_is_network(l->type)) {
				s += l->bw_Bps;
				*type = l->type;
			}
		}
		if (t->dev[i].bw_Bps > 0)
			s = t->dev[i].bw_Bps;
		if (s > 0)
			return s;
	}
	return 0;
}

static int median_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, median_cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int bench_effs(struct ccs_topo *t, struct ccs_calib *c)
{
	struct ccs_comm cm;
	char err[256];
	double su_nom = 0, pci_nom = 0;
	int su_type = -1;
	if (!ccs_comm_build(t, 2, 2, &cm, err, sizeof err)) {
		su_type = cm.p >= 2 ? bound_link(cm.su_bound, cm.net_type) : -1;
		if (su_type >= 0)
			su_nom = cm.b_su / t->params.eff[su_type];
		pci_nom = cm.nccl.pci_GBps * 1e9;
		ccs_comm_release(&cm);
	} else if (!ccs_comm_build(t, 1, 1, &cm, err, sizeof err)) {
		pci_nom = cm.nccl.pci_GBps * 1e9;
		ccs_comm_release(&cm);
	}
	int net_type = CCS_LINK_IB;
	double nic_nom = first_nic_speed(t, &net_type);
	double best[CCS_LINK_NTYPES] = { 0 }, nom[CCS_LINK_NTYPES] = { 0 };
	const char *what[CCS_LINK_NTYPES] = { 0 };
	for (size_t i = 0; i < c->nfit; i++) {
		const struct ccs_fit *f = &c->fit[i];
		if (i + 1 < c->nfit && !strcmp(c->fit[i + 1].cls, f->cls) && !strcmp(c->fit[i + 1].name, f->name))
			continue;   /* the piece of the largest sizes decides */
		if (!(f->beta_spB > 0))
			continue;
		int ty = -1;
		double nm = 0;
		if (!strcmp(f->name, "p2p_write") || !strcmp(f->name, "p2p_read")) {
			ty = su_type;
			nm = su_nom;
		} else if (!strcmp(f->name, "h2d") || !strcmp(f->name, "d2h")) {
			ty = CCS_LINK_PCIE;
			nm = pci_nom;
		} else if (!strncmp(f->name, "rdma_", 5) && strstr(f->name, "_bw")) {
			ty = !strcmp(f->cls, "roce") ? CCS_LINK_ROCE : net_type;
			nm = nic_nom;
		}
		if (ty < 0)
			continue;
		if (!(nm > 0)) {
			CCS_TRY(note(c, "%s/%s: the topology has no %s to compare with", f->cls, f->name,
			             ccs_link_type_name[ty]));
			continue;
		}
		if (1 / f->beta_spB > best[ty]) {
			best[ty] = 1 / f->beta_spB;
			nom[ty] = nm;
			what[ty] = f->name;
		}
	}
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++) {
		if (!what[ty])
			continue;
		double e = best[ty] / nom[ty];
		/* as measured: check_effs judges it against the bounds */
		t->params.eff[ty] = e > 1 ? 1 : e;
		c->eff[ty] = e;
		c->eff_from[ty] = 1;
	}
	return CCS_OK;
}

/* ---- NCCL level, from nccl-tests ---- */

/* Each bounding link type's efficiency scaled by the median of its rows'
 * predicted / measured ratios (kept in [0.01, 1]); 1 when every median is
 * within 0.2% (the fit has settled).  tmp: room for nr values. */
static int update_effs(struct ccs_topo *t, struct ccs_calib *c, const double *ratio, const int *rtype, size_t nr,
                       double *tmp)
{
	int settled;
	settled = 1;
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++) {
		size_t k = 0;
		for (size_t i = 0; i < nr; i++)
			if (rtype[i] == ty)
				tmp[k++] = ratio[i];
		if (!k)
			continue;
		double r = median(tmp, k);
		if (fabs(r - 1) > 0.002)
			settled = 0;
		double e = t->params.eff[ty] * r;
		/* the model runs on e in [0.01, 1]; the calibration keeps it as
		 * fitted for check_effs */
		c->eff[ty] = e;
		t->params.eff[ty] = e > 1 ? 1 : e < 0.01 ? 0.01 : e;
		c->eff_from[ty] = 2;
	}
	return settled;
}

/* Each protocol's step overhead: the median of what its rows leave over
 * the closed form's other terms, per step (two rows at least); a negative
 * one (the model's other terms alone exceed the measured time) is refused. */
static int update_steps(struct ccs_topo *t, struct ccs_calib *c, double *const *ov, const size_t *no)
{
	static const char *const pname[3] = { "ll", "ll128", "simple" };
	for (int q = 0; q < 3; q++) {
		if (no[q] < 2)
			continue;
		double o = median(ov[q], no[q]);
		if (o < 0) {
			CCS_TRY(refuse(c, "%s step overhead %.3g us from nccl-tests is negative: the model's latency alone exceeds the measured small-size times (a topology with higher latencies than the machine's, or a log of another machine)",
			               pname[q], o * 1e6));
			continue;
		}
		c->step_s[q] = o;
		c->step_set[q] = 1;
		t->params.step_s[q] = c->step_s[q];
	}
	return CCS_OK;
}

/* Efficiencies and step overheads from nccl-tests rows: passes over the
 * large rows until each bounding link type's median ratio settles (at most
 * six), then one over the small rows for the step overheads.  One idea: a
 * fixed-point iteration whose passes scan the rows the same way. */
static int nccl_level(struct ccs_topo *t, const struct ccs_meas *m, size_t n, struct ccs_calib *c)
{
	int rc = CCS_OK;
	double *ratio = ccs_malloc((n ? n : 1) * sizeof *ratio);
	int *rtype = ccs_malloc((n ? n : 1) * sizeof *rtype);
	double *ov[3] = { ccs_malloc((n ? n : 1) * sizeof(double)), ccs_malloc((n ? n : 1) * sizeof(double)),
	                  ccs_malloc((n ? n : 1) * sizeof(double)) };
	if (!ratio || !rtype || !ov[0] || !ov[1] || !ov[2]) {
		rc = CCS_ENOMEM;
		goto out;
	}
	int said = 0;
	/* passes until the ratios settle (at most 6): efficiencies; then one
	 * for the step overheads */
	for (int pass = 0, settled = 0; pass < 7 && !rc; pass++) {
		if (settled && pass < 6)
			pass = 6;
		size_t nr = 0, no[3] = { 0, 0, 0 };
		int cur_ranks = -1;
		struct ccs_comm cm;
		int have = 0;
		for (size_t i = 0; i < n && !rc; i++) {
			const struct ccs_meas *x = &m[i];
			if (!is_nccl(x) || !fitted(x))
				continue;
			if (pass < 6 ? x->size < BIG_SIZE : x->size >= SMALL_SIZE)
				continue;
			int coll = ccs_coll_parse(x->name);
			if (coll < 0 || !x->ranks) {
				if (!said && pass == 0)
					rc = note(c, "%s:%d: %s rows without a known rank count are not used for efficiencies", x->file,
					          x->line, x->name);
				said = 1;
				continue;
			}
			if (x->ranks != cur_ranks) {
				if (have)
					ccs_comm_release(&cm);
				have = 0;
				char err[256];
				cur_ranks = x->ranks;
				if (ccs_comm_build(t, x->ranks, 0, &cm, err, sizeof err)) {
					if (pass == 0)
						rc = note(c, "%s: %d ranks on %s: %s; its rows are not used", x->file, x->ranks, t->name, err);
					continue;
				}
				have = 1;
			}
			if (!have)
				continue;
			int a, q;
			if (ccs_select(&cm, coll, x->size, ~0u, ~0u, 1, &a, &q))
				continue;
			struct ccs_cost cc;
			if (ccs_cost_eval(&cm, coll, a, q, 0, x->size, &cc, NULL))
				continue;
			if (pass < 6) {
				int ty = bound_link(cc.bound, cm.net_type);
				if (ty < 0)
					continue;
				ratio[nr] = cc.time_s / x->median_s;
				rtype[nr++] = ty;
			} else if (cc.step_s > 0 && cm.prm.step_s[q] > 0) {
				double K = cc.step_s / cm.prm.step_s[q];
				ov[q][no[q]++] = (x->median_s - (cc.time_s - cc.step_s)) / K;
			}
		}
		if (have)
			ccs_comm_release(&cm);
		if (rc)
			break;
		if (pass < 6)
			settled = update_effs(t, c, ratio, rtype, nr, ov[0]);
		else
			rc = update_steps(t, c, ov, no);
	}
out:
	ccs_free(ratio);
	ccs_free(rtype);
	for (int q = 0; q < 3; q++)
		ccs_free(ov[q]);
	return rc;
}

int ccs_calib_derive(struct ccs_topo *t, const struct ccs_meas *m, size_t n, struct ccs_calib *out,
                     struct ccs_diag *d)
{
	memset(out, 0, sizeof *out);
	int rc = fit_groups(m, n, &out->fit, &out->nfit, out);
	if (rc)
		goto fail;
	if (t) {
		struct ccs_model_params keep = t->params;
		for (int q = 0; q < 3; q++)
			out->step_s[q] = t->params.step_s[q];
		rc = bench_effs(t, out);
		if (!rc)
			rc = nccl_level(t, m, n, out);
		if (!rc)
			rc = check_effs(out);
		t->params = keep;
		if (rc)
			goto fail;
		if (out->nrefused) {
			ccs_diag_msg(d, "%zu fitted value%s outside physical bounds: no calibration written", out->nrefused,
			             out->nrefused == 1 ? "" : "s");
			return CCS_EFIT;
		}
	}
	if (!out->nfit) {
		ccs_diag_msg(d, "nothing to fit: no group of measurements has two sizes and three points%s%s",
		             out->nnote ? "; " : "", out->nnote ? out->note[0] : "");
		rc = CCS_EFIT;
		goto fail;
	}
	return CCS_OK;
fail:
	ccs_calib_release(out);
	return rc;
}

/* ---- YAML ---- */

void ccs_yq_time(char *buf, size_t n, double s)
{
	snprintf(buf, n, "%.6gus", s * 1e6);
}

void ccs_yq_rate(char *buf, size_t n, double Bps)
{
	snprintf(buf, n, "%.6gGB/s", Bps / 1e9);
}

void ccs_yq_size(char *buf, size_t n, uint64_t b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;
	while (i < 4 && b && b % 1024 == 0) {
		b /= 1024;
		i++;
	}
	snprintf(buf, n, "%llu%s", (unsigned long long)b, u[i]);
}

static void yq_bw(char *buf, size_t n, double beta)
{
	if (beta > 0)
		ccs_yq_rate(buf, n, 1 / beta);
	else
		snprintf(buf, n, "unbounded");
}

int ccs_calib_write(FILE *f, const struct ccs_calib *c, const char *host, long long run, const char *db,
                    const char *topo)
{
	fprintf(f, "# ccsim calibration, written by `ccsim calibrate fit` from run %lld of %s.\n", run, db);
	fprintf(f, "# A topology uses it with `calibration: THIS_FILE`; the model block overrides the topology's.\n");
	fprintf(f, "calibration:\n  host: '%s'\n  run: %lld\n  db: '%s'\n", host, run, db);
	if (topo)
		fprintf(f, "  topology: '%s'\n", topo);
	int any_eff = 0, any_step = 0;
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++)
		any_eff |= c->eff_from[ty] != 0;
	for (int q = 0; q < 3; q++)
		any_step |= c->step_set[q];
	if (any_eff || any_step) {
		fprintf(f, "model:\n");
		if (any_eff) {
			fprintf(f, "  efficiency:\n");
			for (int ty = 0; ty < CCS_LINK_NTYPES; ty++)
				if (c->eff_from[ty])
					fprintf(f, "    %s: %.4f   # from %s\n", ccs_link_type_name[ty], c->eff[ty],
					        c->eff_from[ty] == 2 ? "nccl-tests busbw >= 64 MiB" : "bench/perftest bandwidth");
		}
		if (any_step) {
			static const char *const pn[3] = { "ll", "ll128", "simple" };
			fprintf(f, "  step_overhead:\n");
			for (int q = 0; q < 3; q++) {
				char b[48];
				ccs_yq_time(b, sizeof b, c->step_s[q]);
				fprintf(f, "    %s: %s%s\n", pn[q], b, c->step_set[q] ? "   # fitted from nccl-tests < 64 KiB" : "");
			}
		}
	}
	fprintf(f, "fits:\n");
	for (size_t i = 0; i < c->nfit; i++) {
		const struct ccs_fit *x = &c->fit[i];
		char lo[32], hi[32], a[48], al[48], ah[48], bw[48], bl[48], bh[48];
		ccs_yq_size(lo, sizeof lo, x->lo);
		ccs_yq_size(hi, sizeof hi, x->hi);
		ccs_yq_time(a, sizeof a, x->alpha_s);
		ccs_yq_time(al, sizeof al, x->alpha_lo);
		ccs_yq_time(ah, sizeof ah, x->alpha_hi);
		yq_bw(bw, sizeof bw, x->beta_spB);
		yq_bw(bl, sizeof bl, x->beta_hi);
		yq_bw(bh, sizeof bh, x->beta_lo);
		fprintf(f, "  - {class: %s, name: '%s', sizes: [%s, %s], alpha: %s, bandwidth: %s, alpha_ci: [%s, %s],"
		           " bandwidth_ci: [%s, %s], r2: %.6f, rms: %.4f, points: %d}\n",
		        x->cls, x->name, lo, hi, a, bw, al, ah, bl, bh, x->r2, x->rms, x->n);
	}
	return ferror(f) ? -1 : 0;
}
