/*
** sim/synth/synth.c: the tree packing by column generation (synth.h).
**
** The routes of all n (n - 1) ordered pairs are read from the fabric once
** (synth_routes.h: the program's capacity rows), and each
** round prices every root's cheapest tree under the duals (all roots up to
** 128 ranks; beyond, the one cheapest over all roots found in one search
** from a super-root, plus a rotating batch), adding each that improves.
*/
#include "synth.h"

#include "synth_arbo.h"
#include "synth_lp.h"
#include "synth_routes.h"

#include "../../model/coll.h"
#include "../../model/nccl_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pk {
	struct ccs_fabric *f;
	const struct ccs_comm *c;
	struct ccs_synth *out;
	int n, nph;                 /* phases: 1 (AllGather or ReduceScatter) or 2 (AllReduce) */
	int ph0;                    /* the first phase's kind: 0 in-trees, 1 out-trees */
	double gap;                 /* stop within this share of the optimum */
	int second;                 /* the second program runs: columns cost their load over capacity */
	int rails;                  /* across groups, only ranks at the same place in their groups (a rail) */
	int chains;                 /* the first trees are chains along rings (rings()) */
	int a2a;                    /* AllToAll: columns are paths of one commodity (s, d), direct or by one relay */
	int *col_dst;               /* per column: its commodity's destination (AllToAll), -1 for a tree */
	int32_t *pos;               /* per rank: its place in its group */
	double *col_cost;           /* per column: sum_e a(e) / cap_e */
	struct ccs_synth_routes r;  /* the program's rows (synth_routes.h) */
	struct ccs_synth_lp *lp;
	/* columns: root and phase, parent per rank (ncol x n) */
	int ncol, colcap;
	int *col_root, *col_ph;
	int32_t *col_par;
	/* pricing scratch */
	int m;
	int32_t *eu, *ev, *sel;
	double *ew, *k, *y, *p, *a;
	int *arow;
	double *acc;
};

/* The kind of tree of phase index ph: 0 in-tree, 1 out-tree. */
static int kind_of(const struct pk *P, int ph)
{
	return P->nph == 2 ? ph : P->ph0;
}

/* The pair a tree edge (parent q of v) moves data over. */
static size_t edge_pair(const struct pk *P, int kind, int q, int v)
{
	return kind ? (size_t)q * (size_t)P->n + (size_t)v : (size_t)v * (size_t)P->n + (size_t)q;
}

/* The program's row of a column's group: a root and phase, or an
 * AllToAll commodity (s, d). */
static int group_of(const struct pk *P, int r, int ph, int dst)
{
	return P->a2a ? r * (P->n - 1) + (dst < r ? dst : dst - 1) : ph * P->n + r;
}

/* A tree's load (parent per rank, -2 for a rank it leaves out): per row
 * it crosses, the share of its bytes there, gathered in P->acc with the
 * rows in P->arow; returns how many rows (the caller clears P->acc). */
static int tree_load(struct pk *P, int r, int kind, const int32_t *par)
{
	int nz = 0;
	for (int v = 0; v < P->n; v++) {
		if (v == r || par[v] < 0)
			continue;
		size_t pi = edge_pair(P, kind, par[v], v);
		for (uint32_t i = P->r.start[pi]; i < P->r.start[pi + 1]; i++) {
			int e = P->r.row[i];
			if (P->acc[e] == 0)
				P->arow[nz++] = e;
			P->acc[e] += P->r.sh[i];
		}
	}
	return nz;
}

/* Add a tree (parent per rank, -2 for a rank it leaves out: an AllToAll
 * path) of root r and phase index ph (AllToAll: to dst) as a column. */
