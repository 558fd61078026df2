/* sim/classes.c: flow classes by colour refinement (classes.h): the lanes
** loaded, the partition refined (classes_refine.c) and turned into classes
** with their paths and dependencies, and the checks during a run. */
#include "classes.h"
#include "classes_int.h"

#include "../model/ccs.h"

#include <stdlib.h>
#include <string.h>

/* Each lane's op(0), routes (epoch by epoch: env moves the fabric to
 * each) and first colour; *why when a lane has no path. */
static int load_lanes(struct ccs_classes *k, const struct ccs_classes_env *env, const char **why)
{
	for (uint32_t e = 0; e < k->E; e++) {
		if (e)
			CCS_TRY(env->epoch(env->ctx, e, k->ecap + (size_t)(e - 1) * k->nres));
		for (uint32_t l = 0; l < k->L; l++) {
			struct ccs_op op;
			uint64_t id = k->ln.id(k->s, 0, l);
			ccs_sched_get(k->s, id, &op);
			size_t x = (size_t)l * k->E + e;
			int n = 0;
			if (env->route(env->ctx, id, &op, k->route + x * MP, &n)) {
				*why = e ? "a timed fault leaves a lane with no path over live links"
				         : "a lane has no path over live links";
				return CCS_EINPUT;
			}
			for (int i = 0; i < n; i++)
				if (k->route[x * MP + i] >= k->nres)
					return CCS_EINTERNAL;
			k->rn[x] = (uint8_t)n;
			if (e)
				continue;
			double late = env->late_s ? env->late_s(env->ctx, &op) : 0;
			uint64_t h = mix(k->ln.key(k->s, l), op.kind);
			if (k->ln.len) {
				uint64_t n_ops = k->ln.len(k->s, l);
				if (n_ops < 1 || n_ops > k->ln.T)
					return CCS_EINTERNAL;
				h = mix(h, n_ops);
			}
			h = mix(h, op.sm);
			h = mix(h, bits(op.bytes));
			h = mix(h, bits(op.delay_s));
			h = mix(h, bits(op.floor_s));
			k->sig0[l] = mix(h, bits(late));
			for (int j = 0; j < k->ln.ndep; j++) {
				k->pj[j][l] = k->ln.pred(k->s, j, l);
				if (k->pj[j][l] != NONE && k->pj[j][l] >= k->L)
					return CCS_EINTERNAL;
			}
		}
	}
	return CCS_OK;
}

/* Each lane's depth in the dependencies within a step (dt 0) goes into
 * its first colour: classes that wait on each other within a step then
 * form no cycle (each waits only on shallower ones).  CCS_EINPUT when the
 * lanes' own dependencies within a step form one. */
static int depths(struct ccs_classes *k, const char **why)
{
	int any = 0;
	for (int j = 0; j < k->ln.ndep; j++)
		any |= k->ln.dt[j] == 0;
	if (!any)
		return CCS_OK;
	uint32_t *d = ccs_calloc((size_t)k->L + 1, sizeof *d);
	if (!d)
		return CCS_ENOMEM;
	for (uint32_t round = 0, changed = 1; changed; round++) {
		if (round > k->L) {
			ccs_free(d);
			*why = "the lanes' dependencies within a step form a cycle";
			return CCS_EINPUT;
		}
		changed = 0;
		for (uint32_t l = 0; l < k->L; l++)
			for (int j = 0; j < k->ln.ndep; j++) {
				uint32_t p = k->pj[j][l];
				if (!k->ln.dt[j] && p != NONE && d[p] + 1 > d[l]) {
					d[l] = d[p] + 1;
					changed = 1;
				}
			}
	}
	for (uint32_t l = 0; l < k->L; l++)
		k->sig0[l] = mix(k->sig0[l], (uint64_t)d[l] + 0x5eed);
	ccs_free(d);
	return CCS_OK;
}

