/*
** sim/flow.h: max-min fair sharing of capacities among flows.
**
** Resources have a capacity c_r [B/s]; a flow crosses up to CCS_FLOW_MAXPATH
** resources and has bytes left.  The allocation is max-min fair, found by
** progressive filling: repeatedly take the resource with the smallest fair
** share (c_r - frozen load) / (unfrozen flows on r), give that share to its
** unfrozen flows and freeze them.  Every flow then crosses a saturated
** resource on which no other flow gets more, and no resource is above its
** capacity.
**
** Incremental: adding or removing a flow marks its resources dirty;
** ccs_flows_update(now) recomputes a region and leaves every other rate
** alone.  A dirty flow alone on every resource it crosses simply gets the
** smallest capacity on its path.  The dirty resources are opened (all their flows join), and the
** other resources those flows cross are constraints on which the flows
** outside keep their rates.  After filling, each constraint is checked:
** a region flow stopped there must get at least what the outside flows on
** it get, and an outside flow for which it was a bottleneck must still
** find it saturated with no region flow above it.  A constraint that fails
** is opened and the region refilled (a third round takes the whole
** connected component at once), so the result is the max-min
** allocation of the whole system, which is unique; usually the region is
** a few saturated links, not the connected component.  Flows entering the
** region are settled at their old rates up to now; a flow whose end moved
** earlier than its outstanding event (or that has none) is reported; an
** end that moved later keeps the event, and ccs_flows_due() re-arms it
** when it fires, so each flow has at most one live event.  Filling scans
** for the smallest share in small regions and uses a lazy heap of shares
** in large ones.  Bytes left shrink through ccs_sub_snap semantics: below
** CCS_EPS_BYTES they are 0.
** Handoffs: a flow removed and one added at the same instant on the same
** resources with the same weights change no rate (the allocation is a
** function of the multiset of paths): a removed flow stays on its
** resources until the instant's update, and one added on its path takes
** its place, rate and lists as they are, recomputing nothing
** (flow_handoff.c).  Ids of removed flows are free after the update.
** Knows nothing of links or NICs: resources are numbers.
**
** Classes (weighted flows): a flow may stand for a class of m equivalent
** flows crossing a class of n equivalent resources, with weight w = (the
** members' crossings of that class) / n on it: its rate is one member's,
** a resource's load is sum(rate x w) over its flows, and filling uses
**   share(r) = (c_r - frozen load) / sum(w of unfrozen flows on r).
** Where the classes form an equitable partition (every member of a flow
** class crosses each resource class equally often, every member of a
** resource class is crossed equally often by each flow class), this is
** the expanded system's max-min allocation: filling keeps a class's
** members at one level, so they freeze together (sim/classes.h).  Bytes
** moved count rate x w per resource: one member resource's.  A flow of
** weight 1 everywhere is an ordinary flow, and the arithmetic is the same.
*/
#ifndef CCS_FLOW_H
#define CCS_FLOW_H

#include "evq.h"

#define CCS_FLOW_MAXPATH 16
#define CCS_EPS_BYTES 1e-6

struct ccs_flows;

/* Resource statistics, kept while flows run. */
struct ccs_res_stats {
	double bytes;               /* moved through the resource */
	double busy_s;              /* time with at least one flow moving */
	double peak_util;           /* highest sum of rates / capacity */
};

/* Called for each flow whose completion time changed. */
typedef int ccs_flow_sched_fn(void *ctx, uint32_t flow, ccs_time done, uint32_t version);

int  ccs_flows_new(struct ccs_flows **out, uint32_t nres, const double *cap_Bps);
void ccs_flows_free(struct ccs_flows *f);

/* Start a flow of 'bytes' over res[0..n) at time now; *id gets its id.
 * Zero-byte flows are allowed (they complete at once). */
int  ccs_flows_add(struct ccs_flows *f, const uint32_t *res, int n, double bytes, uint64_t tag,
                   ccs_time now, uint32_t *id);
