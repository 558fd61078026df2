/* sim/flow.c: incremental max-min fair sharing (flow.h). */
#include "flow_int.h"

#include "../model/ccs.h"

#include <math.h>
#include <string.h>

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
	/* each resource enters the region of an update at most once */
	f->cres = ccs_malloc(((size_t)nres + 1) * sizeof *f->cres);
	f->heap = ccs_malloc(((size_t)nres + 1) * sizeof *f->heap);
	f->xq = ccs_malloc(((size_t)nres + 1) * sizeof *f->xq);
	f->corder = ccs_malloc(((size_t)nres + 1) * sizeof *f->corder);
	f->shq = ccs_malloc(((size_t)nres + 1) * sizeof *f->shq);
	if (!f->cres || !f->heap || !f->xq || !f->corder || !f->shq) {
		ccs_free(f->corder);
		ccs_free(f->shq);
		ccs_free(f->cres);
		ccs_free(f->heap);
		ccs_free(f->xq);
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
	for (uint32_t i = 0; i < f->nres; i++) {
		ccs_free(f->r[i].fl);
		ccs_free(f->r[i].flw);
	}
	ccs_free(f->r);
	ccs_free(f->f);
	ccs_free(f->dirty);
	ccs_free(f->cres);
	ccs_free(f->heap);
	ccs_free(f->cflow);
	ccs_free(f->xq);
	ccs_free(f->corder);
	ccs_free(f->shq);
	ccs_flows_handoff_free(f);
	ccs_free(f);
}

static int mark_dirty(struct ccs_flows *f, uint32_t r)
{
	if (f->r[r].dirty)
		return CCS_OK;
	CCS_TRY(ccs_grow(&f->dirty, &f->capdirty, (size_t)f->ndirty + 1, sizeof *f->dirty));
	f->r[r].dirty = 1;
	f->dirty[f->ndirty++] = r;
	return CCS_OK;
}

/* Room for k more flows in r's list. */
static int room_for(struct res *r, uint32_t k)
{
	if (r->nfl + k <= r->capfl)
		return CCS_OK;
	uint32_t nc = r->capfl ? r->capfl * 2 : 4;
	while (nc < r->nfl + k)
		nc *= 2;
	if (r->flw) {
		double *nw = ccs_realloc(r->flw, nc * sizeof *nw);
		if (!nw)
			return CCS_ENOMEM;
		r->flw = nw;
	}
	uint32_t *nl = ccs_realloc(r->fl, nc * sizeof *nl);
	if (!nl)
		return CCS_ENOMEM;
	r->fl = nl;
	r->capfl = nc;
	return CCS_OK;
}

static int room(struct res *r) { return room_for(r, 1); }

/* r's list gets weights (1 for the ordinary flows already on it). */
static int weights_on(struct res *r)
{
	if (r->flw)
		return CCS_OK;
	r->flw = ccs_malloc((r->capfl ? r->capfl : 1) * sizeof *r->flw);
	if (!r->flw)
		return CCS_ENOMEM;
	for (uint32_t j = 0; j < r->nfl; j++)
		r->flw[j] = 1.0;
	return CCS_OK;
}

static void bury(struct ccs_flows *f, ccs_time now);

/* Zombies of an earlier instant (no update since) leave before a flow
 * ends or starts now. */
static void bury_stale(struct ccs_flows *f, ccs_time now)
{
	if (ccs_flows_handoff_stale(f, now))
		bury(f, now);
}

/* Flow fl (new, or a zombie taking a new flow's place) starts now with
 * bytes to move, as op tag, under a new version. */
static void begin(struct ccs_flows *f, struct flow *fl, double bytes, uint64_t tag, ccs_time now)
{
	fl->ver++;
	fl->active = 1;
	fl->left = bytes > 0 ? bytes : 0;
	fl->bytes = fl->left;
	fl->t_last = now;
	fl->done = -1;
	fl->pending = -1;
	fl->tag = tag;
	f->nactive++;
}

int ccs_flows_add(struct ccs_flows *f, const uint32_t *res, int n, double bytes, uint64_t tag, ccs_time now,
                  uint32_t *id)
{
	return ccs_flows_add_w(f, res, NULL, n, bytes, tag, now, id);
}

