/* sim/flow.c: incremental max-min fair sharing (flow.h). */
#include "flow.h"

#include "../model/ccs.h"

#include <math.h>
#include <string.h>

struct flow {
	uint32_t res[CCS_FLOW_MAXPATH];
	uint32_t pos[CCS_FLOW_MAXPATH];    /* index in each resource's list */
	uint8_t n, active, mark, frozen;
	uint32_t ver, next_free;
	double left, rate, bytes;
	ccs_time t_last, done, pending;    /* expected end; time of its outstanding event */
	uint64_t tag;
};

struct res {
	double cap, load, rem;
	uint32_t *fl, nfl, capfl, nun;
	uint8_t dirty, mark;
	ccs_time t_stat;
	struct ccs_res_stats st;
};

struct ccs_flows {
	uint32_t nres;
	struct res *r;
	struct flow *f;
	size_t capf;
	uint32_t nf, free_head, nactive;
	uint32_t *dirty, *cres, *cflow;
	size_t capdirty, capcres, capcflow;
	struct { uint32_t r0, f0; } *comp;
	size_t capcomp;
	uint32_t ndirty;
	uint32_t ntouched;          /* cres[0..ntouched): recomputed by the last update */
};

#define NONE UINT32_MAX

int ccs_flows_new(struct ccs_flows **out, uint32_t nres, const double *cap)
{
	struct ccs_flows *f = ccs_calloc(1, sizeof *f);
	if (!f)
		return CCS_ENOMEM;
	f->r = ccs_calloc((size_t)nres + 1, sizeof *f->r);
	if (!f->r) {
		ccs_free(f);
		return CCS_ENOMEM;
	}
	f->nres = nres;
	for (uint32_t i = 0; i < nres; i++)
		f->r[i].cap = cap[i];
	/* each resource is in at most one component at a time */
	f->cres = ccs_malloc(((size_t)nres + 1) * sizeof *f->cres);
	if (!f->cres) {
		ccs_free(f->r);
		ccs_free(f);
		return CCS_ENOMEM;
	}
	f->capcres = (size_t)nres + 1;
	f->free_head = NONE;
	*out = f;
	return CCS_OK;
}

void ccs_flows_free(struct ccs_flows *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nres; i++)
		ccs_free(f->r[i].fl);
	ccs_free(f->r);
	ccs_free(f->f);
	ccs_free(f->dirty);
	ccs_free(f->cres);
	ccs_free(f->cflow);
	ccs_free(f->comp);
	ccs_free(f);
}

static int mark_dirty(struct ccs_flows *f, uint32_t r)
{
	if (f->r[r].dirty)
		return CCS_OK;
	CCS_TRY(ccs_grow(&f->dirty, &f->capdirty, (size_t)f->ndirty + 1, sizeof *f->dirty));
	CCS_TRY(ccs_grow(&f->comp, &f->capcomp, (size_t)f->ndirty + 2, sizeof *f->comp));
	f->r[r].dirty = 1;
	f->dirty[f->ndirty++] = r;
	return CCS_OK;
}

int ccs_flows_add(struct ccs_flows *f, const uint32_t *res, int n, double bytes, uint64_t tag, ccs_time now,
                  uint32_t *id)
{
	if (n < 0 || n > CCS_FLOW_MAXPATH)
		return CCS_EINTERNAL;
	uint32_t k;
	if (f->free_head != NONE) {
		k = f->free_head;
		f->free_head = f->f[k].next_free;
	} else {
		CCS_TRY(ccs_grow(&f->f, &f->capf, (size_t)f->nf + 1, sizeof *f->f));
		CCS_TRY(ccs_grow(&f->cflow, &f->capcflow, (size_t)f->nf + 1, sizeof *f->cflow));
		k = f->nf++;
		f->f[k].ver = 0;
	}
	struct flow *fl = &f->f[k];
	uint32_t ver = fl->ver;
	memset(fl, 0, sizeof *fl);
	fl->ver = ver + 1;
	fl->n = (uint8_t)n;
	fl->active = 1;
	fl->left = bytes > 0 ? bytes : 0;
	fl->bytes = fl->left;
	fl->t_last = now;
	fl->done = -1;
	fl->pending = -1;
	fl->tag = tag;
	for (int i = 0; i < n; i++) {
		struct res *r = &f->r[res[i]];
		if (r->nfl == r->capfl) {
			uint32_t nc = r->capfl ? r->capfl * 2 : 4;
			uint32_t *nl = ccs_realloc(r->fl, nc * sizeof *nl);
			if (!nl)
				return CCS_ENOMEM;
			r->fl = nl;
			r->capfl = nc;
		}
		fl->res[i] = res[i];
		fl->pos[i] = r->nfl;
		r->fl[r->nfl++] = k;
		CCS_TRY(mark_dirty(f, res[i]));
	}
	f->nactive++;
	*id = k;
	return CCS_OK;
}