/* resource -> crossing lanes, one entry per crossing */
static int adjacency(struct ccs_classes *k)
{
	uint32_t *cnt = ccs_calloc((size_t)k->nres + 1, sizeof *cnt);
	if (!cnt)
		return CCS_ENOMEM;
	size_t tot = 0, LE = (size_t)k->L * k->E;
	for (size_t x = 0; x < LE; x++)
		for (int i = 0; i < k->rn[x]; i++, tot++)
			cnt[k->route[x * MP + i] + 1]++;
	for (uint32_t r = 0; r < k->nres; r++)
		cnt[r + 1] += cnt[r];
	k->roff = cnt;
	k->rlanes = ccs_malloc((tot + 1) * sizeof *k->rlanes);
	uint32_t *fill = ccs_malloc(((size_t)k->nres + 1) * sizeof *fill);
	if (!k->rlanes || !fill) {
		ccs_free(fill);
		return CCS_ENOMEM;
	}
	memcpy(fill, cnt, (size_t)k->nres * sizeof *fill);
	for (size_t x = 0; x < LE; x++)
		for (int i = 0; i < k->rn[x]; i++)
			k->rlanes[fill[k->route[x * MP + i]]++] = (uint32_t)x;
	ccs_free(fill);
	return CCS_OK;
}

/* Representatives and member counts, and each class's flow in each
 * epoch: the distinct resource classes on its representative's route,
 * weight b(R, q) the crossings of one member of R by the class's lanes. */
static int paths(struct ccs_classes *k)
{
	size_t QE = (size_t)k->Q * k->E;
	k->rep = ccs_malloc(((size_t)k->Q + 1) * sizeof *k->rep);
	k->nmem = ccs_calloc((size_t)k->Q + 1, sizeof *k->nmem);
	k->rcap = ccs_malloc(((size_t)k->R * k->E + 1) * sizeof *k->rcap);
	k->pres = ccs_malloc((QE + 1) * MP * sizeof *k->pres);
	k->pw = ccs_malloc((QE + 1) * MP * sizeof *k->pw);
	k->pn = ccs_calloc(QE + 1, 1);
	if (!k->rep || !k->nmem || !k->rcap || !k->pres || !k->pw || !k->pn)
		return CCS_ENOMEM;
	if (k->ln.len && !(k->qlen = ccs_malloc(((size_t)k->Q + 1) * sizeof *k->qlen)))
		return CCS_ENOMEM;
	for (uint32_t q = 0; q < k->Q; q++)
		k->rep[q] = NONE;
	for (uint32_t l = 0; l < k->L; l++) {
		if (k->rep[k->lc[l]] == NONE)
			k->rep[k->lc[l]] = l;
		k->nmem[k->lc[l]]++;
	}
	for (uint32_t q = 0; k->qlen && q < k->Q; q++)
		k->qlen[q] = k->ln.len(k->s, k->rep[q]);   /* one per class: it is in the first colour */
	for (size_t qe = 0; qe < QE; qe++) {
		uint32_t q = (uint32_t)(qe / k->E), e = (uint32_t)(qe % k->E);
		int n, m = 0;
		const uint32_t *rt = route_of(k, k->rep[q], e, &n);
		uint32_t *pres = k->pres + qe * MP;
		for (int i = 0; i < n; i++) {
			uint32_t r = rt[i], R = k->rc[r];
			int seen = 0;
			for (int x = 0; x < m && !seen; x++)
				seen = pres[x] == R;
			if (seen)
				continue;
			uint32_t b = 0;
			for (uint32_t x = k->roff[r]; x < k->roff[r + 1]; x++)
				b += crossing(k, k->rlanes[x]) == (uint32_t)qe;
			pres[m] = R;
			k->pw[qe * MP + (size_t)m] = (double)b;
			m++;
		}
		k->pn[qe] = (uint8_t)m;
	}
	return CCS_OK;
}

/* Distinct pairs (from[x], to[x]), x < m, grouped by from, each group in
 * ascending order of to: off (n + 1), list; from and to are classes (< n).
 * Linear in m: the entries are grouped by a count of from, and a stamp per
 * class keeps each group's to distinct. */