static int add_col(struct pk *P, int r, int ph, int dst, const int32_t *par)
{
	int n = P->n, nz = tree_load(P, r, kind_of(P, ph), par);
	double cost = 0;
	for (int i = 0; i < nz; i++) {
		P->a[i] = P->acc[P->arow[i]];
		P->acc[P->arow[i]] = 0;
		cost += P->a[i] / P->r.cap[P->arow[i]];
	}
	if (P->ncol == P->colcap) {
		int nc = P->colcap ? P->colcap * 2 : 64;
		int *cr = ccs_realloc(P->col_root, (size_t)nc * sizeof *cr);
		if (cr)
			P->col_root = cr;
		int *cp = cr ? ccs_realloc(P->col_ph, (size_t)nc * sizeof *cp) : NULL;
		if (cp)
			P->col_ph = cp;
		int32_t *pp = cp ? ccs_realloc(P->col_par, (size_t)nc * (size_t)n * sizeof *pp) : NULL;
		if (pp)
			P->col_par = pp;
		double *cc = pp ? ccs_realloc(P->col_cost, (size_t)nc * sizeof *cc) : NULL;
		if (cc)
			P->col_cost = cc;
		int *cd = cc ? ccs_realloc(P->col_dst, (size_t)nc * sizeof *cd) : NULL;
		if (!cd)
			return CCS_ENOMEM;
		P->col_dst = cd;
		P->colcap = nc;
	}
	int j;
	CCS_TRY(ccs_synth_lp_add(P->lp, group_of(P, r, ph, dst), nz, P->arow, P->a, P->second ? cost : 0, &j));
	P->col_cost[P->ncol] = cost;
	P->col_dst[P->ncol] = dst;
	P->col_root[P->ncol] = r;
	P->col_ph[P->ncol] = ph;
	memcpy(P->col_par + (size_t)P->ncol * (size_t)n, par, (size_t)n * sizeof *par);
	P->ncol++;
	return CCS_OK;
}

/* The pricing graph of phase index ph under the costs k (per pair): edge
 * q -> v for every pair, costing what the pair it moves over costs; with
 * super 1 also node n and its edges n -> r costing big - y(ph, r). */
static void pricing_edges(struct pk *P, int ph, int super, double big)
{
	int n = P->n, kind = kind_of(P, ph);
	const int32_t *grp = P->c->rank_group;
	/* beyond 128 ranks the search keeps to the rails (a group's own ranks
	 * and its peers at the same place elsewhere): n (n - 1) edges a search
	 * cost 96% of a 512-rank packing's time */
	int rails = P->rails || n > 128;
	P->m = 0;
	for (int q = 0; q < n; q++)
		for (int v = 0; v < n; v++)
			if (q != v && (!rails || grp[q] == grp[v] || P->pos[q] == P->pos[v])) {
				P->eu[P->m] = q;
				P->ev[P->m] = v;
				P->ew[P->m++] = P->k[edge_pair(P, kind, q, v)];
			}
	if (super)
		for (int r = 0; r < n; r++) {
			P->eu[P->m] = n;
			P->ev[P->m] = r;
			P->ew[P->m++] = big - P->y[ph * n + r];
		}
}

/* One tree per root tried (or the best over all roots and a batch);
 * *added the columns that improve; *lb what the most negative reduced
 * costs take from the program's value at most (the Lagrangian bound: each
 * root's shares sum to one, so tau + sum_r min(0, min_T rc(r, T)) is a
 * lower bound on the optimum; with a batch, n times the best over all
 * roots). */
/* AllToAll's pricing: commodity (s, d)'s cheapest path, direct or by one
 * relay m (cost k(s, m) + k(m, d)), against its dual; *lb the sum of the
 * negative reduced costs (its Lagrangian bound, as for trees). */
static int price_paths(struct pk *P, int *added, double *lb)
{
	int n = P->n;
	for (int a = 0; a < n; a++)
		for (int d = 0; d < n; d++) {
			if (a == d)
				continue;
			double best = P->k[(size_t)a * (size_t)n + (size_t)d];
			int via = -1;
			for (int m = 0; m < n; m++) {
				if (m == a || m == d)
					continue;
				double c = P->k[(size_t)a * (size_t)n + (size_t)m] + P->k[(size_t)m * (size_t)n + (size_t)d];
				if (c < best) {
					best = c;
					via = m;
				}
			}
			double y = P->y[group_of(P, a, 0, d)];
			if (best - y < 0)
				*lb += best - y;
			if (best - y < -1e-9 * (1 + fabs(y))) {
				for (int v = 0; v < n; v++)
					P->sel[v] = -2;
				P->sel[a] = -1;
				P->sel[d] = via >= 0 ? via : a;
				if (via >= 0)
					P->sel[via] = a;
				CCS_TRY(add_col(P, a, 0, d, P->sel));
				(*added)++;
			}
		}
	return CCS_OK;
}

