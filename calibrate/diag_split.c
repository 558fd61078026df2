/* calibrate/diag_split.c: the next measurement that tells equivalent fault hypotheses apart (diag_split.h). */
#include "diag_split.h"

#include "diagnose.h"

#include "../model/ccs.h"
#include "../model/comm.h"
#include "../model/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SPLIT_NIC, SPLIT_PCIE, SPLIT_NODE, SPLIT_NKINDS };
#define SPLIT_MAX_MEMBERS 256

/* The job's parts each probe measures: its nodes' NICs and GPUs (device
 * indices), and the nodes. */
struct parts {
	uint32_t *dev[SPLIT_NKINDS];
	int n[SPLIT_NKINDS];
};

static int parts_of(const struct ccs_topo *t, int nodes, struct parts *p)
{
	memset(p, 0, sizeof *p);
	for (int k = 0; k < SPLIT_NKINDS; k++)
		if (!(p->dev[k] = ccs_calloc(t->ndev + 1, sizeof *p->dev[k])))
			return -2;
	for (uint32_t dv = 0; dv < t->ndev; dv++) {
		const struct ccs_dev *x = &t->dev[dv];
		if (x->node < 0 || x->node >= nodes)
			continue;
		if (x->kind == CCS_DEV_NIC)
			p->dev[SPLIT_NIC][p->n[SPLIT_NIC]++] = dv;
		else if (x->kind == CCS_DEV_GPU)
			p->dev[SPLIT_PCIE][p->n[SPLIT_PCIE]++] = dv;
	}
	for (int k = 0; k < nodes && k < t->nnodes; k++)
		p->dev[SPLIT_NODE][p->n[SPLIT_NODE]++] = (uint32_t)k;
	return 0;
}

static void parts_free(struct parts *p)
{
	for (int k = 0; k < SPLIT_NKINDS; k++)
		ccs_free(p->dev[k]);
}

/* The bandwidth of dv's links of the kind a probe measures: a NIC's to the
 * network (outside its node), a GPU's PCIe. */
static double link_sum(const struct ccs_topo *t, uint32_t dv, int kind)
{
	double s = 0;
	for (uint32_t a = t->adj_off[dv]; a < t->adj_off[dv + 1]; a++) {
		const struct ccs_link *l = &t->link[t->adj[a]];
		uint32_t o = t->adj_nbr[a];
		if (kind == SPLIT_NIC ? t->dev[o].node < 0 : l->type == CCS_LINK_PCIE)
			s += l->bw_Bps;
	}
	return s;
}

/* Node k alone: the collective at size on its first ppn GPUs, NCCL's
 * choice; 0 where it cannot run, -2 out of memory. */
static double node_alone(const struct ccs_topo *t, const struct ccs_split_in *in, int k, uint64_t size)
{
	uint32_t *g = ccs_malloc((t->ngpu + 1) * sizeof *g);
	if (!g)
		return -2;
	int n = 0;
	for (uint32_t i = 0; i < t->ngpu && (!in->ppn || n < in->ppn); i++)
		if (t->gpu[i].node == k)
			g[n++] = i;
	double time = 0;
	struct ccs_comm c;
	char err[256];
	if (n >= 2 && !ccs_comm_build_gpus(t, g, n, &c, err, sizeof err)) {
		int a, q;
		struct ccs_cost cc;
		if (!ccs_select(&c, in->coll, size, ~0u, ~0u, 1, &a, &q) && !ccs_cost_eval(&c, in->coll, a, q, 0, size, &cc, NULL))
			time = cc.time_s;
		ccs_comm_release(&c);
	}
	ccs_free(g);
	return time;
}

/* The entries of a probe's vector: one a part, two a node (both sizes). */
static int width(const struct parts *p, int k)
{
	return p->n[k] * (k == SPLIT_NODE ? 2 : 1);
}

/* A member's outcome vectors (o[k] has p->n[k] entries), as
 * ccs_diagnose_under's work. */
struct outcome_req {
	const struct ccs_split_in *in;
	const struct parts *p;
	double **o;
};

static int outcome_work(const struct ccs_topo *t, void *ctx)
{
	const struct outcome_req *q = ctx;
	const struct parts *p = q->p;
	for (int k = 0; k < SPLIT_NKINDS; k++)
		for (int i = 0; i < p->n[k]; i++) {
			if (k != SPLIT_NODE) {
				q->o[k][i] = link_sum(t, p->dev[k][i], k);
				continue;
			}
			q->o[k][2 * i] = node_alone(t, q->in, (int)p->dev[k][i], q->in->size_lo);
			q->o[k][2 * i + 1] = node_alone(t, q->in, (int)p->dev[k][i], q->in->size_hi);
			if (q->o[k][2 * i] == -2 || q->o[k][2 * i + 1] == -2)
				return -2;
		}
	return 0;
}

/* Member fault's outcome vectors on t with the fault applied (NULL:
 * healthy); t is put back. */
static int outcomes(struct ccs_topo *t, const struct ccs_split_in *in, const char *fault, const struct parts *p,
                    double *o[SPLIT_NKINDS], char *err, size_t errn)
{
	struct outcome_req q = { in, p, o };
	return ccs_diagnose_under(t, fault, outcome_work, &q, err, errn);
}

