/*
** sim/sched/multi.c: several schedules run as one (sched.h): part j's op i
** is op off[j] + i, with its dependencies and successors shifted alike, so
** the parts start together and share the fabric only through the flow
** solver (two jobs, or overlapping collectives on the same ranks).
*/
#include "sched.h"

#include "../time.h"

#include <string.h>

struct multi {
	int k;
	struct ccs_sched *part;
	uint64_t *off;               /* k + 1 prefix sums of nops */
	/* the lane view, when every part has one and their kinds of
	 * dependency agree: part j's lanes are lanes loff[j] .. loff[j+1] */
	int lanes;
	struct ccs_sched_lanes *lv;
	uint64_t *loff;
};

/* The last j < k with off[j] <= x (bisection; off ascending, parts may be
 * empty). */
static int last_le(const uint64_t *off, int k, uint64_t x)
{
	int lo = 0, hi = k - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (x >= off[mid])
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The part holding op id (a step runs a concatenation of every group, some
 * of them empty). */
static int which(const struct multi *m, uint64_t id)
{
	return last_le(m->off, m->k, id);
}

int ccs_sched_part(const struct ccs_sched *s, uint64_t id)
{
	return which(s->ctx, id);
}

static void mu_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct multi *m = s->ctx;
	int j = which(m, id);
	ccs_sched_get(&m->part[j], id - m->off[j], op);
}

static double mu_mem(const struct ccs_sched *s, uint64_t id)
{
	const struct multi *m = s->ctx;
	int j = which(m, id);
	return ccs_sched_mem(&m->part[j], id - m->off[j]);
}

static int mu_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct multi *m = s->ctx;
	int j = which(m, id);
	int n = ccs_sched_succ(&m->part[j], id - m->off[j], out);
	for (int i = 0; i < n; i++)
		out[i] += m->off[j];
	return n;
}

static uint32_t mu_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct multi *m = s->ctx;
	int j = which(m, id);
	return ccs_sched_ndeps(&m->part[j], id - m->off[j]);
}

static void mu_release(struct ccs_sched *s)
{
	struct multi *m = s->ctx;
	if (m) {
		for (int j = 0; j < m->k; j++)
			ccs_sched_release(&m->part[j]);
		ccs_free(m->part);
		ccs_free(m->off);
		ccs_free(m->lv);
		ccs_free(m->loff);
		ccs_free(m);
	}
	memset(s, 0, sizeof *s);
}

/* ---- the lane view: the parts' lanes side by side (sched.h), each part's
 * ops and dependencies as its own view says, its lanes ending with it ---- */

static int lane_part(const struct multi *m, uint32_t l)
{
	return last_le(m->loff, m->k, l);
}

static uint64_t ml_id(const struct ccs_sched *s, uint64_t t, uint32_t l)
{
	const struct multi *m = s->ctx;
	int j = lane_part(m, l);
	return m->off[j] + m->lv[j].id(&m->part[j], t, (uint32_t)(l - m->loff[j]));
}

static uint32_t ml_pred(const struct ccs_sched *s, int kind, uint32_t l)
{
	const struct multi *m = s->ctx;
	int j = lane_part(m, l);
	if (kind >= m->lv[j].ndep)
		return CCS_SCHED_NOLANE;
	uint32_t p = m->lv[j].pred(&m->part[j], kind, (uint32_t)(l - m->loff[j]));
	return p == CCS_SCHED_NOLANE ? p : p + (uint32_t)m->loff[j];
}

/* the part's key and the part: lanes of two parts are never alike by key */
static uint64_t ml_key(const struct ccs_sched *s, uint32_t l)
{
	const struct multi *m = s->ctx;
	int j = lane_part(m, l);
	return m->lv[j].key(&m->part[j], (uint32_t)(l - m->loff[j])) * (uint64_t)m->k + (uint64_t)j;
}

static uint64_t ml_len(const struct ccs_sched *s, uint32_t l)
{
	const struct multi *m = s->ctx;
	int j = lane_part(m, l);
	return m->lv[j].len ? m->lv[j].len(&m->part[j], (uint32_t)(l - m->loff[j])) : m->lv[j].T;
}

static int mu_lanes(const struct ccs_sched *s, struct ccs_sched_lanes *out)
{
	const struct multi *m = s->ctx;
	if (!m->lanes)
		return 0;
	memset(out, 0, sizeof *out);
	out->L = (uint32_t)m->loff[m->k];
	for (int j = 0; j < m->k; j++) {
		if (m->lv[j].T > out->T)
			out->T = m->lv[j].T;
		for (int d = out->ndep; d < m->lv[j].ndep; d++)
			out->dt[d] = m->lv[j].dt[d];
		if (m->lv[j].ndep > out->ndep)
			out->ndep = m->lv[j].ndep;
	}
	out->id = ml_id;
	out->pred = ml_pred;
	out->key = ml_key;
	out->len = ml_len;
	return 1;
}