int ccs_flows_add_w(struct ccs_flows *f, const uint32_t *res, const double *w, int n, double bytes, uint64_t tag,
                    ccs_time now, uint32_t *id)
{
	if (n < 0 || n > CCS_FLOW_MAXPATH)
		return CCS_EINTERNAL;
	for (int i = 0; w && i < n; i++)
		if (!(w[i] > 0))
			return CCS_EINTERNAL;
	bury_stale(f, now);
	/* a flow removed at this instant on the same path: it takes that one's
	 * place, lists and rate as they are (flow_handoff.c) */
	uint32_t k = ccs_flows_handoff_revive(f, res, w, n, now);
	if (k != NONE) {
		begin(f, &f->f[k], bytes, tag, now);
		*id = k;
		return CCS_OK;
	}
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
	fl->ver = ver;
	fl->n = (uint8_t)n;
	fl->weighted = w != NULL;
	begin(f, fl, bytes, tag, now);
	for (int i = 0; i < n; i++) {
		struct res *r = &f->r[res[i]];
		CCS_TRY(room(r));
		if (w)
			CCS_TRY(weights_on(r));
		fl->res[i] = res[i];
		fl->pos[i] = r->nfl;
		if (r->flw)
			r->flw[r->nfl] = w ? w[i] : 1.0;
		r->fl[r->nfl++] = k;
		r->nw += w != NULL;
		CCS_TRY(mark_dirty(f, res[i]));
	}
	*id = k;
	return CCS_OK;
}

static void account(struct res *r, ccs_time now)
{
	if (r->load > 0 && now > r->t_stat)
		r->st.busy_s += ccs_time_to_s(now - r->t_stat);
	r->t_stat = now;
}

/* Take flow k off resource slot i of its path (swap-remove from the
 * resource's list). */
static void unlink_res(struct ccs_flows *f, uint32_t k, int i)
{
	struct flow *fl = &f->f[k];
	struct res *r = &f->r[fl->res[i]];
	r->load -= fl->rate * wgt(f, fl, i);
	r->nw -= fl->weighted;
	if (r->load < 0 || r->nfl == 1)
		r->load = 0;
	uint32_t p = fl->pos[i], last = r->fl[--r->nfl];
	if (p != r->nfl) {
		r->fl[p] = last;
		if (r->flw)
			r->flw[p] = r->flw[r->nfl];
		struct flow *lf = &f->f[last];
		for (int j = 0; j < lf->n; j++)
			if (lf->res[j] == fl->res[i] && lf->pos[j] == r->nfl) {
				lf->pos[j] = p;
				break;
			}
	}
}

/* Take flow id (inactive) off its resources at now and free its slot. */
static void unlink_flow(struct ccs_flows *f, uint32_t id, ccs_time now)
{
	struct flow *fl = &f->f[id];
	for (int i = 0; i < fl->n; i++) {
		account(&f->r[fl->res[i]], now);
		unlink_res(f, id, i);
		mark_dirty(f, fl->res[i]);
	}
	fl->rate = 0;
	fl->zombie = 0;
	fl->next_free = f->free_head;
	f->free_head = id;
}

/* The zombies no flow took the place of leave their resources, as of the
 * instant they ended (before now, or now). */
static void bury(struct ccs_flows *f, ccs_time now)
{
	uint32_t nz;
	ccs_time at;
	const uint32_t *z = ccs_flows_handoff_zombies(f, &nz, &at);
	for (uint32_t i = 0; i < nz; i++)
		if (f->f[z[i]].zombie)
			unlink_flow(f, z[i], at < now ? at : now);
	ccs_flows_handoff_forget(f);
}

void ccs_flows_remove(struct ccs_flows *f, uint32_t id, ccs_time now)
{
	struct flow *fl = &f->f[id];
	if (!fl->active)
		return;
	bury_stale(f, now);
	settle(f, fl, now);
	fl->active = 0;
	fl->ver++;
	f->nactive--;
	/* a zombie until the update, for a flow that may start on its path at
	 * this instant (flow_handoff.c) */
	if (!ccs_flows_handoff_keep(f, id, now))
		unlink_flow(f, id, now);
}

int ccs_flows_set_cap(struct ccs_flows *f, uint32_t res, double cap, ccs_time now)
{
	bury(f, now);
	account(&f->r[res], now);
	f->r[res].cap = cap;
	return mark_dirty(f, res);
}

int ccs_flows_reroute(struct ccs_flows *f, uint32_t id, const uint32_t *res, int n, ccs_time now)
{
	return ccs_flows_reroute_w(f, id, res, NULL, n, now);
}