static int price(struct pk *P, int round, int *added, double *lb)
{
	int n = P->n;
	*added = 0;
	*lb = 0;
	for (size_t pi = 0; pi < (size_t)n * (size_t)n; pi++) {
		double s = 0;
		for (uint32_t i = P->r.start[pi]; i < P->r.start[pi + 1]; i++)
			s += (P->p[P->r.row[i]] + (P->second ? 1 / P->r.cap[P->r.row[i]] : 0)) * P->r.sh[i];
		P->k[pi] = s;
	}
	if (P->a2a)
		return price_paths(P, added, lb);
	for (int ph = 0; ph < P->nph; ph++) {
		int all = n <= 128, batch = all ? n : 8;
		if (!all) {
			double big = 1, ymax = 0;
			for (size_t pi = 0; pi < (size_t)n * (size_t)n; pi++)
				big += P->k[pi];
			for (int r = 0; r < n; r++)
				ymax = fabs(P->y[ph * n + r]) > ymax ? fabs(P->y[ph * n + r]) : ymax;
			big += 2 * ymax;
			pricing_edges(P, ph, 1, big);
			double cost;
			CCS_TRY(ccs_synth_arbo(n + 1, n, P->m, P->eu, P->ev, P->ew, P->sel, &cost));
			int r = -1;
			for (int v = 0; v < n; v++)
				if (P->eu[P->sel[v]] == n)
					r = v;
			if (r >= 0 && cost - big < 0)
				*lb += n * (cost - big);
			if (r >= 0 && cost - big < -1e-9 * (1 + fabs(P->y[ph * n + r]))) {
				int32_t *par = P->sel;   /* parents in place */
				for (int v = 0; v < n; v++)
					par[v] = v == r ? -1 : P->eu[P->sel[v]];
				CCS_TRY(add_col(P, r, ph, -1, par));
				(*added)++;
			}
		}
		pricing_edges(P, ph, 0, 0);
		for (int b = 0; b < batch; b++) {
			int r = all ? b : (int)(((long)round * batch + b) % n);
			double cost;
			CCS_TRY(ccs_synth_arbo(n, r, P->m, P->eu, P->ev, P->ew, P->sel, &cost));
			double y = P->y[ph * n + r];
			if (all && cost - y < 0)
				*lb += cost - y;
			if (cost - y < -1e-9 * (1 + fabs(y))) {
				int32_t *par = P->sel;
				for (int v = 0; v < n; v++)
					par[v] = v == r ? -1 : P->eu[P->sel[v]];
				CCS_TRY(add_col(P, r, ph, -1, par));
				(*added)++;
			}
		}
	}
	return CCS_OK;
}

/* The rings candidate's trees: ring c visits the groups in order, group i
 * from its member at place (c - i) mod size on, so that it leaves group i
 * and enters group i + 1 at ranks of the same place (one rail); one
 * ring per place of the largest group, at most 8; each root's chain along
 * each ring a column (the program weighs them). */
static int rings(struct pk *P, const int32_t *gstart, const int32_t *members, int32_t *par)
{
	int n = P->n, L = 0, rc = CCS_OK;
	for (int g = 0; g < P->c->G; g++)
		L = gstart[g + 1] - gstart[g] > L ? gstart[g + 1] - gstart[g] : L;
	L = L > 8 ? 8 : L;
	int32_t *cyc = ccs_malloc((size_t)n * sizeof *cyc), *at = ccs_malloc((size_t)n * sizeof *at);
	if (!cyc || !at)
		rc = CCS_ENOMEM;
	for (int c = 0; c < L && !rc; c++) {
		int k = 0;
		for (int g = 0; g < P->c->G; g++) {
			int size = gstart[g + 1] - gstart[g], first = ((c - g) % size + size) % size;
			for (int j = 0; j < size; j++)
				cyc[k++] = members[gstart[g] + (first + j) % size];
		}
		for (int i = 0; i < n; i++)
			at[cyc[i]] = i;
		for (int ph = 0; ph < P->nph && !rc; ph++)
			for (int r = 0; r < n && !rc; r++) {
				for (int i = 0; i < n; i++)
					par[cyc[(at[r] + i) % n]] = i ? cyc[(at[r] + i - 1) % n] : -1;
				rc = add_col(P, r, ph, -1, par);
			}
	}
	ccs_free(cyc);
	ccs_free(at);
	return rc;
}

