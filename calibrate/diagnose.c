/*
** calibrate/diagnose.c: which fault explains measured collective times
** (diagnose.h has the scores, rules and verdict).
*/
#include "diagnose.h"

#include "ntinfo.h"

#include "../model/ccs.h"
#include "../model/comm.h"
#include "../model/cost.h"
#include "../model/fault.h"
#include "../model/topo_state.h"
#include "../model/transport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the evidence rules, one per kind -------------------------------- */

/* What the evidence says of a hypothesis of one kind; all: its target is
 * every GPU ("gdr:all:off"). */
typedef int (*ev_rule)(unsigned ev, int all);

/* no line shows GPUDirect anywhere: off on all, which one GPU's alone does
 * not state */
static int ev_gdr(unsigned ev, int all)
{
	if (ev & CCS_EV_GDR)
		return ev & CCS_EV_NO_GDR ? 0 : -1;
	return ev & CCS_EV_NO_GDR ? all : 0;
}

static int ev_socket(unsigned ev, int all)
{
	(void)all;
	return ev & CCS_EV_SOCKET ? 1 : ev & CCS_EV_RDMA ? -1 : 0;
}

static int ev_p2p(unsigned ev, int all)
{
	(void)all;
	return ev & CCS_EV_SHM ? 1 : ev & CCS_EV_P2P ? -1 : 0;
}

/* NULL: no line speaks of the kind */
static const ev_rule rules[CCS_CAND_KIND_N] = {
	[CCS_CAND_GDR] = ev_gdr,
	[CCS_CAND_P2P] = ev_p2p,
	[CCS_CAND_SOCKET] = ev_socket,
};

int ccs_diagnose_evidence(int kind, int all, unsigned ev)
{
	return kind >= 0 && kind < CCS_CAND_KIND_N && rules[kind] ? rules[kind](ev, all) : 0;
}

/* --- scores ----------------------------------------------------------- */

void ccs_diagnose_score(const struct ccs_diagnose_row *rw, size_t n, const double *pred, double *rms, double *worst)
{
	double s = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		double e = log(pred[i] / rw[i].t_s) / rw[i].sig;
		s += e * e;
		double r = fabs(pred[i] / rw[i].t_s - 1);
		if (r > w)
			w = r;
	}
	*rms = n ? sqrt(s / (double)n) : 0;
	*worst = w;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int ccs_diagnose_init(struct ccs_diagnose *D, const struct ccs_diagnose_row *rw, size_t n, double *healthy,
                      double tol)
{
	memset(D, 0, sizeof *D);
	D->rw = rw;
	D->nrw = n;
	D->healthy = healthy;
	D->tol = tol;
	ccs_diagnose_score(rw, n, healthy, &D->h_rms, &D->h_worst);
	double num = 0, den = 0;
	for (size_t i = 0; i < n; i++) {
		double w = 1 / (rw[i].sig * rw[i].sig);
		num += w * log(rw[i].t_s / healthy[i]);
		den += w;
	}
	D->bias = den > 0 ? exp(num / den) : 1;
	double *p = ccs_malloc((n ? n : 1) * sizeof *p);
	if (!p)
		return -2;
	for (size_t i = 0; i < n; i++)
		p[i] = healthy[i] * D->bias;
	double w;
	ccs_diagnose_score(rw, n, p, &D->b_rms, &w);
	/* the straggler's delay: the median excess over healthy */
	for (size_t i = 0; i < n; i++)
		p[i] = rw[i].t_s - healthy[i];
	qsort(p, n, sizeof *p, cmp_double);
	D->excess = !n ? 0 : n % 2 ? p[n / 2] : 0.5 * (p[n / 2 - 1] + p[n / 2]);
	ccs_free(p);
	return 0;
}

/* --- predictions under a fault, on the one topology ------------------- */

int ccs_diagnose_ppn(int ppn, int nodes, int logged, int ranks)
{
	nodes = nodes ? nodes : logged;
	return ppn ? ppn : nodes ? (ranks + nodes - 1) / nodes : 0;
}

/* Hypothesis fault onto t: transport:T sets the transport, anything else
 * is a fault string (ccs_fault_apply). */
static int apply(struct ccs_topo *t, const char *fault, char *err, size_t errn)
{
	if (strncmp(fault, "transport:", 10))
		return ccs_fault_apply(t, fault, err, errn);
	for (int k = 0; k < CCS_TR_N; k++)
		if (!strcmp(fault + 10, ccs_transport_name[k])) {
			t->params.transport = k;
			return 0;
		}
	snprintf(err, errn, "unknown transport '%s'", fault + 10);
	return CCS_EINPUT;
}

