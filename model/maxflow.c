/* model/maxflow.c: Dinic max-flow (maxflow.h). */
#include "maxflow.h"

#include <math.h>
#include <string.h>

int ccs_maxflow_add(struct ccs_maxflow *f, uint32_t u, uint32_t v, double cuv, double cvu)
{
	if (f->ne == f->ecap) {
		size_t nc = f->ecap ? f->ecap * 2 : 1024;
		uint32_t *a = ccs_realloc(f->eu, nc * sizeof *a);
		if (!a)
			return CCS_ENOMEM;
		f->eu = a;
		uint32_t *b = ccs_realloc(f->ev, nc * sizeof *b);
		if (!b)
			return CCS_ENOMEM;
		f->ev = b;
		double *c = ccs_realloc(f->c, 2 * nc * sizeof *c);
		if (!c)
			return CCS_ENOMEM;
		f->c = c;
		double *c0 = ccs_realloc(f->c0, 2 * nc * sizeof *c0);
		if (!c0)
			return CCS_ENOMEM;
		f->c0 = c0;
		f->ecap = nc;
	}
	f->eu[f->ne] = u;
	f->ev[f->ne] = v;
	f->c[2 * f->ne] = f->c0[2 * f->ne] = cuv;
	f->c[2 * f->ne + 1] = f->c0[2 * f->ne + 1] = cvu;
	f->ne++;
	return CCS_OK;
}

void ccs_maxflow_release(struct ccs_maxflow *f)
{
	ccs_free(f->eu);
	ccs_free(f->ev);
	ccs_free(f->c);
	ccs_free(f->c0);
	ccs_free(f->off);
	ccs_free(f->arcs);
	memset(f, 0, sizeof *f);
}

static inline uint32_t arc_head(const struct ccs_maxflow *f, uint32_t a)
{
	return (a & 1) ? f->eu[a >> 1] : f->ev[a >> 1];
}

static inline uint32_t arc_tail(const struct ccs_maxflow *f, uint32_t a)
{
	return (a & 1) ? f->ev[a >> 1] : f->eu[a >> 1];
}

/* Dinic's algorithm (maxflow.h): BFS levels, then blocking flows along
 * them, until t is out of reach.  One idea: the phases share the CSR,
 * levels and iterators built here, and split they would only pass them
 * around. */
int ccs_maxflow_run(struct ccs_maxflow *f, uint32_t s, uint32_t t, double *out)
{
	int rc = CCS_ENOMEM;
	int32_t *level = NULL;
	uint32_t *it = NULL, *queue = NULL, *path = NULL;
	double total = 0, maxc = 0;
	ccs_free(f->off);
	ccs_free(f->arcs);
	f->arcs = NULL;
	f->off = ccs_calloc((size_t)f->nv + 1, sizeof *f->off);
	f->arcs = ccs_malloc(((size_t)f->ne * 2 + 1) * sizeof *f->arcs);
	level = ccs_malloc(((size_t)f->nv + 1) * sizeof *level);
	it = ccs_malloc(((size_t)f->nv + 1) * sizeof *it);
	queue = ccs_malloc(((size_t)f->nv + 1) * sizeof *queue);
	path = ccs_malloc(((size_t)f->nv + 1) * sizeof *path);
	if (!f->off || !f->arcs || !level || !it || !queue || !path)
		goto out;
	for (uint32_t e = 0; e < f->ne; e++) {
		f->off[f->eu[e] + 1]++;
		f->off[f->ev[e] + 1]++;
		if (f->c[2 * e] > maxc) maxc = f->c[2 * e];
		if (f->c[2 * e + 1] > maxc) maxc = f->c[2 * e + 1];
	}
	for (uint32_t v = 0; v < f->nv; v++)
		f->off[v + 1] += f->off[v];
	memcpy(it, f->off, (size_t)f->nv * sizeof *it);
	for (uint32_t e = 0; e < f->ne; e++) {
		f->arcs[it[f->eu[e]]++] = 2 * e;
		f->arcs[it[f->ev[e]]++] = 2 * e + 1;
	}
	const double eps = maxc * 1e-12;
	for (;;) {
		for (uint32_t v = 0; v < f->nv; v++)
			level[v] = -1;
		uint32_t qh = 0, qt = 0;
		level[s] = 0;
		queue[qt++] = s;
		while (qh < qt) {
			uint32_t u = queue[qh++];
			for (uint32_t k = f->off[u]; k < f->off[u + 1]; k++) {
				uint32_t a = f->arcs[k], v = arc_head(f, a);
				if (level[v] < 0 && f->c[a] > eps) {
					level[v] = level[u] + 1;
					queue[qt++] = v;
				}
			}
		}
		if (level[t] < 0)
			break;
		memcpy(it, f->off, (size_t)f->nv * sizeof *it);
		uint32_t np = 0, v = s;
		for (;;) {
			if (v == t) {
				double b = INFINITY;
				uint32_t cut = 0;
				for (uint32_t i = 0; i < np; i++)
					if (f->c[path[i]] < b) {
						b = f->c[path[i]];
						cut = i;
					}
				for (uint32_t i = 0; i < np; i++) {
					f->c[path[i]] -= b;
					f->c[path[i] ^ 1] += b;
				}
				total += b;
				np = cut;
				v = arc_tail(f, path[cut]);
				continue;
			}
			uint32_t k = it[v];
			while (k < f->off[v + 1]) {
				uint32_t a = f->arcs[k], w = arc_head(f, a);
				if (f->c[a] > eps && level[w] == level[v] + 1)
					break;
				k++;
			}
			it[v] = k;
			if (k < f->off[v + 1]) {
				path[np++] = f->arcs[k];
				v = arc_head(f, f->arcs[k]);
				continue;
			}
			level[v] = -1;          /* dead end */
			if (!np)
				break;
			np--;
			v = arc_tail(f, path[np]);
			it[v]++;
		}
	}
	*out = total;
	rc = CCS_OK;
out:
	ccs_free(level);
	ccs_free(it);
	ccs_free(queue);
	ccs_free(path);
	return rc;
}

double ccs_maxflow_flow(const struct ccs_maxflow *f, uint32_t e)
{
	return f->c0[2 * e] - f->c[2 * e];
}

void ccs_maxflow_reset(struct ccs_maxflow *f)
{
	memcpy(f->c, f->c0, (size_t)f->ne * 2 * sizeof *f->c);
}