static int setup(struct pk *P, char *err, size_t errn)
{
	int n = P->n;
	CCS_TRY(ccs_synth_routes_read(P->f, P->c, &P->r, P->out->hop_sB, P->out->hop_lat, err, errn));
	size_t m = (size_t)n * (size_t)n + 1;
	P->eu = ccs_malloc(m * sizeof *P->eu);
	P->ev = ccs_malloc(m * sizeof *P->ev);
	P->ew = ccs_malloc(m * sizeof *P->ew);
	P->sel = ccs_malloc(((size_t)n + 2) * sizeof *P->sel);
	P->k = ccs_malloc(m * sizeof *P->k);
	P->y = ccs_calloc((size_t)(2 * n + 1), sizeof *P->y);
	P->p = ccs_calloc((size_t)P->r.nrow + 1, sizeof *P->p);
	P->a = ccs_malloc(((size_t)P->r.nrow + 1) * sizeof *P->a);
	P->arow = ccs_malloc(((size_t)P->r.nrow + 1) * sizeof *P->arow);
	P->acc = ccs_calloc((size_t)P->r.nrow + 1, sizeof *P->acc);
	if (!P->eu || !P->ev || !P->ew || !P->sel || !P->k || !P->y || !P->p || !P->a || !P->arow || !P->acc)
		return CCS_ENOMEM;
	int ngroups = P->a2a ? n * (n - 1) : P->nph * n;
	ccs_free(P->y);
	if (!(P->y = ccs_calloc((size_t)ngroups + 1, sizeof *P->y)))
		return CCS_ENOMEM;
	CCS_TRY(ccs_synth_lp_new(ngroups, P->r.nrow, P->r.cap, &P->lp));
	if (P->a2a) {
		/* the first path of every commodity: direct */
		int rc = CCS_OK;
		for (int a = 0; a < n && !rc; a++)
			for (int d = 0; d < n && !rc; d++) {
				if (a == d)
					continue;
				for (int v = 0; v < n; v++)
					P->sel[v] = -2;
				P->sel[a] = -1;
				P->sel[d] = a;
				rc = add_col(P, a, 0, d, P->sel);
			}
		return rc;
	}
	/* a first tree per root and phase, two levels deep: the root to the
	 * ranks of its group and to one rank of each other group (the one at
	 * its own place in the group, as a rail would pair them), each of
	 * which to the rest of its group; or (chains) each root's chain along
	 * rings that cross groups on rails (rings()) */
	int32_t *par = ccs_malloc((size_t)n * sizeof *par), *gstart = NULL, *members = NULL;
	int32_t *pos = P->pos = ccs_malloc((size_t)n * sizeof *pos);
	if (!par || !pos || ccs_comm_members(P->c, &gstart, &members)) {
		ccs_free(par);
		return CCS_ENOMEM;
	}
	for (int g = 0; g < P->c->G; g++)
		for (int i = gstart[g]; i < gstart[g + 1]; i++)
			pos[members[i]] = i - gstart[g];
	int rc = P->chains ? rings(P, gstart, members, par) : CCS_OK;
	for (int ph = 0; ph < P->nph && !rc && !P->chains; ph++)
		for (int r = 0; r < n && !rc; r++) {
			int gr = P->c->rank_group[r];
			for (int v = 0; v < n; v++) {
				int g = P->c->rank_group[v], size = gstart[g + 1] - gstart[g];
				int head = members[gstart[g] + pos[r] % size];
				par[v] = v == r ? -1 : g == gr || v == head ? r : head;
			}
			rc = add_col(P, r, ph, -1, par);
		}
	ccs_free(par);
	ccs_free(gstart);
	ccs_free(members);
	return rc;
}

