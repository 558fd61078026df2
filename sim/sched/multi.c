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
};

/* The part holding op id: the last j with off[j] <= id (parts may be
 * empty; bisection, as a step runs a concatenation of every group). */
static int which(const struct multi *m, uint64_t id)
{
	int lo = 0, hi = m->k - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (id >= m->off[mid])
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
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
		ccs_free(m);
	}
	memset(s, 0, sizeof *s);
}

static const struct ccs_sched_ops mu_ops = { mu_get, mu_succ, mu_ndeps, mu_release, mu_mem, NULL };

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