static int same(const double *a, const double *b, int n)
{
	for (int i = 0; i < n; i++)
		if (fabs(a[i] - b[i]) > 0.01 * fmax(fabs(a[i]), fabs(b[i])))
			return 0;
	return 1;
}

/* How many groups the members' vectors of one kind fall into. */
static int groups_of(double *const *o, int nm, int n)
{
	int g = 0;
	for (int i = 0; i < nm; i++) {
		int j = 0;
		while (j < i && !same(o[i], o[j], n))
			j++;
		g += j == i;
	}
	return g;
}

static void say(const struct ccs_split_in *in, int kind, const struct parts *p, struct ccs_split_out *out)
{
	if (kind == SPLIT_NIC)
		snprintf(out->cmd, sizeof out->cmd, "ib_write_bw -a --report_gbits -d NIC from each of the %d NICs of the "
		         "job's nodes to a healthy host", p->n[kind]);
	else if (kind == SPLIT_PCIE)
		snprintf(out->cmd, sizeof out->cmd, "nvbandwidth -t host_to_device_memcpy_ce (or ccsim calibrate run) on "
		         "each node: the host link of each of the %d GPUs", p->n[kind]);
	else
		snprintf(out->cmd, sizeof out->cmd, "nccl-tests on each of the %d nodes alone (srun -N1 -w HOST), the "
		         "logs' collective at %llu and %llu bytes: no network", p->n[kind], (unsigned long long)in->size_lo,
		         (unsigned long long)in->size_hi);
}

/* What member m shows where it differs from healthy h, into buf. */
static void example(const struct ccs_topo *t, const char *m, int kind, const struct parts *p, const double *o,
                    const double *h, char *buf, size_t n)
{
	for (int i = 0; i < width(p, kind); i++) {
		if (same(&o[i], &h[i], 1))
			continue;
		if (kind == SPLIT_NIC)
			snprintf(buf, n, "%s shows %s at %.4g Gb/s where healthy is %.4g", m, t->dev[p->dev[kind][i]].name,
			         o[i] * 8e-9, h[i] * 8e-9);
		else if (kind == SPLIT_PCIE)
			snprintf(buf, n, "%s shows %s's host link at %.4g GB/s where healthy is %.4g", m,
			         t->dev[p->dev[kind][i]].name, o[i] * 1e-9, h[i] * 1e-9);
		else
			snprintf(buf, n, "%s shows node%d alone at %.4g us where healthy is %.4g (%s size)", m,
			         (int)p->dev[kind][i / 2], o[i] * 1e6, h[i] * 1e6, i % 2 ? "the largest" : "the smallest");
		return;
	}
}

int ccs_split_best(struct ccs_topo *t, const struct ccs_split_in *in, const char *members, struct ccs_split_out *out,
                   char *err, size_t errn)
{
	memset(out, 0, sizeof *out);
	out->kind = -1;
	struct parts p;
	int rc = parts_of(t, in->nodes, &p);
	if (rc) {
		parts_free(&p);
		return rc;
	}
	/* the members, healthy last */
	char *list = ccs_malloc(strlen(members) + 1), *mem[SPLIT_MAX_MEMBERS + 1];
	int nm = 0;
	if (!list)
		rc = -2;
	else {
		strcpy(list, members);
		for (char *s = strtok(list, " "); s && nm < SPLIT_MAX_MEMBERS; s = strtok(NULL, " "))
			mem[nm++] = s;
	}
	double **o[SPLIT_NKINDS];
	memset(o, 0, sizeof o);
	for (int k = 0; k < SPLIT_NKINDS && !rc; k++)
		if (!(o[k] = ccs_calloc((size_t)nm + 1, sizeof *o[k])))
			rc = -2;
	for (int m = 0; m <= nm && !rc; m++) {
		double *v[SPLIT_NKINDS];
		for (int k = 0; k < SPLIT_NKINDS && !rc; k++)
			if (!(v[k] = o[k][m] = ccs_calloc((size_t)width(&p, k) + 1, sizeof *v[k])))
				rc = -2;
		if (!rc)
			rc = outcomes(t, in, m < nm ? mem[m] : NULL, &p, v, err, errn);
		if (rc == -1 && m < nm)
			rc = 0;     /* a member that does not load here: its vectors stay 0 */
	}
	for (int k = 0; k < SPLIT_NKINDS && !rc && nm > 1; k++) {
		int g = groups_of(o[k], nm, width(&p, k));
		if (g > out->groups) {
			out->groups = g;
			out->kind = k;
		}
	}
	out->members = nm;
	if (!rc && out->kind >= 0 && out->groups > 1) {
		say(in, out->kind, &p, out);
		for (int m = 0; m < nm && !out->example[0]; m++)
			example(t, mem[m], out->kind, &p, o[out->kind][m], o[out->kind][nm], out->example, sizeof out->example);
	} else
		out->kind = -1;
	for (int k = 0; k < SPLIT_NKINDS; k++) {
		for (int m = 0; o[k] && m <= nm; m++)
			ccs_free(o[k][m]);
		ccs_free(o[k]);
	}
	ccs_free(list);
	parts_free(&p);
	return rc;
}