static void settle(struct ccs_flows *f, struct flow *fl, ccs_time now)
{
	if (now > fl->t_last && fl->rate > 0) {
		double moved = fl->rate * (double)(now - fl->t_last) * 1e-12;
		if (moved > fl->left)
			moved = fl->left;
		fl->left -= moved;
		if (fl->left < CCS_EPS_BYTES)
			fl->left = 0;
		for (int i = 0; i < fl->n; i++)
			f->r[fl->res[i]].st.bytes += moved;
	}
	fl->t_last = now;
}

static void account(struct res *r, ccs_time now)
{
	if (r->load > 0 && now > r->t_stat)
		r->st.busy_s += (double)(now - r->t_stat) * 1e-12;
	r->t_stat = now;
}

void ccs_flows_remove(struct ccs_flows *f, uint32_t id, ccs_time now)
{
	struct flow *fl = &f->f[id];
	if (!fl->active)
		return;
	settle(f, fl, now);
	for (int i = 0; i < fl->n; i++) {
		struct res *r = &f->r[fl->res[i]];
		account(r, now);
		r->load -= fl->rate;
		if (r->load < 0 || r->nfl == 1)
			r->load = 0;
		uint32_t p = fl->pos[i], last = r->fl[--r->nfl];
		if (p != r->nfl) {
			r->fl[p] = last;
			struct flow *lf = &f->f[last];
			for (int j = 0; j < lf->n; j++)
				if (lf->res[j] == fl->res[i] && lf->pos[j] == r->nfl) {
					lf->pos[j] = p;
					break;
				}
		}
		mark_dirty(f, fl->res[i]);
	}
	fl->active = 0;
	fl->rate = 0;
	fl->ver++;
	fl->next_free = f->free_head;
	f->free_head = id;
	f->nactive--;
}

int ccs_flows_update(struct ccs_flows *f, ccs_time now, ccs_flow_sched_fn *fn, void *ctx)
{
	uint32_t ncr = 0, ncf = 0, ncomp = 0;
	/* Components of the dirty resources, one after another in cres/cflow;
	 * comp holds where each starts. */
	for (uint32_t d = 0; d < f->ndirty; d++) {
		uint32_t start = f->dirty[d];
		if (f->r[start].mark)
			continue;
		f->comp[ncomp].r0 = ncr;
		f->comp[ncomp].f0 = ncf;
		ncomp++;
		f->r[start].mark = 1;
		f->cres[ncr++] = start;
		for (uint32_t qi = ncr - 1; qi < ncr; qi++) {
			struct res *r = &f->r[f->cres[qi]];
			for (uint32_t j = 0; j < r->nfl; j++) {
				struct flow *fl = &f->f[r->fl[j]];
				if (fl->mark)
					continue;
				fl->mark = 1;
				f->cflow[ncf++] = r->fl[j];
				for (int k = 0; k < fl->n; k++) {
					struct res *q = &f->r[fl->res[k]];
					if (q->mark)
						continue;
					q->mark = 1;
					f->cres[ncr++] = fl->res[k];
				}
			}
		}
	}
	for (uint32_t d = 0; d < f->ndirty; d++)
		f->r[f->dirty[d]].dirty = 0;
	f->ndirty = 0;
	f->ntouched = ncr;
	if (!f->comp)
		return CCS_OK;              /* nothing was ever dirty */
	f->comp[ncomp].r0 = ncr;
	f->comp[ncomp].f0 = ncf;

	/* Settle bytes at the old rates; reset the filling state. */
	for (uint32_t i = 0; i < ncr; i++) {
		struct res *r = &f->r[f->cres[i]];
		account(r, now);
		r->rem = r->cap;
		r->nun = r->nfl;
		r->load = 0;
	}
	for (uint32_t i = 0; i < ncf; i++) {
		struct flow *fl = &f->f[f->cflow[i]];
		settle(f, fl, now);
		fl->frozen = 0;
	}
	/* Progressive filling, component by component.  The water level never
	 * falls: in exact arithmetic each resource's share stays at or above
	 * the last level, so rounding below it is clamped there. */
	for (uint32_t k = 0; k < ncomp; k++) {
		uint32_t r0 = f->comp[k].r0, r1 = f->comp[k + 1].r0;
		uint32_t f0 = f->comp[k].f0, f1 = f->comp[k + 1].f0;
		if (f1 - f0 == 1) {
			/* one flow alone: the smallest capacity on its path */
			struct flow *fl = &f->f[f->cflow[f0]];
			double best = HUGE_VAL;
			for (int q = 0; q < fl->n; q++)
				if (f->r[fl->res[q]].cap < best)
					best = f->r[fl->res[q]].cap;
			fl->rate = fl->n ? best : 0;
			fl->frozen = 1;
			for (int q = 0; q < fl->n; q++) {
				struct res *x = &f->r[fl->res[q]];
				x->rem -= fl->rate;
				x->load += fl->rate;
				x->nun = 0;
			}
			continue;
		}
		double level = 0;
		for (;;) {
			double best = HUGE_VAL;
			uint32_t bi = NONE;
			for (uint32_t i = r0; i < r1; i++) {
				struct res *r = &f->r[f->cres[i]];
				if (!r->nun)
					continue;
				double share = (r->rem > 0 ? r->rem : 0) / r->nun;
				if (share < level)
					share = level;
				if (share < best) {
					best = share;
					bi = i;
				}
			}
			if (bi == NONE)
				break;
			level = best;
			struct res *r = &f->r[f->cres[bi]];
			for (uint32_t j = 0; j < r->nfl; j++) {
				struct flow *fl = &f->f[r->fl[j]];
				if (fl->frozen)
					continue;
				fl->frozen = 1;
				fl->rate = best;
				for (int q = 0; q < fl->n; q++) {
					struct res *x = &f->r[fl->res[q]];
					x->rem -= best;
					x->load += best;
					x->nun--;
				}
			}
		}
	}
	for (uint32_t i = 0; i < ncr; i++) {
		struct res *r = &f->r[f->cres[i]];
		double u = r->cap > 0 ? r->load / r->cap : 0;
		if (u > r->st.peak_util)
			r->st.peak_util = u;
		r->mark = 0;
	}
	for (uint32_t i = 0; i < ncf; i++) {
		uint32_t id = f->cflow[i];
		struct flow *fl = &f->f[id];
		fl->mark = 0;
		ccs_time done;
		if (fl->left <= 0)
			done = now;
		else if (fl->rate > 0)
			done = now + ccs_time_from_s(fl->left / fl->rate);
		else
			done = CCS_TIME_MAX;
		/* One outstanding event per flow: a later end keeps the earlier
		 * event (ccs_flows_due re-arms it when it fires), an earlier end
		 * replaces it. */
		if (done != fl->done) {
			fl->done = done;
			if (done != CCS_TIME_MAX && (fl->pending < 0 || done < fl->pending)) {
				fl->ver++;
				fl->pending = done;
				CCS_TRY(fn(ctx, id, done, fl->ver));
			}
		}
	}
	return CCS_OK;
}

