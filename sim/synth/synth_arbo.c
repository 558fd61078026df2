/*
** sim/synth/synth_arbo.c: minimum-cost arborescence (synth_arbo.h).
*/
#include "synth_arbo.h"

#include "../../model/ccs.h"

#include <math.h>
#include <string.h>

/* One round's graph: its edges (with the index of the edge of the round
 * before each came from), each node's cheapest entering edge and the node
 * it becomes in the next round. */
struct level {
	int nv, m, root;
	int32_t *u, *v, *prev;
	double *w;
	int32_t *in, *id;
	uint8_t *cyc;               /* the node is on a contracted cycle */
};

static void level_free(struct level *l)
{
	ccs_free(l->u);
	ccs_free(l->v);
	ccs_free(l->prev);
	ccs_free(l->w);
	ccs_free(l->in);
	ccs_free(l->id);
	ccs_free(l->cyc);
}

static int level_alloc(struct level *l, int nv, int m)
{
	memset(l, 0, sizeof *l);
	l->nv = nv;
	l->m = m;
	size_t M = (size_t)m + 1, N = (size_t)nv + 1;
	l->u = ccs_malloc(M * sizeof *l->u);
	l->v = ccs_malloc(M * sizeof *l->v);
	l->prev = ccs_malloc(M * sizeof *l->prev);
	l->w = ccs_malloc(M * sizeof *l->w);
	l->in = ccs_malloc(N * sizeof *l->in);
	l->id = ccs_malloc(N * sizeof *l->id);
	l->cyc = ccs_calloc(N, 1);
	if (!l->u || !l->v || !l->prev || !l->w || !l->in || !l->id || !l->cyc) {
		level_free(l);
		return CCS_ENOMEM;
	}
	return CCS_OK;
}

/* Each node's cheapest entering edge; CCS_EINPUT when one has none. */
static int cheapest(struct level *l)
{
	for (int x = 0; x < l->nv; x++)
		l->in[x] = -1;
	for (int k = 0; k < l->m; k++) {
		int x = l->v[k];
		if (l->u[k] != x && x != l->root && (l->in[x] < 0 || l->w[k] < l->w[l->in[x]]))
			l->in[x] = k;
	}
	for (int x = 0; x < l->nv; x++)
		if (x != l->root && l->in[x] < 0)
			return CCS_EINPUT;
	return CCS_OK;
}

/* Number the next round's nodes: each cycle of cheapest edges one node,
 * every other node its own.  Returns how many; 0 cycles leaves *ncyc 0. */
static int contract_ids(struct level *l, int32_t *seen, int *ncyc)
{
	int cnt = 0;
	*ncyc = 0;
	for (int x = 0; x < l->nv; x++)
		l->id[x] = seen[x] = -1;
	for (int x = 0; x < l->nv; x++) {
		int y = x;
		while (y != l->root && seen[y] != x && l->id[y] < 0) {
			seen[y] = x;
			y = l->u[l->in[y]];
		}
		if (y != l->root && l->id[y] < 0 && seen[y] == x) {
			for (int z = l->u[l->in[y]]; z != y; z = l->u[l->in[z]]) {
				l->id[z] = cnt;
				l->cyc[z] = 1;
			}
			l->id[y] = cnt++;
			l->cyc[y] = 1;
			(*ncyc)++;
		}
	}
	for (int x = 0; x < l->nv; x++)
		if (l->id[x] < 0)
			l->id[x] = cnt++;
	return cnt;
}

/* The next round's graph from l: edges between different nodes, the
 * costs of those entering a cycle lowered by the cycle edge they replace. */
static int next_level(const struct level *l, int nv, struct level *nx)
{
	/* edges into the root are never chosen: left out */
	int m = 0;
	for (int k = 0; k < l->m; k++)
		m += l->id[l->u[k]] != l->id[l->v[k]] && l->v[k] != l->root;
	CCS_TRY(level_alloc(nx, nv, m));
	nx->root = l->id[l->root];
	m = 0;
	for (int k = 0; k < l->m; k++) {
		int a = l->id[l->u[k]], b = l->id[l->v[k]];
		if (a == b || l->v[k] == l->root)
			continue;
		nx->u[m] = a;
		nx->v[m] = b;
		nx->w[m] = l->w[k] - l->w[l->in[l->v[k]]];
		nx->prev[m] = k;
		m++;
	}
	return CCS_OK;
}

/* Undo the contractions: sel holds the last round's choice per node. */
static void expand(struct level *lv, int nl, int32_t *sel, int32_t *tmp)
{
	for (int i = nl - 2; i >= 0; i--) {
		struct level *l = &lv[i], *nx = &lv[i + 1];
		for (int x = 0; x < l->nv; x++)
			tmp[x] = -1;
		for (int X = 0; X < nx->nv; X++)
			if (X != nx->root) {
				int k = nx->prev[sel[X]];
				tmp[l->v[k]] = k;
			}
		for (int x = 0; x < l->nv; x++)
			sel[x] = x == l->root ? -1 : tmp[x] >= 0 ? tmp[x] : l->in[x];
	}
}

int ccs_synth_arbo(int nv, int root, int m, const int32_t *u, const int32_t *v, const double *w, int32_t *sel,
                   double *cost)
{
	int cap = 8, nl = 0, rc;
	struct level *lv = ccs_calloc((size_t)cap, sizeof *lv);
	int32_t *seen = ccs_malloc(((size_t)nv + 1) * sizeof *seen);
	if (!lv || !seen) {
		rc = CCS_ENOMEM;
		goto out;
	}
	if ((rc = level_alloc(&lv[0], nv, m)))
		goto out;
	nl = 1;
	lv[0].root = root;
	memcpy(lv[0].u, u, (size_t)m * sizeof *u);
	memcpy(lv[0].v, v, (size_t)m * sizeof *v);
	memcpy(lv[0].w, w, (size_t)m * sizeof *w);
	for (int k = 0; k < m; k++)
		lv[0].prev[k] = k;
	for (;;) {
		struct level *l = &lv[nl - 1];
		int ncyc;
		if ((rc = cheapest(l)))
			goto out;
		int nn = contract_ids(l, seen, &ncyc);
		if (!ncyc)
			break;
		if (nl == cap) {
			struct level *g = ccs_realloc(lv, (size_t)cap * 2 * sizeof *lv);
			if (!g) {
				rc = CCS_ENOMEM;
				goto out;
			}
			lv = g;
			cap *= 2;
		}
		if ((rc = next_level(&lv[nl - 1], nn, &lv[nl])))
			goto out;
		nl++;
	}
	struct level *top = &lv[nl - 1];
	for (int x = 0; x < top->nv; x++)
		sel[x] = x == top->root ? -1 : top->in[x];
	expand(lv, nl, sel, seen);
	*cost = 0;
	for (int x = 0; x < nv; x++)
		if (x != root)
			*cost += w[sel[x]];
out:
	for (int i = 0; i < nl; i++)
		level_free(&lv[i]);
	ccs_free(lv);
	ccs_free(seen);
	return rc;
}