int ccs_flows_reroute_w(struct ccs_flows *f, uint32_t id, const uint32_t *res, const double *w, int n, ccs_time now)
{
	struct flow *fl = &f->f[id];
	if (!fl->active || n < 0 || n > CCS_FLOW_MAXPATH)
		return CCS_EINTERNAL;
	bury(f, now);
	for (int i = 0; w && i < n; i++)
		if (!(w[i] > 0))
			return CCS_EINTERNAL;
	/* room (and weights) on the new resources first, so that failure
	 * leaves it as it was */
	for (int i = 0; i < n; i++) {
		struct res *r = &f->r[res[i]];
		uint32_t k = 0;   /* a path may cross r more than once */
		for (int q = 0; q <= i; q++)
			k += res[q] == res[i];
		CCS_TRY(room_for(r, k));
		if (w)
			CCS_TRY(weights_on(r));
		CCS_TRY(mark_dirty(f, res[i]));
	}
	settle(f, fl, now);
	for (int i = 0; i < fl->n; i++) {
		account(&f->r[fl->res[i]], now);
		unlink_res(f, id, i);
		CCS_TRY(mark_dirty(f, fl->res[i]));
	}
	fl->rate = 0;
	fl->n = (uint8_t)n;
	fl->weighted = w != NULL;
	for (int i = 0; i < n; i++) {
		struct res *r = &f->r[res[i]];
		fl->res[i] = res[i];
		fl->pos[i] = r->nfl;
		if (r->flw)
			r->flw[r->nfl] = w ? w[i] : 1.0;
		r->fl[r->nfl++] = id;
		r->nw += w != NULL;
	}
	return CCS_OK;
}

uint32_t ccs_flows_count(const struct ccs_flows *f) { return f->nf; }

int ccs_flows_path(const struct ccs_flows *f, uint32_t id, const uint32_t **res)
{
	*res = f->f[id].res;
	return f->f[id].active ? f->f[id].n : 0;
}

/* Give every unfrozen flow on r the rate 'share' and freeze it; returns
 * how many it froze. */
static uint32_t freeze(struct ccs_flows *f, struct res *r, double share)
{
	uint32_t n = 0;
	r->froze = 1;
	r->lvl = share;
	for (uint32_t j = 0; j < r->nfl; j++) {
		struct flow *fl = &f->f[r->fl[j]];
		if (fl->frozen)
			continue;
		fl->frozen = 1;
		n++;
		fl->rate = share;
		for (int q = 0; q < fl->n; q++) {
			struct res *x = &f->r[fl->res[q]];
			double w = wgt(f, fl, q);
			x->rem -= share * w;
			x->load += share * w;
			x->wun -= w;
			x->nun--;
		}
	}
	return n;
}

static double share_of(const struct res *r, double level)
{
	double share = (r->rem > 0 ? r->rem : 0) / r->wun;
	return share < level ? level : share;
}

/* Progressive filling of the component cres[r0..r1) by scanning for the
 * smallest share each round: O(rounds x resources), best when small.  The
 * water level never falls: in exact arithmetic each resource's share stays
 * at or above the last level, so rounding below it is clamped there. */
static void fill_scan(struct ccs_flows *f, const uint32_t *list, uint32_t n)
{
	double level = 0;
	for (;;) {
		double best = HUGE_VAL;
		uint32_t bi = NONE;
		for (uint32_t i = 0; i < n; i++) {
			struct res *r = &f->r[list[i]];
			if (!r->nun)
				continue;
			double share = share_of(r, level);
			if (share < best) {
				best = share;
				bi = i;
			}
		}
		if (bi == NONE)
			break;
		level = best;
		freeze(f, &f->r[list[bi]], best);
	}
}

static void sift_down(struct hent *h, uint32_t n, uint32_t i)
{
	struct hent e = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && (h[c + 1].key < h[c].key || (h[c + 1].key == h[c].key && h[c + 1].i < h[c].i)))
			c++;
		if (h[c].key > e.key || (h[c].key == e.key && h[c].i > e.i))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

/* The same filling with a lazy min-heap of shares: freezing flows at the
 * level only raises the shares of the other resources they cross
 * ((rem - l) / (nun - 1) >= rem / nun when l <= rem / nun), so an entry
 * whose key is below its resource's current share is stale and goes back
 * with the new key; one that is current is the smallest share.  Ties go to
 * the lower position, as in the scan.  O((resources + freezes) log resources). */