static int pairs(const uint32_t *from, const uint32_t *to, uint32_t m, uint32_t n, uint32_t **off_, uint32_t **list_)
{
	uint32_t *off = ccs_calloc((size_t)n + 2, sizeof *off);
	uint32_t *by = ccs_malloc(((size_t)m + 1) * sizeof *by);
	uint32_t *stamp = ccs_malloc(((size_t)n + 1) * sizeof *stamp);
	uint32_t *list = ccs_malloc(((size_t)m + 1) * sizeof *list);
	if (!off || !by || !stamp || !list) {
		ccs_free(off);
		ccs_free(by);
		ccs_free(stamp);
		ccs_free(list);
		return CCS_ENOMEM;
	}
	/* off[f + 2] counts, then off[f + 1] is where group f's entries go */
	for (uint32_t x = 0; x < m; x++)
		off[from[x] + 2]++;
	for (uint32_t f = 0; f < n; f++)
		off[f + 2] += off[f + 1];
	for (uint32_t x = 0; x < m; x++)
		by[off[from[x] + 1]++] = x;
	/* now off[f] .. off[f + 1] holds group f; keep its distinct to */
	for (uint32_t f = 0; f < n; f++)
		stamp[f] = NONE;
	uint32_t k = 0;
	for (uint32_t f = 0, x = 0; f < n; f++) {
		uint32_t start = k;
		for (; x < off[f + 1]; x++) {
			uint32_t t = to[by[x]];
			if (stamp[t] != f) {
				stamp[t] = f;
				list[k++] = t;
			}
		}
		sort_u32(list + start, k - start);
		off[f] = start;
	}
	off[n] = k;
	ccs_free(by);
	ccs_free(stamp);
	*off_ = off;
	*list_ = list;
	return CCS_OK;
}

/* A lane's class and its dependencies' classes, for sorting. */
struct ltup {
	uint32_t q, c[CCS_SCHED_MAXDEPK];
};

/* By class, then by the dependencies' classes (numerically: goff below
 * lays the classes out in order). */
static int cmp_ltup(const void *a, const void *b)
{
	const struct ltup *x = a, *y = b;
	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	for (int j = 0; j < CCS_SCHED_MAXDEPK; j++)
		if (x->c[j] != y->c[j])
			return x->c[j] < y->c[j] ? -1 : 1;
	return 0;
}

/* Each class's distinct dependency tuples (the classes its members'
 * dependencies are in, kind by kind), sorted: goff, tup. */
static int tuples(struct ccs_classes *k)
{
	int nd = k->ln.ndep;
	struct ltup *v = ccs_malloc(((size_t)k->L + 1) * sizeof *v);
	k->goff = ccs_calloc((size_t)k->Q + 1, sizeof *k->goff);
	if (!v || !k->goff) {
		ccs_free(v);
		return CCS_ENOMEM;
	}
	for (uint32_t l = 0; l < k->L; l++) {
		memset(&v[l], 0xff, sizeof v[l]);
		v[l].q = k->lc[l];
		for (int j = 0; j < nd; j++)
			v[l].c[j] = k->pj[j][l] == NONE ? NONE : k->lc[k->pj[j][l]];
	}
	qsort(v, k->L, sizeof *v, cmp_ltup);
	uint32_t m = 0;
	for (uint32_t l = 0; l < k->L; l++)
		if (!l || cmp_ltup(&v[l], &v[m - 1]))
			v[m++] = v[l];
	k->tup = ccs_malloc(((size_t)m * (size_t)(nd > 0 ? nd : 1) + 1) * sizeof *k->tup);
	if (!k->tup) {
		ccs_free(v);
		return CCS_ENOMEM;
	}
	for (uint32_t x = 0; x < m; x++) {
		k->goff[v[x].q + 1]++;
		for (int j = 0; j < nd; j++)
			k->tup[(size_t)x * (size_t)nd + (size_t)j] = v[x].c[j];
	}
	for (uint32_t q = 0; q < k->Q; q++)
		k->goff[q + 1] += k->goff[q];
	ccs_free(v);
	return CCS_OK;
}

/* The class dependency graph: D_j(q) the classes of q's members'
 * dependencies of kind j, S_j(q) the classes that wait on q; and each
 * class's distinct dependency tuples (for ccs_classes_whole). */
static int deps(struct ccs_classes *k)
{
	int nd = k->ln.ndep;
	uint32_t *from = ccs_malloc(((size_t)k->L + 1) * sizeof *from);
	uint32_t *to = ccs_malloc(((size_t)k->L + 1) * sizeof *to);
	int rc = from && to ? CCS_OK : CCS_ENOMEM;
	for (int j = 0; !rc && j < nd; j++) {
		uint32_t m = 0;
		for (uint32_t l = 0; l < k->L; l++)
			if (k->pj[j][l] != NONE) {
				from[m] = k->lc[l];
				to[m++] = k->lc[k->pj[j][l]];
			}
		rc = pairs(from, to, m, k->Q, &k->doff[j], &k->dq[j]);
		if (!rc)
			rc = pairs(to, from, m, k->Q, &k->qoff[j], &k->qs[j]);
	}
	ccs_free(from);
	ccs_free(to);
	return rc ? rc : tuples(k);
}