uint32_t ccs_flows_version(const struct ccs_flows *f, uint32_t id) { return f->f[id].ver; }

const uint32_t *ccs_flows_touched(const struct ccs_flows *f, uint32_t *n)
{
	*n = f->ntouched;
	return f->cres;
}

int ccs_flows_due(struct ccs_flows *f, uint32_t id, ccs_time now, ccs_time *again)
{
	struct flow *fl = &f->f[id];
	if (fl->done <= now)
		return 1;
	fl->pending = fl->done;
	*again = fl->done;
	return 0;
}
uint64_t ccs_flows_tag(const struct ccs_flows *f, uint32_t id) { return f->f[id].tag; }
double ccs_flows_rate(const struct ccs_flows *f, uint32_t id) { return f->f[id].rate; }
double ccs_flows_bytes(const struct ccs_flows *f, uint32_t id) { return f->f[id].bytes; }
uint32_t ccs_flows_active(const struct ccs_flows *f) { return f->nactive; }
double ccs_flows_cap(const struct ccs_flows *f, uint32_t res) { return f->r[res].cap; }
const struct ccs_res_stats *ccs_flows_stats(const struct ccs_flows *f, uint32_t res) { return &f->r[res].st; }

double ccs_flows_left(const struct ccs_flows *f, uint32_t id, ccs_time now)
{
	const struct flow *fl = &f->f[id];
	double left = fl->left - fl->rate * (double)(now - fl->t_last) * 1e-12;
	return left > 0 ? left : 0;
}

double ccs_flows_load(const struct ccs_flows *f, uint32_t res)
{
	double s = 0;
	const struct res *r = &f->r[res];
	for (uint32_t j = 0; j < r->nfl; j++)
		s += f->f[r->fl[j]].rate;
	return s;
}

uint32_t ccs_flows_check(const struct ccs_flows *f)
{
	uint32_t bad = 0;
	for (uint32_t i = 0; i < f->nf; i++) {
		const struct flow *fl = &f->f[i];
		if (!fl->active || fl->n == 0)
			continue;
		int ok = 0;
		for (int k = 0; k < fl->n && !ok; k++) {
			const struct res *r = &f->r[fl->res[k]];
			double load = ccs_flows_load(f, fl->res[k]);
			if (load < r->cap * (1 - 1e-9))
				continue;
			int top = 1;
			for (uint32_t j = 0; j < r->nfl && top; j++)
				top = f->f[r->fl[j]].rate <= fl->rate * (1 + 1e-9);
			ok = top;
		}
		bad += !ok;
	}
	for (uint32_t r = 0; r < f->nres; r++)
		bad += ccs_flows_load(f, r) > f->r[r].cap * (1 + 1e-9);
	return bad;
}