/* Whether the parts' lane views fit side by side: every part has one,
 * a kind of dependency waits as far back in every part that has it, the
 * lanes fit a lane index and the keys stay apart.  Fills m->lv, m->loff. */
static int lanes_fit(struct multi *m)
{
	uint64_t L = 0, dt[CCS_SCHED_MAXDEPK];
	int nd = 0;
	m->lv = ccs_calloc((size_t)m->k + 1, sizeof *m->lv);
	m->loff = ccs_calloc((size_t)m->k + 2, sizeof *m->loff);
	if (!m->lv || !m->loff || m->k < 1)
		return 0;
	for (int j = 0; j < m->k; j++) {
		const struct ccs_sched *p = &m->part[j];
		if (!p->ops || !p->ops->lanes || !p->ops->lanes(p, &m->lv[j]) || m->lv[j].L < 1)
			return 0;
		for (int d = 0; d < m->lv[j].ndep && d < nd; d++)
			if (m->lv[j].dt[d] != dt[d])
				return 0;
		for (int d = nd; d < m->lv[j].ndep; d++)
			dt[d] = m->lv[j].dt[d];
		if (m->lv[j].ndep > nd)
			nd = m->lv[j].ndep;
		for (uint32_t l = 0; l < m->lv[j].L; l++)
			if (m->lv[j].key(p, l) > (UINT64_MAX - (uint64_t)m->k) / (uint64_t)m->k)
				return 0;
		m->loff[j] = L;
		L += m->lv[j].L;
		if (L >= UINT32_MAX)
			return 0;
	}
	m->loff[m->k] = L;
	return 1;
}

static const struct ccs_sched_ops mu_ops = { mu_get, mu_succ, mu_ndeps, mu_release, mu_mem, mu_lanes };

int ccs_sched_concat(struct ccs_sched *parts, int k, struct ccs_sched *out)
{
	memset(out, 0, sizeof *out);
	struct multi *m = ccs_calloc(1, sizeof *m);
	if (m) {
		m->part = ccs_malloc((size_t)(k > 0 ? k : 1) * sizeof *m->part);
		m->off = ccs_malloc(((size_t)(k > 0 ? k : 1) + 1) * sizeof *m->off);
	}
	if (!m || !m->part || !m->off) {
		if (m) {
			ccs_free(m->part);
			ccs_free(m->off);
			ccs_free(m);
		}
		for (int j = 0; j < k; j++)
			ccs_sched_release(&parts[j]);
		return CCS_ENOMEM;
	}
	m->k = k;
	m->off[0] = 0;
	for (int j = 0; j < k; j++) {
		if (parts[j].mem_per_byte > out->mem_per_byte)
			out->mem_per_byte = parts[j].mem_per_byte;
		m->part[j] = parts[j];
		m->off[j + 1] = m->off[j] + parts[j].nops;
		memset(&parts[j], 0, sizeof parts[j]);
	}
	out->nops = m->off[k];
	out->ctx = m;
	out->ops = &mu_ops;
	m->lanes = lanes_fit(m);
	return CCS_OK;
}

/* A schedule with its ranks renamed: rank r of the inner one is world rank
 * map[r]. */
struct remap {
	struct ccs_sched in;
	const uint32_t *map;
};

static void rm_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct remap *m = s->ctx;
	ccs_sched_get(&m->in, id, op);
	if (op->src >= 0)
		op->src = (int32_t)m->map[op->src];
	if (op->dst >= 0)
		op->dst = (int32_t)m->map[op->dst];
}

static int rm_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct remap *m = s->ctx;
	return ccs_sched_succ(&m->in, id, out);
}

static uint32_t rm_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct remap *m = s->ctx;
	return ccs_sched_ndeps(&m->in, id);
}

static double rm_mem(const struct ccs_sched *s, uint64_t id)
{
	const struct remap *m = s->ctx;
	return ccs_sched_mem(&m->in, id);
}

static void rm_release(struct ccs_sched *s)
{
	struct remap *m = s->ctx;
	ccs_sched_release(&m->in);
	ccs_free(m);
}

static const struct ccs_sched_ops rm_ops = { rm_get, rm_succ, rm_ndeps, rm_release, rm_mem, NULL };

int ccs_sched_remap(struct ccs_sched *in, const uint32_t *map, struct ccs_sched *out)
{
	struct remap *m = ccs_malloc(sizeof *m);
	if (!m) {
		ccs_sched_release(in);
		return CCS_ENOMEM;
	}
	m->in = *in;
	m->map = map;
	memset(out, 0, sizeof *out);
	out->nops = in->nops;
	out->ctx = m;
	out->ops = &rm_ops;
	out->mem_per_byte = in->mem_per_byte;
	return CCS_OK;
}

void ccs_part_ends_op_end(void *ctx, uint64_t op, ccs_time t)
{
	struct ccs_part_ends *e = ctx;
	int p = ccs_sched_part(e->s, op);
	double s = ccs_time_to_s(t);
	if (s > e->end_s[p])
		e->end_s[p] = s;
}