static void pk_release(struct pk *P)
{
	ccs_synth_lp_free(P->lp);
	ccs_synth_routes_release(&P->r);
	ccs_free(P->col_root);
	ccs_free(P->col_ph);
	ccs_free(P->col_par);
	ccs_free(P->col_cost);
	ccs_free(P->col_dst);
	ccs_free(P->pos);
	ccs_free(P->eu);
	ccs_free(P->ev);
	ccs_free(P->ew);
	ccs_free(P->sel);
	ccs_free(P->k);
	ccs_free(P->y);
	ccs_free(P->p);
	ccs_free(P->a);
	ccs_free(P->arow);
	ccs_free(P->acc);
}

/* The load per row of shares w per column (over the shard) and the
 * busiest row's time for a shard of `shard` bytes; *busy that row. */
static double bound_of(struct pk *P, const double *w, double shard, int *busy)
{
	double *load = ccs_calloc((size_t)P->r.nrow + 1, sizeof *load);
	if (!load)
		return HUGE_VAL;
	int n = P->n;
	for (int j = 0; j < P->ncol; j++) {
		if (!(w[j] > 0))
			continue;
		int r = P->col_root[j], kind = kind_of(P, P->col_ph[j]);
		const int32_t *par = P->col_par + (size_t)j * (size_t)n;
		for (int v = 0; v < n; v++) {
			if (v == r || par[v] < 0)
				continue;
			size_t pi = edge_pair(P, kind, par[v], v);
			for (uint32_t i = P->r.start[pi]; i < P->r.start[pi + 1]; i++)
				load[P->r.row[i]] += w[j] * P->r.sh[i];
		}
	}
	double t = 0;
	*busy = 0;
	for (int e = 0; e < P->r.nrow; e++) {
		double te = load[e] * shard / (P->r.cap[e] * P->r.capmax);
		if (te > t) {
			t = te;
			*busy = e;
		}
	}
	ccs_free(load);
	return t;
}

/* The trees with a share into out, each with its load per fabric resource. */
static int keep_trees(struct pk *P, const double *x, struct ccs_synth *out)
{
	int n = P->n, nt = 0;
	for (int j = 0; j < P->ncol; j++)
		nt += x[j] > 1e-9;
	out->tree = ccs_calloc((size_t)nt + 1, sizeof *out->tree);
	if (!out->tree)
		return CCS_ENOMEM;
	for (int j = 0; j < P->ncol; j++) {
		if (!(x[j] > 1e-9))
			continue;
		struct ccs_synth_tree *t = &out->tree[out->ntree++];
		int r = P->col_root[j], kind = kind_of(P, P->col_ph[j]);
		const int32_t *par = P->col_par + (size_t)j * (size_t)n;
		t->root = r;
		t->phase = kind;
		t->dst = P->col_dst[j];
		t->w = x[j];
		int nz = tree_load(P, r, kind, par);
		t->parent = ccs_malloc((size_t)n * sizeof *t->parent);
		t->res = ccs_malloc(((size_t)nz + 1) * sizeof *t->res);
		t->load = ccs_malloc(((size_t)nz + 1) * sizeof *t->load);
		for (int i = 0; i < nz; i++) {
			if (t->res && t->load) {
				t->res[i] = P->r.row_res[P->arow[i]];
				t->load[i] = P->acc[P->arow[i]];
			}
			P->acc[P->arow[i]] = 0;
		}
		if (!t->parent || !t->res || !t->load)
			return CCS_ENOMEM;
		t->nl = nz;
		memcpy(t->parent, par, (size_t)n * sizeof *t->parent);
	}
	return CCS_OK;
}

/* Column generation to the optimum (or the round limit), from the LP's
 * current columns; *obj its value at the end. */
static int rounds(struct pk *P, int max_iter, struct ccs_synth *out, double *obj, int *iters, char *err, size_t errn)
{
	double tau;
	for (*iters = 0;; (*iters)++) {
		CCS_TRY(ccs_synth_lp_solve(P->lp, &tau, P->y, P->p, err, errn));
		*obj = P->second ? ccs_synth_lp_obj(P->lp) : tau;
		if (*iters >= max_iter)
			break;
		int added;
		double lb;
		CCS_TRY(price(P, *iters, &added, &lb));
		out->gap = *obj > 0 ? -lb / *obj : 0;
		if (!added) {
			out->converged = 1;
			out->gap = 0;
			break;
		}
		if (out->gap <= P->gap) {
			out->converged = 2;
			break;
		}
	}
	return CCS_OK;
}