/* ---- building ---- */

static int alloc_lanes(struct ccs_classes *k)
{
	size_t L = (size_t)k->L + 1, LE = (size_t)k->L * k->E + 1;
	k->route = ccs_malloc(LE * MP * sizeof *k->route);
	k->rn = ccs_calloc(LE, 1);
	if (k->E > 1 && !(k->ecap = ccs_malloc(((size_t)(k->E - 1) * k->nres + 1) * sizeof *k->ecap)))
		return CCS_ENOMEM;
	k->sig0 = ccs_malloc(L * sizeof *k->sig0);
	k->lc = ccs_malloc(L * sizeof *k->lc);
	k->rc = ccs_malloc(((size_t)k->nres + 1) * sizeof *k->rc);
	int bad = !k->route || !k->rn || !k->sig0 || !k->lc || !k->rc;
	for (int j = 0; j < k->ln.ndep; j++)
		bad |= !(k->pj[j] = ccs_malloc(L * sizeof *k->pj[j]));
	return bad ? CCS_ENOMEM : CCS_OK;
}

/* End times, kept only when some class's members wait on different
 * class ops (else every start is whole by construction). */
static int want_done(struct ccs_classes *k)
{
	int need = 0;
	for (uint32_t q = 0; q < k->Q && !need; q++)
		need = k->goff && k->goff[q + 1] - k->goff[q] > 1;
	if (!need)
		return CCS_OK;
	if (k->ln.T > ((uint64_t)1 << 40) / k->Q)
		return CCS_ENOMEM;
	k->done = ccs_malloc((size_t)(k->ln.T * k->Q) * sizeof *k->done);
	if (!k->done)
		return CCS_ENOMEM;
	memset(k->done, 0xff, (size_t)(k->ln.T * k->Q) * sizeof *k->done);   /* -1: not ended */
	return CCS_OK;
}

/* What depends on the partition, freed before it is refined again. */
static void drop_partition(struct ccs_classes *k)
{
	void *v[] = { k->rep, k->nmem, k->rcap, k->pres, k->pw, k->pn, k->goff, k->tup, k->done, k->qlen };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ccs_free(v[i]);
	k->rep = k->nmem = k->pres = k->goff = k->tup = NULL;
	k->qlen = NULL;
	k->rcap = k->pw = NULL;
	k->pn = NULL;
	k->done = NULL;
	for (int j = 0; j < CCS_SCHED_MAXDEPK; j++) {
		void *w[] = { k->doff[j], k->dq[j], k->qoff[j], k->qs[j] };
		for (size_t i = 0; i < 4; i++)
			ccs_free(w[i]);
		k->doff[j] = k->dq[j] = k->qoff[j] = k->qs[j] = NULL;
	}
}

/* The partition from lane colours init (again: after a split, resources
 * from their classes) and what depends on it; *why set (and CCS_OK) when
 * classes do not apply. */
static int partition(struct ccs_classes *k, const uint64_t *init, int again, const char **why)
{
	drop_partition(k);
	int ok;
	CCS_TRY(ccs_classes_refine(k, init, again, &ok));
	if (!ok) {
		*why = k->Q > k->max_q ? "too many classes" : "refinement did not settle";
		return CCS_OK;
	}
	CCS_TRY(paths(k));
	CCS_TRY(ccs_classes_refine_verify(k, &ok));
	if (!ok) {
		*why = "classes not equitable (a hash collision)";
		return CCS_OK;
	}
	CCS_TRY(deps(k));
	return want_done(k);
}