/* The same for a class (above): w[i] > 0 its weight on res[i] (NULL: 1
 * everywhere, ccs_flows_add).  A reroute makes it an ordinary flow unless
 * it gives weights (ccs_flows_reroute_w). */
int  ccs_flows_add_w(struct ccs_flows *f, const uint32_t *res, const double *w, int n, double bytes, uint64_t tag,
                     ccs_time now, uint32_t *id);
/* Remove a finished (or cancelled) flow at time now. */
void ccs_flows_remove(struct ccs_flows *f, uint32_t id, ccs_time now);
/* Change a resource's capacity at time now (a fault striking): its flows
 * are settled at their old rates up to now by the next update. */
int  ccs_flows_set_cap(struct ccs_flows *f, uint32_t res, double cap, ccs_time now);
/* Move active flow id to the path res[0..n) at time now, with the bytes
 * it has left, its id, tag and outstanding event (a reroute). */
int  ccs_flows_reroute(struct ccs_flows *f, uint32_t id, const uint32_t *res, int n, ccs_time now);
/* The same for a class: w[i] > 0 its weight on res[i] (NULL: 1). */
int  ccs_flows_reroute_w(struct ccs_flows *f, uint32_t id, const uint32_t *res, const double *w, int n,
                         ccs_time now);
/* Flow ids run below ccs_flows_count; *res gets an active flow's path and
 * the result its length (0 for an inactive id). */
uint32_t ccs_flows_count(const struct ccs_flows *f);
int      ccs_flows_path(const struct ccs_flows *f, uint32_t id, const uint32_t **res);
/* Settle and recompute the dirty components; report new completion times. */
int  ccs_flows_update(struct ccs_flows *f, ccs_time now, ccs_flow_sched_fn *fn, void *ctx);

/* A flow's event fired at now (with its current version): 1 if the flow
 * is done; else 0 and *again, the time to fire again (its end moved later
 * since the event was set; the version stays). */
int ccs_flows_due(struct ccs_flows *f, uint32_t id, ccs_time now, ccs_time *again);

/* Accessors. */
uint32_t ccs_flows_version(const struct ccs_flows *f, uint32_t id);
uint64_t ccs_flows_tag(const struct ccs_flows *f, uint32_t id);
double   ccs_flows_rate(const struct ccs_flows *f, uint32_t id);
double   ccs_flows_bytes(const struct ccs_flows *f, uint32_t id);   /* as started */
double   ccs_flows_left(const struct ccs_flows *f, uint32_t id, ccs_time now);
uint32_t ccs_flows_active(const struct ccs_flows *f);
/* Whether some flow's end fell past the horizon (CCS_TIME_MAX): it never
 * ends, and a run that waits for it must say so rather than "deadlock". */
int      ccs_flows_beyond(const struct ccs_flows *f);
/* The rate updates' regions (the flows each recomputed, at most a
 * connected component of the max-min system): the largest, and the mean
 * over the updates that recomputed any (0 when none did). */
void     ccs_flows_regions(const struct ccs_flows *f, uint32_t *largest, double *mean);
/* Sum of rates on a resource (for checks), its capacity, its statistics. */
double   ccs_flows_load(const struct ccs_flows *f, uint32_t res);
double   ccs_flows_cap(const struct ccs_flows *f, uint32_t res);
/* The resources whose rates the last ccs_flows_update recomputed (valid
 * until the next change). */
const uint32_t *ccs_flows_touched(const struct ccs_flows *f, uint32_t *n);
const struct ccs_res_stats *ccs_flows_stats(const struct ccs_flows *f, uint32_t res);
/* A solver with no flows over nres resources of capacities cap whose
 * statistics are those of resource cls[i] of q (UINT32_MAX: none): a class
 * run's per-resource results spread back over the members. */
int ccs_flows_expand(const struct ccs_flows *q, uint32_t nres, const double *cap, const uint32_t *cls,
                     struct ccs_flows **out);
/* Check max-min optimality of the current allocation: every flow with a
 * positive rate crosses a resource loaded to capacity on which its rate is
 * the largest.  Returns the number of violations. */
uint32_t ccs_flows_check(const struct ccs_flows *f);

#endif