static void fill_heap(struct ccs_flows *f, const uint32_t *list, uint32_t nl, uint32_t nflows)
{
	struct hent *h = f->heap;
	uint32_t n = 0;
	for (uint32_t i = 0; i < nl; i++) {
		struct res *r = &f->r[list[i]];
		if (r->nun)
			h[n++] = (struct hent){ share_of(r, 0), i };
	}
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
	/* nflows: the part's unfrozen flows; once none is left the entries
	 * still in the heap have nothing to freeze */
	double level = 0;
	while (n && nflows) {
		struct res *r = &f->r[list[h[0].i]];
		if (!r->nun) {
			h[0] = h[--n];
			sift_down(h, n, 0);
			continue;
		}
		double share = share_of(r, level);
		if (share > h[0].key) {
			h[0].key = share;
			sift_down(h, n, 0);
			continue;
		}
		level = share;
		h[0] = h[--n];
		sift_down(h, n, 0);
		uint32_t fz = freeze(f, r, share);
		nflows = fz < nflows ? nflows - fz : 0;
	}
}

/* Fill the region cres[0..ncr) one connected part at a time (parts share
 * no resource, so they are independent): a lone flow takes the smallest
 * room on its path, small parts are scanned, large ones use the heap. */
static void fill(struct ccs_flows *f, uint32_t r0i, uint32_t ncr, uint32_t ncf)
{
	uint32_t k = 0;
	for (uint32_t i = r0i; i < ncr; i++) {
		struct res *r0 = &f->r[f->cres[i]];
		if (r0->seen)
			continue;
		uint32_t start = k, nfl = 0, first = NONE;
		r0->seen = 1;
		f->corder[k++] = f->cres[i];
		for (uint32_t q = start; q < k; q++) {
			struct res *r = &f->r[f->corder[q]];
			for (uint32_t j = 0; j < r->nfl; j++) {
				struct flow *fl = &f->f[r->fl[j]];
				if (!fl->mark || fl->seen)
					continue;
				fl->seen = 1;
				nfl++;
				first = r->fl[j];
				for (int x = 0; x < fl->n; x++) {
					struct res *y = &f->r[fl->res[x]];
					if (!y->seen) {
						y->seen = 1;
						f->corder[k++] = fl->res[x];
					}
				}
			}
		}
		if (nfl == 1) {
			struct flow *fl = &f->f[first];
			struct res *b = NULL;
			double bs = 0;
			for (int x = 0; x < fl->n; x++) {
				struct res *y = &f->r[fl->res[x]];
				double wy = 0;   /* its weight on y, a path that crosses y twice counted twice */
				for (int q = 0; q < fl->n; q++)
					wy += fl->res[q] == fl->res[x] ? wgt(f, fl, q) : 0;
				double ys = (y->rem > 0 ? y->rem : 0) / wy;
				if (!b || ys < bs) {
					b = y;
					bs = ys;
				}
			}
			freeze(f, b, bs);
		} else if (k - start > HEAP_MIN)
			fill_heap(f, f->corder + start, k - start, nfl);
		else if (nfl)
			fill_scan(f, f->corder + start, k - start);
	}
	for (uint32_t i = 0; i < k; i++)
		f->r[f->corder[i]].seen = 0;
	for (uint32_t i = 0; i < ncf; i++)
		f->f[f->cflow[i]].seen = 0;
}

/* Put resource ri into the region (as a constraint whose other flows keep
 * their rates) if it is not there yet. */
static void take_res(struct ccs_flows *f, uint32_t ri, uint32_t *ncr, ccs_time now)
{
	struct res *r = &f->r[ri];
	if (r->mark)
		return;
	r->mark = IN;
	r->load0 = r->load;
	account(r, now);
	f->cres[(*ncr)++] = ri;
}

/* Open resource ri: every flow on it joins the region (settled at its old
 * rate up to now), and so do the resources those flows cross. */
static void open_res(struct ccs_flows *f, uint32_t ri, uint32_t *ncr, uint32_t *ncf, ccs_time now)
{
	take_res(f, ri, ncr, now);
	struct res *r = &f->r[ri];
	r->mark = OPEN;
	for (uint32_t j = 0; j < r->nfl; j++) {
		struct flow *fl = &f->f[r->fl[j]];
		if (fl->mark)
			continue;
		fl->mark = 1;
		f->cflow[(*ncf)++] = r->fl[j];
		settle(f, fl, now);
		for (int k = 0; k < fl->n; k++)
			take_res(f, fl->res[k], ncr, now);
	}
}

static int saturated(const struct res *r, double load) { return load >= r->cap * (1 - 1e-9); }

