/*
** sim/flow_int.h: the flow solver's state (flow.h), shared by flow.c (the
** max-min filling) and flow_handoff.c (a flow replaced on its own path
** keeps its rate).
*/
#ifndef CCS_FLOW_INT_H
#define CCS_FLOW_INT_H

#include "flow.h"

#include "../model/ccs.h"

/* Hot fields first: filling and settling read the flags, rate, bytes
 * left and the path, which then share the first two cache lines. */
struct flow {
	uint8_t n, active, mark, frozen, seen, weighted;
	uint8_t handed;                    /* revived at a handoff, end not queued yet */
	uint8_t zombie;                    /* removed, still on its resources until the update */
	uint32_t ver, next_free;
	double rate, left;
	ccs_time t_last;
	uint32_t res[CCS_FLOW_MAXPATH];
	uint32_t pos[CCS_FLOW_MAXPATH];    /* index in each resource's list */
	double bytes;
	ccs_time done, pending;            /* expected end; time of its outstanding event */
	uint64_t tag;
};

struct res {
	double cap, load, rem;
	double wun;                 /* weight of the unfrozen flows (their count when unweighted) */
	double load0, lvl;          /* load before the update; level it froze at */
	uint32_t *fl, nfl, capfl, nun;
	uint32_t nw;                /* weighted flows (classes) in fl */
	double *flw;                /* beside fl once a class joins: each entry's weight */
	uint8_t dirty, mark, froze, seen; /* mark: 0, IN or OPEN during an update */
	ccs_time t_stat;
	struct ccs_res_stats st;
};

struct hent {
	double key;
	uint32_t i;
};

struct ccs_flows {
	uint32_t nres;
	struct res *r;
	struct flow *f;
	size_t capf;
	uint32_t nf, free_head, nactive;
	uint32_t *dirty, *cres, *cflow;
	struct hent *heap;          /* nres entries, for fill_heap */
	size_t capdirty, capcres, capcflow;
	uint32_t *xq;               /* nres entries: resources to open next */
	uint32_t *corder;           /* nres entries: the region by connected part */
	uint32_t *shq;              /* nres entries: constraints shared with outside flows */
	uint32_t ndirty;
	uint32_t ntouched;          /* cres[0..ntouched): recomputed by the last update */
	int beyond;                 /* a flow's end fell past CCS_TIME_MAX */
	uint32_t reg_max;           /* the updates' regions: largest, sum and count (ccs_flows_regions) */
	uint64_t reg_sum, reg_n;
	struct ccs_handoff *ho;     /* flow_handoff.c, made on first use */
};

/* A flow's weight on slot q of its path, kept beside the resource's list
 * at the flow's position there: 1 unless it is a class. */
static inline double wgt(const struct ccs_flows *f, const struct flow *fl, int q)
{
	const struct res *r = &f->r[fl->res[q]];
	return r->flw ? r->flw[fl->pos[q]] : 1.0;
}

/* Flow fl's bytes moved at its rate up to now. */
static inline void settle(struct ccs_flows *f, struct flow *fl, ccs_time now)
{
	if (now > fl->t_last && fl->rate > 0) {
		double moved = ccs_time_moved(fl->rate, now - fl->t_last);
		if (moved > fl->left)
			moved = fl->left;
		fl->left -= moved;
		if (fl->left < CCS_EPS_BYTES)
			fl->left = 0;
		for (int i = 0; i < fl->n; i++)
			f->r[fl->res[i]].st.bytes += moved * wgt(f, fl, i);
	}
	fl->t_last = now;
}

/* Queue flow id's end at its rate from now through fn, unless an earlier
 * event is already out (an update's recomputed flows, and handed ones). */
static inline int queue_end(struct ccs_flows *f, uint32_t id, ccs_time now, ccs_flow_sched_fn *fn, void *ctx)
{
	struct flow *fl = &f->f[id];
	ccs_time done;
	if (fl->left <= 0)
		done = now;
	else if (fl->rate > 0)
		done = ccs_time_after(now, fl->left / fl->rate);
	else
		done = CCS_TIME_MAX;
	f->beyond |= fl->rate > 0 && done == CCS_TIME_MAX;
	/* One outstanding event per flow: a later end keeps the earlier event
	 * (ccs_flows_due re-arms it when it fires), an earlier end replaces it. */
	if (done != fl->done) {
		fl->done = done;
		if (done != CCS_TIME_MAX && (fl->pending < 0 || done < fl->pending)) {
			fl->ver++;
			fl->pending = done;
			CCS_TRY(fn(ctx, id, done, fl->ver));
		}
	}
	return CCS_OK;
}

#define NONE UINT32_MAX
/* Components above this many resources are filled with a heap. */
#define HEAP_MIN 48
enum { IN = 1, OPEN = 2 };

/* flow_handoff.c: at one instant, a flow that ends and one that starts on
 * the same resources with the same weights leave the system as it was (a
 * pipeline's next chunk on a hop: most starts of a tree's class run).
 * keep: flow id is being removed at now; 1 when it stays on its resources
 * as a zombie (inactive, its rate still loading them; 0: remove it now).
 * stale: zombies of an earlier instant wait (remove them first).
 * revive: a flow is added at now on res with weights w (NULL: 1): the
 * zombie that takes its place, its lists and rate as they are (its
 * version is to go up by one), or NONE.  zombies: this instant's (those
 * still zombies the update removes for good) and their instant, then
 * forget them; finish:
 * after the update, queue the end of each revived flow it did not
 * recompute. */
int             ccs_flows_handoff_keep(struct ccs_flows *f, uint32_t id, ccs_time now);
int             ccs_flows_handoff_stale(const struct ccs_flows *f, ccs_time now);
uint32_t        ccs_flows_handoff_revive(struct ccs_flows *f, const uint32_t *res, const double *w, int n,
                                         ccs_time now);
const uint32_t *ccs_flows_handoff_zombies(const struct ccs_flows *f, uint32_t *n, ccs_time *at);
void            ccs_flows_handoff_forget(struct ccs_flows *f);
int             ccs_flows_handoff_finish(struct ccs_flows *f, ccs_time now, ccs_flow_sched_fn *fn, void *ctx);
void            ccs_flows_handoff_free(struct ccs_flows *f);


#endif