int ccs_classes_new(const struct ccs_sched *s, const struct ccs_classes_env *env, uint32_t max_q,
                    uint32_t max_rounds, struct ccs_classes **out, const char **why)
{
	struct ccs_sched_lanes ln;
	*out = NULL;
	*why = NULL;
	if (!s->ops || !s->ops->lanes || !s->ops->lanes(s, &ln)) {
		*why = "the schedule is not made of lanes";
		return CCS_OK;
	}
	if (ln.ndep < 0 || ln.ndep > CCS_SCHED_MAXDEPK || ln.L < 1 || ln.T < 1) {
		*why = "lanes out of range";
		return CCS_OK;
	}
	if (env->nepochs > 1 && (!env->epoch || (uint64_t)ln.L * env->nepochs >= UINT32_MAX / 2)) {
		*why = env->epoch ? "too many lanes for the timed faults' epochs" : "no way to reach a timed fault's epoch";
		return CCS_OK;
	}
	struct ccs_classes *k = ccs_calloc(1, sizeof *k);
	if (!k)
		return CCS_ENOMEM;
	k->s = s;
	k->ln = ln;
	k->L = ln.L;
	k->nres = env->nres;
	k->cap_of = env->cap;
	k->E = env->nepochs > 1 ? env->nepochs : 1;
	k->max_q = max_q;
	k->max_rounds = max_rounds;
	int rc = alloc_lanes(k);
	if (!rc && !(rc = load_lanes(k, env, why)))
		rc = depths(k, why);
	if (rc == CCS_EINPUT)
		rc = CCS_OK;            /* *why says it */
	else if (!rc && !(rc = adjacency(k))) {
		rc = partition(k, k->sig0, 0, why);
	}
	if (rc || *why) {
		ccs_classes_free(k);
		return rc;
	}
	*out = k;
	return CCS_OK;
}

void ccs_classes_free(struct ccs_classes *k)
{
	if (!k)
		return;
	drop_partition(k);
	void *v[] = { k->route, k->rn, k->sig0, k->roff, k->rlanes, k->lc, k->rc, k->ecap };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ccs_free(v[i]);
	for (int j = 0; j < CCS_SCHED_MAXDEPK; j++)
		ccs_free(k->pj[j]);
	ccs_free(k);
}

/* ---- during a run ---- */

uint32_t ccs_classes_count(const struct ccs_classes *k) { return k->Q; }
uint32_t ccs_classes_members(const struct ccs_classes *k, uint32_t q) { return k->nmem[q]; }
uint32_t ccs_classes_nres(const struct ccs_classes *k) { return k->R; }
uint32_t ccs_classes_epochs(const struct ccs_classes *k) { return k->E; }
const double *ccs_classes_caps(const struct ccs_classes *k, uint32_t e) { return k->rcap + (size_t)e * k->R; }
const uint32_t *ccs_classes_of_res(const struct ccs_classes *k) { return k->rc; }

int ccs_classes_path(const struct ccs_classes *k, uint64_t qid, uint32_t e, const uint32_t **res, const double **w)
{
	size_t qe = (size_t)(qid % k->Q) * k->E + e;
	*res = k->pres + qe * MP;
	*w = k->pw + qe * MP;
	return k->pn[qe];
}

void ccs_classes_done(struct ccs_classes *k, uint64_t qid, ccs_time t)
{
	if (k->done)
		k->done[qid] = t;
}

/* The latest end among the class ops of step t's dependencies in the
 * classes c[j], kind by kind (NONE: none of that kind); -1 when none. */
static ccs_time latest(const struct ccs_classes *k, uint64_t t, const uint32_t *c)
{
	ccs_time m = -1;
	for (int j = 0; j < k->ln.ndep; j++)
		if (c[j] != NONE && t >= k->ln.dt[j] && k->done[(t - k->ln.dt[j]) * k->Q + c[j]] > m)
			m = k->done[(t - k->ln.dt[j]) * k->Q + c[j]];
	return m;
}

/* Member l's latest dependency end for its class op at step t (-1: none). */
static ccs_time ready_of(const struct ccs_classes *k, uint64_t t, uint32_t l)
{
	uint32_t c[CCS_SCHED_MAXDEPK];
	for (int j = 0; j < k->ln.ndep; j++)
		c[j] = k->pj[j][l] == NONE ? NONE : k->lc[k->pj[j][l]];
	return latest(k, t, c);
}

/* Whether every dependency of class op (t, q) has ended. */
static int deps_ended(const struct ccs_classes *k, uint64_t t, uint32_t q)
{
	for (int j = 0; j < k->ln.ndep; j++)
		for (uint32_t x = k->doff[j][q]; t >= k->ln.dt[j] && x < k->doff[j][q + 1]; x++)
			if (k->done[(t - k->ln.dt[j]) * k->Q + k->dq[j][x]] < 0)
				return 0;
	return 1;
}