/* The first program (the least tau), then (up to 128 ranks: beyond, each
 * simplex solve is what the time goes to) among its optimal packings the
 * one that moves the least in all, counted as time on each resource:
 * the trees that cross the fewest and fastest resources (a tree that
 * crosses the network once where another crosses it three times for the
 * same bound), which the simulator then realises best. */
static int generate(struct pk *P, int max_iter, struct ccs_synth *out, double *tau, char *err, size_t errn)
{
	int it1, it2 = 0;
	double obj;
	CCS_TRY(rounds(P, max_iter, out, tau, &it1, err, errn));
	out->iters = it1;
	if (max_iter > 0 && out->converged && P->n <= 128) {
		int conv = out->converged;
		double gap = out->gap;
		P->second = 1;
		ccs_synth_lp_second(P->lp, *tau * (1 + 1e-6), P->col_cost);
		CCS_TRY(rounds(P, max_iter, out, &obj, &it2, err, errn));
		out->iters += it2;
		out->converged = conv;
		out->gap = gap;
	}
	return CCS_OK;
}

/* Each rank's own NICs (s->nic_own): where GPUs share NICs (aws-p5en: two
 * GPUs and four NICs behind one PCIe switch), as NCCL gives each GPU its
 * NICs, the ranks take them in turn, each its first NIC in its own order
 * that none has taken yet, until none is left; a rank's chunks across
 * groups then go over its own, so that fewer blocks share each NIC and
 * each lands its chunks in smaller waves (synth_plan.c edge_ch). */
static int own_nics(const struct ccs_comm *c, struct ccs_synth *s)
{
	int n = c->n;
	uint32_t top = 0;
	s->nic_own = ccs_calloc((size_t)n + 1, 1);
	if (!s->nic_own)
		return CCS_ENOMEM;
	for (int r = 0; r < n; r++)
		for (int i = 0; i < s->nics[r] && i < 8; i++)
			top = ccs_comm_nic(c, r, i) + 1 > top ? ccs_comm_nic(c, r, i) + 1 : top;
	uint8_t *taken = ccs_calloc((size_t)top + 1, 1);
	if (!taken)
		return CCS_ENOMEM;
	for (int more = 1; more;) {
		more = 0;
		for (int r = 0; r < n; r++)
			for (int i = 0; i < s->nics[r] && i < 8; i++)
				if (!taken[ccs_comm_nic(c, r, i)]) {
					taken[ccs_comm_nic(c, r, i)] = 1;
					s->nic_own[r] |= (uint8_t)(1u << i);
					more = 1;
					break;
				}
	}
	ccs_free(taken);
	return CCS_OK;
}