/* A flow alone on every resource it crosses (a ring's NVLink hop, say)
 * gets the smallest capacity on its path, whatever else changed: no region
 * needed.  Its resources go first in cres. */
static void alone_flows(struct ccs_flows *f, ccs_time now, uint32_t *ncr_, uint32_t *ncf_)
{
	uint32_t ncr = *ncr_, ncf = *ncf_;
	for (uint32_t d = 0; d < f->ndirty; d++) {
		struct res *r = &f->r[f->dirty[d]];
		if (r->mark || r->nfl != 1)
			continue;
		uint32_t id = r->fl[0];
		struct flow *fl = &f->f[id];
		int alone = 1;
		for (int k = 0; k < fl->n && alone; k++)
			alone = f->r[fl->res[k]].nfl == 1;
		if (!alone)
			continue;
		settle(f, fl, now);
		double best = HUGE_VAL;
		for (int k = 0; k < fl->n; k++) {
			struct res *x = &f->r[fl->res[k]];
			account(x, now);
			x->mark = OPEN;
			f->cres[ncr++] = fl->res[k];
			double c = x->cap / wgt(f, fl, k);
			if (c < best)
				best = c;
		}
		fl->rate = best;
		fl->mark = 1;
		f->cflow[ncf++] = id;
		for (int k = 0; k < fl->n; k++)
			f->r[fl->res[k]].load = best * wgt(f, fl, k);
	}
	*ncr_ = ncr;
	*ncf_ = ncf;
}

/* The weight of r's flows (their count when none is a class). */
static double weight_on(const struct res *r)
{
	if (!r->nw)
		return (double)r->nfl;
	double w = 0;
	for (uint32_t j = 0; j < r->nfl; j++)
		w += r->flw[j];
	return w;
}

/* A round's start: open resources offer their capacity to the region's
 * flows; constraints what the outside flows leave (those flows frozen at
 * their rates).  Returns how many constraints are shared with outside flows
 * (listed in shq). */
static uint32_t prepare_round(struct ccs_flows *f, uint32_t nfast, uint32_t ncr)
{
	uint32_t nsh = 0;
	for (uint32_t i = nfast; i < ncr; i++) {
		struct res *r = &f->r[f->cres[i]];
		r->froze = 0;
		if (r->mark == OPEN) {
			r->rem = r->cap;
			r->nun = r->nfl;
			r->wun = weight_on(r);
			r->load = 0;
			continue;
		}
		double out = 0, win = 0;
		uint32_t in = 0;
		for (uint32_t j = 0; j < r->nfl; j++) {
			struct flow *fl = &f->f[r->fl[j]];
			double w = r->flw ? r->flw[j] : 1.0;
			if (fl->mark) {
				in++;
				win += w;
			} else {
				out += fl->rate * w;
				fl->frozen = 1;
			}
		}
		r->load = out;
		r->rem = r->cap - out;
		r->nun = in;
		r->wun = win;
		if (in < r->nfl)
			f->shq[nsh++] = f->cres[i];
	}
	return nsh;
}

/* Check the constraints shared with flows outside: a region flow stopped
 * there must not get less than an outside flow on it, and an outside flow
 * whose bottleneck it was must keep it (still saturated, no region flow
 * above it).  Returns how many fail (listed in xq). */
static uint32_t check_shared(struct ccs_flows *f, uint32_t nsh)
{
	uint32_t nopen = 0;
	for (uint32_t i = 0; i < nsh; i++) {
		uint32_t ri = f->shq[i];
		struct res *r = &f->r[ri];
		double max_out = 0, min_out = HUGE_VAL, max_in = 0;
		for (uint32_t j = 0; j < r->nfl; j++) {
			const struct flow *fl = &f->f[r->fl[j]];
			if (!fl->mark) {
				max_out = fl->rate > max_out ? fl->rate : max_out;
				min_out = fl->rate < min_out ? fl->rate : min_out;
			} else if (fl->rate > max_in)
				max_in = fl->rate;
		}
		if (min_out == HUGE_VAL)
			continue;           /* no outside flows */
		int sat = saturated(r, r->load);
		int bad = (sat && r->froze && r->lvl < max_out * (1 - 1e-9)) ||
		          (saturated(r, r->load0) && (!sat || max_in > min_out * (1 + 1e-9)));
		if (bad)
			f->xq[nopen++] = ri;
	}
	return nopen;
}

/* The next round would open every constraint with outside flows, one
 * layer per round: take the whole component now, so that it is filled once,
 * not once per layer. */