static int predict_rows(const struct ccs_topo *t, int ppn, int nodes, const struct ccs_diagnose_row *rw, size_t n,
                        double *out, int *groups, char *err, size_t errn)
{
	int rc = 0, cur = -1, cur_nodes = -1, have = 0;
	struct ccs_comm c;
	for (size_t i = 0; i < n && !rc; i++) {
		if (rw[i].ranks != cur || rw[i].nodes != cur_nodes) {
			if (have)
				ccs_comm_release(&c);
			have = 0;
			cur = rw[i].ranks;
			cur_nodes = rw[i].nodes;
			int brc = ccs_comm_build(t, rw[i].ranks, ccs_diagnose_ppn(ppn, nodes, rw[i].nodes, rw[i].ranks), &c, err, errn);
			if (brc)
				return brc == CCS_ENOMEM ? -2 : -1;
			have = 1;
		}
		int a, q;
		struct ccs_cost cc;
		if (ccs_select(&c, rw[i].coll, rw[i].size, rw[i].amask, rw[i].pmask, 1, &a, &q) ||
		    ccs_cost_eval(&c, rw[i].coll, a, q, 0, rw[i].size, &cc, NULL)) {
			snprintf(err, errn, "no algorithm %sapplies to row %zu",
			         ~rw[i].amask || ~rw[i].pmask ? "the logs or flags allow " : "", i);
			rc = -1;
			break;
		}
		out[i] = cc.time_s;
		if (groups)
			groups[i] = c.G;
	}
	if (have)
		ccs_comm_release(&c);
	return rc;
}

int ccs_diagnose_under(struct ccs_topo *t, const char *fault, int (*work)(const struct ccs_topo *t, void *ctx),
                       void *ctx, char *err, size_t errn)
{
	if (!fault)
		return work(t, ctx);
	struct ccs_topo_state *st;
	if (ccs_topo_state_save(t, &st))
		return -2;
	int arc = apply(t, fault, err, errn);
	int rc = arc == CCS_ENOMEM ? -2 : arc ? -1 : work(t, ctx);
	if (ccs_topo_state_restore(t, st))
		rc = -2;
	ccs_topo_state_free(st);
	return rc;
}

/* ccs_diagnose_predict's request, as ccs_diagnose_under's work. */
struct predict_req {
	int ppn, nodes;
	const struct ccs_diagnose_row *rw;
	size_t n;
	double *out;
	int *groups;
	char *err;
	size_t errn;
};

static int predict_work(const struct ccs_topo *t, void *ctx)
{
	const struct predict_req *q = ctx;
	return predict_rows(t, q->ppn, q->nodes, q->rw, q->n, q->out, q->groups, q->err, q->errn);
}

int ccs_diagnose_predict(struct ccs_topo *t, int ppn, int nodes, const char *fault,
                         const struct ccs_diagnose_row *rw, size_t n, double *out, int *groups, char *err,
                         size_t errn)
{
	struct predict_req q = { ppn, nodes, rw, n, out, groups, err, errn };
	return ccs_diagnose_under(t, fault, predict_work, &q, err, errn);
}

/* --- hypotheses ------------------------------------------------------- */

static int add_member(struct ccs_diagnose_hyp *x, const char *spec)
{
	size_t l = x->all ? strlen(x->all) : 0, m = strlen(spec);
	char *n = ccs_realloc(x->all, l + m + 2);
	if (!n)
		return -1;
	if (l)
		n[l++] = ' ';
	memcpy(n + l, spec, m + 1);
	x->all = n;
	return 0;
}

/* spec into the kept hypothesis with the same predictions: 1 merged, 0
 * none alike, -2 out of memory. */
static int merge_same(struct ccs_diagnose *D, const struct ccs_diag_cand *h, const double *pred, int ev)
{
	size_t j = 0;
	for (; j < D->nh; j++) {
		size_t k = 0;
		while (k < D->nrw && fabs(D->h[j].pred[k] / pred[k] - 1) < 1e-9)
			k++;
		if (k == D->nrw)
			break;
	}
	if (j == D->nh)
		return 0;
	struct ccs_diagnose_hyp *x = &D->h[j];
	if (x->members == 1)
		snprintf(x->second, sizeof x->second, "%s", h->spec);
	if (!x->stated && ev > 0) {
		/* the group is named by the member the logs state */
		x->stated = 1;
		snprintf(x->second, sizeof x->second, "%s", x->spec);
		snprintf(x->spec, sizeof x->spec, "%s", h->spec);
		x->kind = h->kind;
	}
	x->members++;
	return add_member(x, h->spec) ? -2 : 1;
}