int ccs_synth_pack(struct ccs_fabric *f, const struct ccs_comm *c, const struct ccs_synth_cfg *cfg, struct ccs_synth *out,
                   char *err, size_t errn)
{
	memset(out, 0, sizeof *out);
	struct pk P;
	memset(&P, 0, sizeof P);
	P.f = f;
	P.c = c;
	P.out = out;
	P.gap = cfg->gap > 0 ? cfg->gap : 0.005;
	P.rails = cfg->rails;
	P.chains = cfg->chains;
	P.n = c->n;
	if (cfg->coll != CCS_COLL_ALLGATHER && cfg->coll != CCS_COLL_REDUCESCATTER && cfg->coll != CCS_COLL_ALLREDUCE &&
	    cfg->coll != CCS_COLL_ALLTOALL) {
		snprintf(err, errn, "synthesis makes allgather, reducescatter, allreduce and alltoall");
		return CCS_EINPUT;
	}
	if (c->n < 2) {
		snprintf(err, errn, "synthesis needs two ranks or more");
		return CCS_EINPUT;
	}
	P.nph = cfg->coll == CCS_COLL_ALLREDUCE ? 2 : 1;
	P.a2a = cfg->coll == CCS_COLL_ALLTOALL;
	P.ph0 = cfg->coll == CCS_COLL_ALLGATHER || P.a2a;
	out->n = c->n;
	out->coll = cfg->coll;
	out->bytes = cfg->bytes;
	out->group = ccs_malloc((size_t)c->n * sizeof *out->group);
	out->nics = ccs_malloc((size_t)c->n * sizeof *out->nics);
	out->hop_lat = ccs_calloc((size_t)c->n * (size_t)c->n, sizeof *out->hop_lat);
	out->hop_sB = ccs_calloc((size_t)c->n * (size_t)c->n, sizeof *out->hop_sB);
	if (!out->group || !out->nics || !out->hop_lat || !out->hop_sB) {
		ccs_synth_release(out);
		snprintf(err, errn, "out of memory");
		return CCS_ENOMEM;
	}
	for (int r = 0; r < c->n; r++) {
		out->group[r] = c->rank_group[r];
		out->nics[r] = ccs_comm_best_nics(c, r);
	}
	if (own_nics(c, out)) {
		ccs_synth_release(out);
		snprintf(err, errn, "out of memory");
		return CCS_ENOMEM;
	}
	double tau, *x = NULL;
	int busy = 0;
	int rc = setup(&P, err, errn);
	if (!rc)
		rc = generate(&P, cfg->max_iter > 0 ? cfg->max_iter : cfg->max_iter < 0 ? 0 : c->n > 128 ? 60 : 400, out, &tau, err,
		              errn);
	if (rc)
		goto out;
	rc = CCS_ENOMEM;
	if (!(x = ccs_malloc(((size_t)P.ncol + 1) * sizeof *x)))
		goto out;
	for (int j = 0; j < P.ncol; j++)
		x[j] = ccs_synth_lp_x(P.lp, j);
	out->lp_s = bound_of(&P, x, cfg->bytes / c->n, &busy);
	out->bottleneck = P.r.row_res[busy];
	out->cols = P.ncol;
	rc = keep_trees(&P, x, out);
out:
	if (rc == CCS_ENOMEM)
		snprintf(err, errn, "out of memory");
	ccs_free(x);
	pk_release(&P);
	if (rc)
		ccs_synth_release(out);
	return rc;
}

void ccs_synth_release(struct ccs_synth *s)
{
	for (int i = 0; i < s->ntree; i++) {
		ccs_free(s->tree[i].parent);
		ccs_free(s->tree[i].res);
		ccs_free(s->tree[i].load);
	}
	ccs_free(s->tree);
	ccs_free(s->group);
	ccs_free(s->nics);
	ccs_free(s->nic_own);
	s->nic_own = NULL;
	ccs_free(s->hop_lat);
	ccs_free(s->hop_sB);
	s->group = s->nics = NULL;
	s->hop_lat = s->hop_sB = NULL;
	s->tree = NULL;
	s->ntree = 0;
}

void ccs_synth_slot(const struct ccs_synth *s, int u, int32_t *off, int32_t *cnt)
{
	int L = s->L, R = s->U - 2 * L;
	if (!L) {
		*off = u;
		*cnt = 1;
	} else if (u <= L) {   /* the first chunk: 1, 1, 2, ..., 2^(L-1) */
		*off = u ? 1 << (u - 1) : 0;
		*cnt = u ? 1 << (u - 1) : 1;
	} else if (u < R + L - 1) {   /* whole chunks of 2^L */
		*off = (u - L) << L;
		*cnt = 1 << L;
	} else {   /* the last: 2^(L-1), ..., 2, 1, 1 */
		int t = u - (R + L - 1);
		*off = (R << L) - (1 << (L - t));
		*cnt = t < L ? 1 << (L - 1 - t) : 1;
	}
}

/* Where slot u starts (s->U: the shard's end). */
static int32_t slot_start(const struct ccs_synth *s, int u)
{
	int32_t off, cnt;
	if (u >= s->U)
		return s->K;
	ccs_synth_slot(s, u, &off, &cnt);
	return off;
}

/* The shares of root's trees of a phase (AllToAll: of commodity (root,
 * dst)) rounded into K chunks, largest remainders first; then each tree's
 * chunks end at the slot boundary nearest where they would (trees in
 * turn), and its chunks count slots. */
