/*
** sim/flow_handoff.c: a flow replaced at one instant by one on the same
** resources with the same weights (flow_int.h).  The max-min allocation is
** a function of the multiset of paths alone, so the pair leaves every rate
** as it was.  A removed flow with a rate stays on its resources until the
** instant's update (a zombie: inactive, its rate still loading them); a
** flow added on its path at that instant takes its place, rate and lists
** as they are, and nothing is dirtied; the zombies left are removed for
** good by the update (flow.c).  Zombies are found by a hash of their path.
*/
#include "flow_int.h"

#include <string.h>

struct ccs_handoff {
	ccs_time now;               /* the instant of the zombies */
	uint32_t *zid;              /* zombies of this instant (some revived since) */
	uint64_t *zkey;
	uint32_t nz;
	size_t capz, capzk;
	uint32_t *slot;             /* open addressing over zid: index + 1, 0 empty */
	uint32_t nslot;             /* a power of two above twice nz, or 0 */
	uint32_t *hid, *hver;       /* revived flows, and their versions then */
	uint32_t nh;
	size_t caph, caphv;
};

static uint64_t path_key(const uint32_t *res, const double *w, int n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		uint64_t b;
		double x = w ? w[i] : 1.0;
		memcpy(&b, &x, sizeof b);
		h = (h ^ res[i]) * 1099511628211ull;
		h = (h ^ b) * 1099511628211ull;
	}
	return h;
}

/* Room for one more zombie: the index at most half full. */
static int index_room(struct ccs_handoff *ho)
{
	CCS_TRY(ccs_grow(&ho->zid, &ho->capz, (size_t)ho->nz + 1, sizeof *ho->zid));
	CCS_TRY(ccs_grow(&ho->zkey, &ho->capzk, (size_t)ho->nz + 1, sizeof *ho->zkey));
	if (2 * ((uint64_t)ho->nz + 1) <= ho->nslot)
		return CCS_OK;
	uint32_t ns = ho->nslot ? 2 * ho->nslot : 64;
	uint32_t *s = ccs_calloc(ns, sizeof *s);
	if (!s)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < ho->nz; i++) {
		uint32_t x = (uint32_t)ho->zkey[i] & (ns - 1);
		while (s[x])
			x = (x + 1) & (ns - 1);
		s[x] = i + 1;
	}
	ccs_free(ho->slot);
	ho->slot = s;
	ho->nslot = ns;
	return CCS_OK;
}

int ccs_flows_handoff_stale(const struct ccs_flows *f, ccs_time now)
{
	return f->ho && f->ho->nz && f->ho->now != now;
}

int ccs_flows_handoff_keep(struct ccs_flows *f, uint32_t id, ccs_time now)
{
	struct flow *fl = &f->f[id];
	if (!(fl->rate > 0))
		return 0;           /* nothing to hand on */
	if (!f->ho && !(f->ho = ccs_calloc(1, sizeof *f->ho)))
		return 0;
	struct ccs_handoff *ho = f->ho;
	if (ho->nz && ho->now != now)
		return 0;           /* the caller removes the last instant's first */
	if (index_room(ho))
		return 0;
	double w[CCS_FLOW_MAXPATH];
	for (int i = 0; i < fl->n; i++)
		w[i] = wgt(f, fl, i);
	uint64_t key = path_key(fl->res, w, fl->n);
	uint32_t x = (uint32_t)key & (ho->nslot - 1);
	while (ho->slot[x])
		x = (x + 1) & (ho->nslot - 1);
	ho->now = now;
	ho->zid[ho->nz] = id;
	ho->zkey[ho->nz] = key;
	ho->slot[x] = ++ho->nz;
	fl->zombie = 1;
	return 1;
}

uint32_t ccs_flows_handoff_revive(struct ccs_flows *f, const uint32_t *res, const double *w, int n, ccs_time now)
{
	struct ccs_handoff *ho = f->ho;
	if (!ho || !ho->nz || ho->now != now)
		return NONE;
	uint64_t key = path_key(res, w, n);
	uint32_t z = NONE;
	for (uint32_t x = (uint32_t)key & (ho->nslot - 1); ho->slot[x] && z == NONE; x = (x + 1) & (ho->nslot - 1)) {
		uint32_t i = ho->slot[x] - 1;
		struct flow *c = &f->f[ho->zid[i]];
		if (!c->zombie || ho->zkey[i] != key || c->n != n || memcmp(c->res, res, (size_t)n * sizeof *res))
			continue;
		int same = 1;
		for (int q = 0; q < n && same; q++)
			same = wgt(f, c, q) == (w ? w[q] : 1.0);
		if (same)
			z = ho->zid[i];
	}
	if (z == NONE || ccs_grow(&ho->hid, &ho->caph, (size_t)ho->nh + 1, sizeof *ho->hid) ||
	    ccs_grow(&ho->hver, &ho->caphv, (size_t)ho->nh + 1, sizeof *ho->hver))
		return NONE;
	struct flow *fl = &f->f[z];
	fl->zombie = 0;
	fl->handed = 1;
	ho->hid[ho->nh] = z;
	ho->hver[ho->nh++] = fl->ver + 1;   /* the version the caller gives it */
	return z;
}

const uint32_t *ccs_flows_handoff_zombies(const struct ccs_flows *f, uint32_t *n, ccs_time *at)
{
	*n = f->ho ? f->ho->nz : 0;
	*at = f->ho ? f->ho->now : 0;
	return f->ho ? f->ho->zid : NULL;
}

void ccs_flows_handoff_forget(struct ccs_flows *f)
{
	struct ccs_handoff *ho = f->ho;
	if (!ho)
		return;
	for (uint32_t i = 0; i < ho->nz; i++) {
		uint32_t x = (uint32_t)ho->zkey[i] & (ho->nslot - 1);
		while (ho->slot[x] != i + 1)
			x = (x + 1) & (ho->nslot - 1);
		ho->slot[x] = 0;
	}
	ho->nz = 0;
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
	return rc;
}

void ccs_flows_handoff_free(struct ccs_flows *f)
{
	if (!f->ho)
		return;
	ccs_free(f->ho->zid);
	ccs_free(f->ho->zkey);
	ccs_free(f->ho->slot);
	ccs_free(f->ho->hid);
	ccs_free(f->ho->hver);
	ccs_free(f->ho);
	f->ho = NULL;
}
