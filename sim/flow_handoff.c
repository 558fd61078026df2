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
	uint32_t *zid, *znext;      /* zombies of this instant (some revived since); the next
	                               with the same path key (index + 1, 0: none) */
	uint64_t *zkey;
	uint32_t nz;
	size_t capz, capzn, capzk;
	/* open addressing by key: each path key's chain of zombies not revived */
	uint64_t *skey;
	uint32_t *shead;            /* index + 1 of the chain's first, 0: empty */
	uint8_t *sused;
	uint32_t nslot;             /* a power of two above twice nz, or 0 */
	uint32_t *uslot, nus;       /* the slots in use, to clear */
	uint32_t *hid, *hver;       /* revived flows, and their versions then */
	uint32_t nh;
	size_t caph, caphv;
};

/* FNV-1a over the path, then splitmix64's finaliser (FNV's low bits hang
 * on the inputs' low bits alone). */
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
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* The slot of key: its own, or the empty one where it would go. */
static uint32_t slot_of(const struct ccs_handoff *ho, uint64_t key)
{
	uint32_t x = (uint32_t)key & (ho->nslot - 1);
	while (ho->sused[x] && ho->skey[x] != key)
		x = (x + 1) & (ho->nslot - 1);
	return x;
}

/* Zombie i at the head of its key's chain. */
static void chain(struct ccs_handoff *ho, uint32_t i)
{
	uint32_t x = slot_of(ho, ho->zkey[i]);
	if (!ho->sused[x]) {
		ho->sused[x] = 1;
		ho->skey[x] = ho->zkey[i];
		ho->shead[x] = 0;
		ho->uslot[ho->nus++] = x;
	}
	ho->znext[i] = ho->shead[x];
	ho->shead[x] = i + 1;
}

/* Room for one more zombie: the index at most half full (rebuilt from
 * the zombies not revived when it grows). */
static int index_room(struct ccs_flows *f, struct ccs_handoff *ho)
{
	CCS_TRY(ccs_grow(&ho->zid, &ho->capz, (size_t)ho->nz + 1, sizeof *ho->zid));
	CCS_TRY(ccs_grow(&ho->znext, &ho->capzn, (size_t)ho->nz + 1, sizeof *ho->znext));
	CCS_TRY(ccs_grow(&ho->zkey, &ho->capzk, (size_t)ho->nz + 1, sizeof *ho->zkey));
	if (2 * ((uint64_t)ho->nz + 1) <= ho->nslot)
		return CCS_OK;
	uint32_t ns = ho->nslot ? 2 * ho->nslot : 64;
	uint64_t *sk = ccs_malloc(ns * sizeof *sk);
	uint32_t *sh = ccs_malloc(ns * sizeof *sh), *us = ccs_malloc(ns * sizeof *us);
	uint8_t *su = ccs_calloc(ns, 1);
	if (!sk || !sh || !us || !su) {
		ccs_free(sk);
		ccs_free(sh);
		ccs_free(us);
		ccs_free(su);
		return CCS_ENOMEM;
	}
	ccs_free(ho->skey);
	ccs_free(ho->shead);
	ccs_free(ho->uslot);
	ccs_free(ho->sused);
	ho->skey = sk;
	ho->shead = sh;
	ho->uslot = us;
	ho->sused = su;
	ho->nslot = ns;
	ho->nus = 0;
	for (uint32_t i = 0; i < ho->nz; i++)
		if (f->f[ho->zid[i]].zombie)
			chain(ho, i);
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
	if (index_room(f, ho))
		return 0;
	double w[CCS_FLOW_MAXPATH];
	for (int i = 0; i < fl->n; i++)
		w[i] = wgt(f, fl, i);
	ho->now = now;
	ho->zid[ho->nz] = id;
	ho->zkey[ho->nz] = path_key(fl->res, w, fl->n);
	fl->zombie = 1;
	chain(ho, ho->nz++);
	return 1;
}

uint32_t ccs_flows_handoff_revive(struct ccs_flows *f, const uint32_t *res, const double *w, int n, ccs_time now)
{
	struct ccs_handoff *ho = f->ho;
	if (!ho || !ho->nz || ho->now != now)
		return NONE;
	uint32_t x = slot_of(ho, path_key(res, w, n));
	if (!ho->sused[x])
		return NONE;
	/* the chain's first, unless another path has its key */
	uint32_t *link = &ho->shead[x];
	for (; *link; link = &ho->znext[*link - 1]) {
		const struct flow *c = &f->f[ho->zid[*link - 1]];
		int same = c->n == n && !memcmp(c->res, res, (size_t)n * sizeof *res);
		for (int q = 0; q < n && same; q++)
			same = wgt(f, c, q) == (w ? w[q] : 1.0);
		if (same)
			break;
	}
	if (!*link || ccs_grow(&ho->hid, &ho->caph, (size_t)ho->nh + 1, sizeof *ho->hid) ||
	    ccs_grow(&ho->hver, &ho->caphv, (size_t)ho->nh + 1, sizeof *ho->hver))
		return NONE;
	uint32_t i = *link - 1, z = ho->zid[i];
	*link = ho->znext[i];
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
	for (uint32_t i = 0; i < ho->nus; i++)
		ho->sused[ho->uslot[i]] = 0;
	ho->nus = 0;
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
		settle(f, fl, now);   /* an update at a later instant: what it moved since */
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
	ccs_free(f->ho->znext);
	ccs_free(f->ho->zkey);
	ccs_free(f->ho->skey);
	ccs_free(f->ho->shead);
	ccs_free(f->ho->sused);
	ccs_free(f->ho->uslot);
	ccs_free(f->ho->hid);
	ccs_free(f->ho->hver);
	ccs_free(f->ho);
	f->ho = NULL;
}
