/*
** sim/classes.h: flow classes: a lane schedule's equivalent transfers
** simulated once, by the fabric's symmetry.
**
** A lane schedule (sched.h, ccs_sched_lanes) runs op(t, l) for t < T over
** lanes l < L, each lane on a fixed route of resources.  Colour refinement
** (one-dimensional Weisfeiler-Leman) over lanes and resources finds the
** coarsest equitable partition: lanes start in classes by key, op kind,
** bytes, delay and start offset, resources by capacity; each round splits a
** lane by the multiset of its route's resource classes and a resource by
** the multiset of the classes of the lanes that cross it, until a round
** splits nothing.  Then for lane class q and resource class R
**   every lane of q crosses R's members a(q,R) times in all,
**   every member of R is crossed b(R,q) times by lanes of q.
** A class op (t, q) stands for op(t, l), l in q: one flow of weight
** b(R,q) on R (flow.h), at one member's rate.  The partition is found from
** the routes themselves (the graph), not from a preset's name: a faulted
** link, a slow GPU or an ECMP collision is a resource unlike the others and
** splits exactly the classes that cross it.
**
** Exactness.  While class ops start whole (their members at one time), the
** active flows are a union of whole classes, on which the partition stays
** equitable; progressive filling then gives every member of a class one
** level, so the class solution is the expanded max-min allocation, and
** members keep one start, one rate and one end.  A class op waits for the
** class ops holding its members' dependencies; its members start whole when
** every member's latest dependency ends at one time.  Routes alone do not
** promise that (around a ring every position inside a node has the same
** route shape, but a position after the network hop gets its data later
** than one after an NVLink hop), so a run checks it at every start
** (ccs_classes_whole) and, at the first class op that would not start
** whole, stops: its members get colours by the time they would be ready,
** the partition is refined from there (ccs_classes_split) and the run starts
** again from time 0 on the new classes.  Restarts only split, so they end; a run that completes started
** every class op whole, and is exact.  Where timing differs everywhere (a
** straggler on a small ring) the classes become as many as the lanes and
** the caller runs per flow instead.
**
** Timed faults.  A fault timed into the run (SPEC@TIME) cuts the run into
** epochs, each with its capacities and routes (a link down moves the
** transfers that start after it, and those that crossed it, to other
** paths).  A lane then has a route per epoch, a resource a capacity per
** epoch, and the refinement runs on crossings labelled by epoch: every
** lane of q crosses R a_e(q,R) times in epoch e and every member of R is
** crossed b_e(R,q) times, so a resource struck at TIME is unlike the
** others from the start and splits exactly the classes that cross it.  A
** class op takes its epoch's path when it starts and keeps it until a
** strike kills a resource class on it (every member of a dead class is
** dead), then takes the current epoch's with what it has left, as each
** member would.
**
** Cost: building is rounds x (lanes x epochs x route + crossings); a run is
** T x Q class ops where the expanded run has T x L ops.
*/
#ifndef CCS_CLASSES_H
#define CCS_CLASSES_H

#include "flow.h"
#include "sched/sched.h"

struct ccs_classes;

/* What the lanes run on: a route for an op in the fabric's current state
 * (CCS_EINPUT: no live path), a root op's late start [s], and the
 * resources as the solver sees them in epoch 0 (cap).  With timed faults,
 * nepochs > 1 and epoch(ctx, e, cap) moves the fabric to epoch e (called
 * for e = 1, 2, .. in order, after epoch 0's routes) and writes its nres
 * capacities into cap; the caller moves the fabric back afterwards. */
struct ccs_classes_env {
	void *ctx;
	int (*route)(void *ctx, uint64_t id, const struct ccs_op *op, uint32_t *res, int *n);
	double (*late_s)(void *ctx, const struct ccs_op *op);
	uint32_t nres;
	const double *cap;
	uint32_t nepochs;
	int (*epoch)(void *ctx, uint32_t e, double *cap);
};

/* Lump s's lanes on env.  *out NULL with *why set when classes do not
 * apply (no lane view, a lane with no path, more than max_q classes,
 * refinement not settled in max_rounds rounds); CCS_ENOMEM.  s and env's
 * arrays must outlive *out. */
int  ccs_classes_new(const struct ccs_sched *s, const struct ccs_classes_env *env, uint32_t max_q,
                     uint32_t max_rounds, struct ccs_classes **out, const char **why);
/* Class op qid would not start whole: tell its members apart by the time
 * their own dependencies ended and refine again (routes are kept; class
 * numbers change, so a run on k starts over).  *why set when classes no
 * longer apply (then k is not to be run, only freed); CCS_ENOMEM. */
int  ccs_classes_split(struct ccs_classes *k, uint64_t qid, const char **why);
/* Refine the partition further by the lanes' dependencies: a lane's colour
 * also holds the classes of the lanes it waits for, within its step
 * (all 0: the kinds with dt 0, a tree's children and parent, whose ends
 * decide when a lane of a step is ready) or of every kind (all 1), so that
 * members of a class wait for members of one class.  Where that does not
 * settle or grows the classes past growth times their number (growth 0:
 * past the cap the classes were built with), the partition stays as it was
 * (*kept 0; a ring's positions told apart by their predecessors' classes,
 * a difference that travels round it).  *why only when not even that could
 * be rebuilt. */
int  ccs_classes_by_deps(struct ccs_classes *k, int all, uint32_t growth, int *kept, const char **why);
void ccs_classes_free(struct ccs_classes *k);

/* The class schedule: op t Q + q is class op (t, q), filled as lane
 * rep(q)'s op(t); it waits for the class ops of its members' dependencies.
 * Valid while k lives (its release frees nothing); its maxsucc says how
 * many class ops one releases at most.  CCS_EINPUT with *why when a class
 * op would wait for more than max_wait class ops. */
int ccs_classes_sched(struct ccs_classes *k, uint32_t max_wait, struct ccs_sched *q, const char **why);

uint32_t ccs_classes_count(const struct ccs_classes *k);          /* Q */
uint32_t ccs_classes_members(const struct ccs_classes *k, uint32_t q);
/* Class op qid's flow in epoch e: resource classes and weights; returns
 * the count. */
int ccs_classes_path(const struct ccs_classes *k, uint64_t qid, uint32_t e, const uint32_t **res,
                     const double **w);
/* Resource classes: their count, one member's capacity in epoch e, each
 * resource's class (UINT32_MAX: crossed by no lane). */
uint32_t        ccs_classes_epochs(const struct ccs_classes *k);
uint32_t        ccs_classes_nres(const struct ccs_classes *k);
const double   *ccs_classes_caps(const struct ccs_classes *k, uint32_t e);
const uint32_t *ccs_classes_of_res(const struct ccs_classes *k);

/* Class op qid ended at t (the checks below need it). */
void ccs_classes_done(struct ccs_classes *k, uint64_t qid, ccs_time t);
/* Whether class op qid's members all become ready at one time: every
 * member's latest dependency ended at the same time (1 at once for a
 * class whose members wait on the same class ops). */
int  ccs_classes_whole(const struct ccs_classes *k, uint64_t qid);

#endif
