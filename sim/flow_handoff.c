/*
** sim/flow_handoff.c: a flow replaced at one instant by one on the same
** resources with the same weights (flow_int.h).  The max-min allocation is
** a function of the multiset of paths alone, so the pair leaves every rate
** as it was: the new flow takes the old one's rate, and a resource whose
** changes since the last update are all such pairs is not recomputed.
** Removals are kept by a hash of their path until the next update.
*/
#include "flow_int.h"

#include "../model/ccs.h"

#include <string.h>

struct gone {
	uint64_t key;
	double rate;
	uint32_t res[CCS_FLOW_MAXPATH];
	double w[CCS_FLOW_MAXPATH];
	uint32_t at;                /* its slot in the index */
	uint8_t n, used;
};

struct ccs_handoff {
	ccs_time now;               /* the instant of the removals kept */
	struct gone *g;
	uint32_t ng;
	size_t capg;
	uint32_t *slot;             /* open addressing over g: index + 1, 0 empty */
	uint32_t nslot;             /* a power of two above twice ng, or 0 */
	uint32_t *hid, *hver;       /* flows that took a rate, and their versions then */
	uint32_t nh;
	size_t caph, caphv;
};

static uint64_t path_key(const uint32_t *res, const double *w, int n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		uint64_t b;
		memcpy(&b, &w[i], sizeof b);
		h = (h ^ res[i]) * 1099511628211ull;
		h = (h ^ b) * 1099511628211ull;
	}
	return h;
}

/* Forget the kept removals (their index entries first). */
static void forget(struct ccs_handoff *ho)
{
	for (uint32_t i = 0; i < ho->ng; i++)
		ho->slot[ho->g[i].at] = 0;
	ho->ng = 0;
}

/* Room for one more kept removal: the index at most half full. */
static int index_room(struct ccs_handoff *ho)
{
	CCS_TRY(ccs_grow(&ho->g, &ho->capg, (size_t)ho->ng + 1, sizeof *ho->g));
	if (2 * ((uint64_t)ho->ng + 1) <= ho->nslot)
		return CCS_OK;
	uint32_t ns = ho->nslot ? 2 * ho->nslot : 64;
	uint32_t *s = ccs_calloc(ns, sizeof *s);
	if (!s)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < ho->ng; i++) {
		uint32_t x = (uint32_t)ho->g[i].key & (ns - 1);
		while (s[x])
			x = (x + 1) & (ns - 1);
		s[x] = i + 1;
		ho->g[i].at = x;
	}
	ccs_free(ho->slot);
	ho->slot = s;
	ho->nslot = ns;
	return CCS_OK;
}

int ccs_flows_handoff_keep(struct ccs_flows *f, const struct flow *fl, ccs_time now)
{
	if (!(fl->rate > 0))
		return CCS_OK;      /* never had a rate: nothing to hand on */
	if (!f->ho && !(f->ho = ccs_calloc(1, sizeof *f->ho)))
		return CCS_ENOMEM;
	struct ccs_handoff *ho = f->ho;
	if (ho->ng && ho->now != now)
		forget(ho);         /* no update since: they are not this instant's */
	ho->now = now;
	CCS_TRY(index_room(ho));
	struct gone *g = &ho->g[ho->ng];
	g->n = fl->n;
	g->used = 0;
	g->rate = fl->rate;
	for (int i = 0; i < fl->n; i++) {
		g->res[i] = fl->res[i];
		g->w[i] = wgt(f, fl, i);
	}
	g->key = path_key(g->res, g->w, g->n);
	uint32_t x = (uint32_t)g->key & (ho->nslot - 1);
	while (ho->slot[x])
		x = (x + 1) & (ho->nslot - 1);
	ho->slot[x] = ++ho->ng;
	g->at = x;
	return CCS_OK;
}

int ccs_flows_handoff_take(struct ccs_flows *f, uint32_t id, const double *wt, ccs_time now)
{
	struct ccs_handoff *ho = f->ho;
	if (!ho || !ho->ng || ho->now != now)
		return CCS_OK;
	struct flow *fl = &f->f[id];
	double w[CCS_FLOW_MAXPATH];
	for (int i = 0; i < fl->n; i++)
		w[i] = wt ? wt[i] : 1.0;
	uint64_t key = path_key(fl->res, w, fl->n);
	struct gone *g = NULL;
	for (uint32_t x = (uint32_t)key & (ho->nslot - 1); ho->slot[x]; x = (x + 1) & (ho->nslot - 1)) {
		struct gone *c = &ho->g[ho->slot[x] - 1];
		if (!c->used && c->key == key && c->n == fl->n && !memcmp(c->res, fl->res, fl->n * sizeof *c->res) &&
		    !memcmp(c->w, w, fl->n * sizeof *w)) {
			g = c;
			break;
		}
	}
	if (!g)
		return CCS_OK;
	CCS_TRY(ccs_grow(&ho->hid, &ho->caph, (size_t)ho->nh + 1, sizeof *ho->hid));
	CCS_TRY(ccs_grow(&ho->hver, &ho->caphv, (size_t)ho->nh + 1, sizeof *ho->hver));
	g->used = 1;
	fl->rate = g->rate;
	fl->handed = 1;
	for (int i = 0; i < fl->n; i++) {
		struct res *r = &f->r[fl->res[i]];
		r->load += fl->rate * w[i];
		r->nkeep += 2;      /* the removal's change and this one's */
	}
	ho->hid[ho->nh] = id;
	ho->hver[ho->nh++] = fl->ver;
	return CCS_OK;
}

void ccs_flows_handoff_filter(struct ccs_flows *f)
{
	uint32_t k = 0;
	for (uint32_t d = 0; d < f->ndirty; d++) {
		struct res *r = &f->r[f->dirty[d]];
		if (r->nkeep && r->nchg == r->nkeep)
			r->dirty = 0;
		else
			f->dirty[k++] = f->dirty[d];
		r->nchg = r->nkeep = 0;
	}
	f->ndirty = k;
}

int ccs_flows_handoff_finish(struct ccs_flows *f, ccs_time now, ccs_flow_sched_fn *fn, void *ctx)
{
	struct ccs_handoff *ho = f->ho;
	if (!ho)
		return CCS_OK;
	int rc = CCS_OK;
	for (uint32_t i = 0; i < ho->nh && !rc; i++) {
		struct flow *fl = &f->f[ho->hid[i]];
		if (!fl->active || fl->ver != ho->hver[i] || !fl->handed)
			continue;   /* gone again, or recomputed (and queued) by the update */
		fl->handed = 0;
		rc = queue_end(f, ho->hid[i], now, fn, ctx);
	}
	ho->nh = 0;
	forget(ho);
	return rc;
}

void ccs_flows_handoff_free(struct ccs_flows *f)
{
	if (!f->ho)
		return;
	ccs_free(f->ho->g);
	ccs_free(f->ho->slot);
	ccs_free(f->ho->hid);
	ccs_free(f->ho->hver);
	ccs_free(f->ho);
	f->ho = NULL;
}