static void round_group(struct ccs_synth *s, int root, int phase, int dst, int K)
{
	int left = K;
	for (int j = 0; j < s->ntree; j++)
		if (s->tree[j].root == root && s->tree[j].phase == phase && s->tree[j].dst == dst) {
			s->tree[j].chunks = (int)floor(s->tree[j].w * K + 1e-9);
			left -= s->tree[j].chunks;
		}
	for (; left > 0; left--) {
		int best = -1;
		double bx = -1;
		for (int j = 0; j < s->ntree; j++) {
			const struct ccs_synth_tree *t = &s->tree[j];
			double rem = t->w * K - t->chunks;
			if (t->root == root && t->phase == phase && t->dst == dst && rem > bx) {
				bx = rem;
				best = j;
			}
		}
		if (best < 0)
			break;
		s->tree[best].chunks++;
	}
	int32_t end = 0;
	for (int j = 0, u = 0; j < s->ntree; j++) {
		struct ccs_synth_tree *t = &s->tree[j];
		if (t->root != root || t->phase != phase || t->dst != dst)
			continue;
		end += t->chunks;
		int v = u;
		while (v < s->U && abs(slot_start(s, v + 1) - end) <= abs(slot_start(s, v) - end))
			v++;
		t->fine = slot_start(s, v) - slot_start(s, u);
		t->chunks = v - u;
		u = v;
	}
}

double ccs_synth_ops(int coll, int n, int K)
{
	double per = coll == CCS_COLL_REDUCESCATTER ? 4 : coll == CCS_COLL_ALLREDUCE ? 6 : 2;
	return per * n * (n - 1.0) * K;
}

void ccs_synth_chunk(struct ccs_synth *s, const double *caps, uint32_t nres, double bytes, int K, int C)
{
	double shard = bytes / s->n;
	if (K <= 0) {
		/* a chunk per 64 KiB of shard, at most 64, and at most the 2^20
		 * ops of a schedule ccsim reads (CCS_SYNTH_MAX_OPS; n (n - 1) K
		 * transfers a phase, each a send and a recv, an in-tree's a
		 * reduce and a copy too).  A chunk is forwarded once it has
		 * arrived, so where the forwarding links are nearly as busy as
		 * the network (aws-p5en's NVLink at 96% of its NICs in
		 * AllGather), they wait for the first chunks to arrive and are
		 * behind by that much at the end: about two chunk times, 2/K of
		 * the run; with a send's latency after its bytes
		 * (sim/sched/file.c) more chunks cost no serial latency */
		K = (int)floor(shard / (64.0 * 1024.0));
		int most = (int)(CCS_SYNTH_MAX_OPS / ccs_synth_ops(s->coll, s->n, 1));
		if (s->grade && most - 2 * CCS_SYNTH_GRADE >= 2)
			most -= 2 * CCS_SYNTH_GRADE;   /* the slots graded ends add */
		K = K > most ? most : K;
		K = K < 1 ? 1 : K > 64 ? 64 : K;
	}
	s->L = s->grade && K >= 2 && ccs_synth_ops(s->coll, s->n, K + 2 * CCS_SYNTH_GRADE) <= CCS_SYNTH_MAX_OPS
	     ? CCS_SYNTH_GRADE : 0;
	s->U = K + 2 * s->L;
	if (C <= 0)
		C = s->cin > 0 && s->cin < s->U ? s->cin : s->U > CCS_SYNTH_MSCCL_CHANS ? CCS_SYNTH_MSCCL_CHANS : s->U;
	s->K = K << s->L;
	s->C = C;
	s->bytes_lowered = bytes;
	K = s->K;
	for (int r = 0; r < s->n; r++)
		if (s->coll == CCS_COLL_ALLTOALL)
			for (int d = 0; d < s->n; d++)
				round_group(s, r, 1, d, K);
		else
			for (int ph = 0; ph < 2; ph++)
				round_group(s, r, ph, -1, K);
	/* the rounded shares' busiest resource */
	s->round_s = HUGE_VAL;
	double *load = ccs_calloc((size_t)nres + 1, sizeof *load);
	if (!load)
		return;
	for (int j = 0; j < s->ntree; j++)
		for (int i = 0; i < s->tree[j].nl; i++)
			load[s->tree[j].res[i]] += (double)s->tree[j].fine / K * s->tree[j].load[i];
	s->round_s = 0;
	for (uint32_t e = 0; e < nres; e++)
		if (load[e] > 0 && load[e] * shard / caps[e] > s->round_s)
			s->round_s = load[e] * shard / caps[e];
	ccs_free(load);
}