int ccs_diagnose_add(struct ccs_diagnose *D, const struct ccs_diag_cand *h, const double *pred, int ev)
{
	double s, w;
	ccs_diagnose_score(D->rw, D->nrw, pred, &s, &w);
	if (!ev && h->kind == CCS_CAND_STRAGGLER && s >= D->b_rms) {
		D->nbiased++;   /* a share of every row fits better than a fixed delay */
		return 0;
	}
	int m = merge_same(D, h, pred, ev);
	if (m)
		return m < 0 ? -2 : 0;
	if (ccs_grow(&D->h, &D->caph, D->nh + 1, sizeof *D->h))
		return -2;
	struct ccs_diagnose_hyp *x = &D->h[D->nh];
	memset(x, 0, sizeof *x);
	snprintf(x->spec, sizeof x->spec, "%s", h->spec);
	x->kind = h->kind;
	x->rms = s;
	x->worst = w;
	x->stated = ev > 0;
	x->members = 1;
	x->pred = ccs_malloc((D->nrw ? D->nrw : 1) * sizeof *x->pred);
	if (!x->pred || add_member(x, h->spec)) {
		ccs_free(x->pred);
		ccs_free(x->all);
		return -2;
	}
	memcpy(x->pred, pred, D->nrw * sizeof *pred);
	D->nh++;
	return 0;
}

int ccs_diagnose_try(struct ccs_diagnose *D, struct ccs_topo *t, int ppn, int nodes, const struct ccs_diag_cand *h,
                     size_t n, unsigned ev)
{
	double *pred = ccs_malloc((D->nrw ? D->nrw : 1) * sizeof *pred);
	if (!pred)
		return -2;
	int rc = 0;
	char err[600];
	for (size_t i = 0; i < n && !rc; i++) {
		int e = ccs_diagnose_evidence(h[i].kind, h[i].all, ev);
		if (e < 0) {
			D->ncontra++;   /* the logs say otherwise */
			continue;
		}
		int prc = ccs_diagnose_predict(t, ppn, nodes, h[i].spec, D->rw, D->nrw, pred, NULL, err, sizeof err);
		if (prc == -2)
			rc = -2;
		else if (!prc)
			rc = ccs_diagnose_add(D, &h[i], pred, e);
		/* else: cannot complete, or not applicable here */
	}
	ccs_free(pred);
	return rc;
}

/* --- ranking and verdict ---------------------------------------------- */

static int by_rms(const void *a, const void *b)
{
	const struct ccs_diagnose_hyp *x = a, *y = b;
	return (x->rms > y->rms) - (x->rms < y->rms);
}

void ccs_diagnose_rank(struct ccs_diagnose *D)
{
	if (D->nh)
		qsort(D->h, D->nh, sizeof *D->h, by_rms);
	D->disagree = 0;
	/* the best stated hypothesis first when it fits better than healthy
	 * and as well as the table can tell the two apart */
	for (size_t i = 1; i < D->nh; i++)
		if (D->h[i].stated) {
			if (D->h[i].rms < D->h_rms && (D->h[i].rms <= 3 * D->h[0].rms || D->h[i].rms - D->h[0].rms <= 0.5)) {
				struct ccs_diagnose_hyp x = D->h[i];
				memmove(&D->h[1], &D->h[0], i * sizeof *D->h);
				D->h[0] = x;
			} else
				D->disagree = i;
			break;
		}
	/* a fault must fit clearly better than healthy, and than healthy
	 * scaled by the bias where that fits within the model's own error */
	D->within = D->h_rms <= 1;
	D->biased = D->b_rms <= 1 && fabs(log(D->bias)) <= log(1 + D->tol);
	const struct ccs_diagnose_hyp *b = D->nh ? &D->h[0] : NULL;
	D->found = b && ((b->stated && b->rms < D->h_rms) ||
	                 (b->rms < 0.8 * D->h_rms &&
	                  (!D->within || (b->rms < 0.5 * D->h_rms && D->h_rms - b->rms > 0.5)) &&
	                  (!D->biased || b->rms < 0.5 * D->b_rms)));
	D->verdict = !D->found ? CCS_DIAGNOSE_NONE
	           : !b->stated && b->rms > 3 ? CCS_DIAGNOSE_NO_SINGLE : CCS_DIAGNOSE_FAULT;
}

void ccs_diagnose_release(struct ccs_diagnose *D)
{
	for (size_t i = 0; i < D->nh; i++) {
		ccs_free(D->h[i].pred);
		ccs_free(D->h[i].all);
	}
	ccs_free(D->h);
	ccs_free(D->healthy);
	memset(D, 0, sizeof *D);
}
