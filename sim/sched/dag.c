/* sim/sched/dag.c: explicit schedules, ops in an array and edges between
 * them (sched.h).  Used where ops are not computed from their number:
 * schedule files and the CollNet schedules. */
#include "sched.h"

#include <string.h>

struct ccs_dag {
	struct ccs_op *op;
	uint32_t *ndeps;
	uint64_t *succ;
	uint32_t *soff;             /* succ of op i: succ[soff[i] .. soff[i+1]) */
	uint32_t n;
	size_t cap_op, cap_nd;
	struct { uint32_t from, to; } *e;
	size_t ne, cape;
};

static void dg_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct ccs_dag *d = s->ctx;
	*op = d->op[id];
}

static int dg_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct ccs_dag *d = s->ctx;
	uint32_t a = d->soff[id], b = d->soff[id + 1];
	memcpy(out, d->succ + a, (size_t)(b - a) * sizeof *out);
	return (int)(b - a);
}

static uint32_t dg_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct ccs_dag *d = s->ctx;
	return d->ndeps[id];
}

static void dg_release(struct ccs_sched *s)
{
	ccs_dag_free(s->ctx);
	memset(s, 0, sizeof *s);
}

int ccs_dag_new(struct ccs_dag **out)
{
	*out = ccs_calloc(1, sizeof **out);
	return *out ? CCS_OK : CCS_ENOMEM;
}

void ccs_dag_free(struct ccs_dag *d)
{
	if (!d)
		return;
	ccs_free(d->op);
	ccs_free(d->ndeps);
	ccs_free(d->succ);
	ccs_free(d->soff);
	ccs_free(d->e);
	ccs_free(d);
}

int ccs_dag_op(struct ccs_dag *d, const struct ccs_op *op, uint32_t *id)
{
	CCS_TRY(ccs_grow(&d->op, &d->cap_op, (size_t)d->n + 1, sizeof *d->op));
	CCS_TRY(ccs_grow(&d->ndeps, &d->cap_nd, (size_t)d->n + 1, sizeof *d->ndeps));
	d->op[d->n] = *op;
	d->ndeps[d->n] = 0;
	*id = d->n++;
	return CCS_OK;
}

const struct ccs_op *ccs_dag_at(const struct ccs_dag *d, uint32_t id) { return &d->op[id]; }

int ccs_dag_edge(struct ccs_dag *d, uint32_t from, uint32_t to)
{
	CCS_TRY(ccs_grow(&d->e, &d->cape, d->ne + 1, sizeof *d->e));
	d->e[d->ne].from = from;
	d->e[d->ne].to = to;
	d->ne++;
	d->ndeps[to]++;
	return CCS_OK;
}

int ccs_dag_take(struct ccs_dag **d, struct ccs_sched *s, const char **why)
{
	uint32_t bad;
	int cycle;
	int rc = ccs_dag_install(*d, s, &bad, &cycle);
	if (!rc) {
		*d = NULL;
		return CCS_OK;
	}
	if (rc == CCS_ENOMEM) {
		*why = "out of memory";
		return rc;
	}
	*why = "internal: a generated schedule breaks the schedule limits";
	return CCS_EINTERNAL;
}

static const struct ccs_sched_ops dg_ops = { dg_get, dg_succ, dg_ndeps, dg_release, NULL, NULL };

int ccs_dag_install(struct ccs_dag *d, struct ccs_sched *s, uint32_t *bad, int *cycle)
{
	*cycle = 0;
	ccs_free(d->soff);
	ccs_free(d->succ);
	d->soff = ccs_calloc((size_t)d->n + 2, sizeof *d->soff);
	d->succ = ccs_malloc((d->ne + 1) * sizeof *d->succ);
	uint32_t *fill = ccs_malloc(((size_t)d->n + 1) * sizeof *fill);
	if (!d->soff || !d->succ || !fill) {
		ccs_free(fill);
		return CCS_ENOMEM;
	}
	for (size_t i = 0; i < d->ne; i++)
		d->soff[d->e[i].from + 1]++;
	for (uint32_t i = 0; i < d->n; i++)
		d->soff[i + 1] += d->soff[i];
	for (uint32_t i = 0; i < d->n; i++)
		if (d->soff[i + 1] - d->soff[i] > CCS_SCHED_MAXSUCC || d->ndeps[i] > 255) {
			*bad = i;
			ccs_free(fill);
			return CCS_EINPUT;
		}
	memcpy(fill, d->soff, (size_t)d->n * sizeof *fill);
	for (size_t i = 0; i < d->ne; i++)
		d->succ[fill[d->e[i].from]++] = d->e[i].to;
	/* cycles (Kahn; fill is free again: the waits left per op) */
	uint32_t *queue = ccs_malloc(((size_t)d->n + 1) * sizeof *queue);
	if (!queue) {
		ccs_free(fill);
		return CCS_ENOMEM;
	}
	uint32_t qh = 0, qt = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		fill[i] = d->ndeps[i];
		if (!fill[i])
			queue[qt++] = i;
	}
	while (qh < qt) {
		uint32_t o = queue[qh++];
		for (uint32_t k = d->soff[o]; k < d->soff[o + 1]; k++)
			if (--fill[d->succ[k]] == 0)
				queue[qt++] = (uint32_t)d->succ[k];
	}
	int rc = CCS_OK;
	if (qt < d->n) {
		for (uint32_t i = 0; i < d->n; i++)
			if (fill[i]) {
				*bad = i;
				break;
			}
		*cycle = 1;
		rc = CCS_EINPUT;
	}
	ccs_free(fill);
	ccs_free(queue);
	if (rc)
		return rc;
	ccs_free(d->e);
	d->e = NULL;
	d->ne = d->cape = 0;
	memset(s, 0, sizeof *s);
	s->ctx = d;
	s->nops = d->n;
	s->ops = &dg_ops;
	return CCS_OK;
}