int ccs_classes_split(struct ccs_classes *k, uint64_t qid, const char **why)
{
	*why = NULL;
	if (!k->done)
		return CCS_EINTERNAL;
	uint64_t t = qid / k->Q;
	uint8_t *cut = ccs_calloc((size_t)k->Q * 2 + 1, 1);
	uint64_t *init = ccs_malloc(((size_t)k->L + 1) * sizeof *init);
	if (!init || !cut) {
		ccs_free(cut);
		ccs_free(init);
		return CCS_ENOMEM;
	}
	/* this class op, and every other of its step and the next whose
	 * dependencies have all ended (their ends are exact: they are not
	 * later than the failing start) and that would not start whole
	 * either: one restart for what would be several */
	cut[qid % k->Q] = 1;
	for (uint64_t dt = 0; dt < 2 && t + dt < k->ln.T; dt++)
		for (uint32_t q = 0; q < k->Q; q++)
			if (deps_ended(k, t + dt, q) && !ccs_classes_whole(k, (t + dt) * k->Q + q))
				cut[dt * k->Q + q] = 1;
	/* the last partition, with those classes' members told apart by when
	 * they would be ready: refining from there gives what refining from
	 * the first colours with that told apart would (it is coarser) */
	for (uint32_t l = 0; l < k->L; l++) {
		uint32_t q = k->lc[l];
		uint64_t h = q;
		for (uint64_t dt = 0; dt < 2; dt++)
			if (cut[dt * k->Q + q])
				h = mix(h + 1 + dt, (uint64_t)ready_of(k, t + dt, l));
		init[l] = h;
	}
	int rc = partition(k, init, 1, why);
	ccs_free(init);
	ccs_free(cut);
	return rc;
}

int ccs_classes_by_deps(struct ccs_classes *k, int all, uint32_t growth, int *kept, const char **why)
{
	*why = NULL;
	*kept = 0;
	int want = all ? 2 : 1, dr0 = k->dep_refine, any = all;
	for (int j = 0; j < k->ln.ndep; j++)
		any |= k->ln.dt[j] == 0;
	if (dr0 >= want || !any)
		return CCS_OK;          /* nothing new to tell lanes apart by */
	uint64_t *init = ccs_malloc(((size_t)k->L + 1) * sizeof *init);
	uint32_t *rc0 = ccs_malloc(((size_t)k->nres + 1) * sizeof *rc0), R0 = k->R;
	if (!init || !rc0) {
		ccs_free(init);
		ccs_free(rc0);
		return CCS_ENOMEM;
	}
	for (uint32_t l = 0; l < k->L; l++)
		init[l] = k->lc[l];
	memcpy(rc0, k->rc, (size_t)k->nres * sizeof *rc0);
	/* from the classes reached so far; where the dependencies do not
	 * settle or grow the classes past the cap (all kinds: a ring's
	 * positions all told apart, 35 classes become 4,096 on a 4,096-rank
	 * ring with NCCL's channels, where the trees of 8-20 NVL72 racks grow
	 * 3-13%), back to those classes */
	k->dep_refine = want;
	uint32_t q0 = k->Q, max_q = k->max_q;
	if (growth && k->max_q > growth * q0)
		k->max_q = growth * q0;     /* stops the refinement as soon as it grows past */
	int rc = partition(k, init, 1, why);   /* past the cap: *why, too many classes */
	k->max_q = max_q;
	if (!rc && *why) {
		/* the lanes' and the resources' classes as they were */
		*why = NULL;
		k->dep_refine = dr0;
		memcpy(k->rc, rc0, (size_t)k->nres * sizeof *rc0);
		k->R = R0;
		rc = partition(k, init, 1, why);
	} else if (!rc)
		*kept = 1;
	ccs_free(init);
	ccs_free(rc0);
	return rc;
}

int ccs_classes_whole(const struct ccs_classes *k, uint64_t qid)
{
	uint32_t q = (uint32_t)(qid % k->Q);
	if (!k->done || k->goff[q + 1] - k->goff[q] < 2 || ccs_classes_absent(k, qid))
		return 1;
	uint64_t t = qid / k->Q;
	size_t nd = (size_t)k->ln.ndep;
	ccs_time first = latest(k, t, k->tup + (size_t)k->goff[q] * nd);
	for (uint32_t g = k->goff[q] + 1; g < k->goff[q + 1]; g++)
		if (latest(k, t, k->tup + (size_t)g * nd) != first)
			return 0;
	return 1;
}