static void open_component(struct ccs_flows *f, uint32_t nfast, uint32_t *ncr, uint32_t *ncf, ccs_time now)
{
	for (uint32_t i = nfast; i < *ncr; i++) {
		struct res *r = &f->r[f->cres[i]];
		if (r->mark == OPEN)
			continue;
		for (uint32_t j = 0; j < r->nfl; j++)
			if (!f->f[r->fl[j]].mark) {
				open_res(f, f->cres[i], ncr, ncf, now);
				break;
			}
	}
}

/* After the region is settled: peak utilisation of what it touched, and
 * each changed flow's finish queued through fn (one outstanding event per
 * flow). */
static int finish(struct ccs_flows *f, uint32_t ncr, uint32_t ncf, ccs_time now, ccs_flow_sched_fn *fn, void *ctx)
{
	f->ntouched = ncr;
	if (ncf) {
		f->reg_max = ncf > f->reg_max ? ncf : f->reg_max;
		f->reg_sum += ncf;
		f->reg_n++;
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
		fl->frozen = 0;
		fl->handed = 0;
		CCS_TRY(queue_end(f, id, now, fn, ctx));
	}
	return CCS_OK;
}

int ccs_flows_update(struct ccs_flows *f, ccs_time now, ccs_flow_sched_fn *fn, void *ctx)
{
	uint32_t ncr = 0, ncf = 0;
	bury(f, now);
	alone_flows(f, now, &ncr, &ncf);
	uint32_t nfast = ncr;
	/* The region: the dirty resources are open (all their flows are
	 * recomputed); the other resources those flows cross are constraints
	 * whose remaining flows keep their rates. */
	for (uint32_t d = 0; d < f->ndirty; d++) {
		f->r[f->dirty[d]].dirty = 0;
		if (f->r[f->dirty[d]].mark != OPEN)
			open_res(f, f->dirty[d], &ncr, &ncf, now);
	}
	f->ndirty = 0;
	for (int round = 0;; round++) {
		/* Fill the region's flows against what the others leave; then
		 * open the shared constraints that fail and refill: the region
		 * only grows, so this ends, at worst with the whole component,
		 * which a third round takes at once. */
		uint32_t nsh = prepare_round(f, nfast, ncr);
		for (uint32_t i = 0; i < ncf; i++)
			f->f[f->cflow[i]].frozen = 0;
		fill(f, nfast, ncr, ncf);
		uint32_t nopen = check_shared(f, nsh);
		if (!nopen)
			break;
		for (uint32_t i = 0; i < nopen; i++)
			open_res(f, f->xq[i], &ncr, &ncf, now);
		if (round >= 2)
			open_component(f, nfast, &ncr, &ncf, now);
	}
	CCS_TRY(finish(f, ncr, ncf, now, fn, ctx));
	return ccs_flows_handoff_finish(f, now, fn, ctx);
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
int ccs_flows_beyond(const struct ccs_flows *f) { return f->beyond; }
void ccs_flows_regions(const struct ccs_flows *f, uint32_t *largest, double *mean)
{
	*largest = f->reg_max;
	*mean = f->reg_n ? (double)f->reg_sum / (double)f->reg_n : 0;
}
double ccs_flows_cap(const struct ccs_flows *f, uint32_t res) { return f->r[res].cap; }
const struct ccs_res_stats *ccs_flows_stats(const struct ccs_flows *f, uint32_t res) { return &f->r[res].st; }

double ccs_flows_left(const struct ccs_flows *f, uint32_t id, ccs_time now)
{
	const struct flow *fl = &f->f[id];
	double left = fl->left - ccs_time_moved(fl->rate, now - fl->t_last);
	return left > 0 ? left : 0;
}

double ccs_flows_load(const struct ccs_flows *f, uint32_t res)
{
	double s = 0;
	const struct res *r = &f->r[res];
	for (uint32_t j = 0; j < r->nfl; j++) {
		const struct flow *fl = &f->f[r->fl[j]];
		s += fl->rate * (r->flw ? r->flw[j] : 1.0);
	}
	return s;
}

int ccs_flows_expand(const struct ccs_flows *q, uint32_t nres, const double *cap, const uint32_t *cls,
                     struct ccs_flows **out)
{
	CCS_TRY(ccs_flows_new(out, nres, cap));
	for (uint32_t i = 0; i < nres; i++)
		if (cls[i] != UINT32_MAX)
			(*out)->r[i].st = q->r[cls[i]].st;
	return CCS_OK;
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
