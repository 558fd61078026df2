/*
** sim/classes_int.h: the flow classes' state (classes.h), shared by
** classes.c (building, refining, the checks during a run) and
** classes_sched.c (the class schedule).  Nothing else includes it.
*/
#ifndef CCS_CLASSES_INT_H
#define CCS_CLASSES_INT_H

#include "classes.h"

#define MP CCS_FLOW_MAXPATH
#define NONE UINT32_MAX

struct ccs_classes {
	const struct ccs_sched *s;
	struct ccs_sched_lanes ln;
	uint32_t L, nres, Q, R;
	uint32_t E;                 /* epochs: 1 + the timed faults' strike times */
	uint32_t max_q, max_rounds;
	int dep_refine;             /* the lanes' dependencies' classes in their colours (classes.c lane_sig) */
	const double *cap_of;       /* nres: the solver's capacities (epoch 0) */
	double *ecap;               /* (E - 1) x nres: those of epochs 1 .. E - 1 */
	uint32_t *route;            /* L x E x MP: each lane's resources, epoch by epoch */
	uint8_t *rn;                /* L x E: route lengths */
	uint64_t *sig0;             /* L: first colours (key, kind, bytes, delay, start) */
	uint32_t *roff, *rlanes;    /* resource -> crossings l E + e (CSR, nres + 1) */
	uint32_t *pj[CCS_SCHED_MAXDEPK];            /* L: pred(j, l) */
	uint32_t *lc, *rc;          /* lane and resource classes */
	uint32_t *rep, *nmem;       /* Q: a representative lane, the member count */
	uint64_t *qlen;             /* Q: the class's lanes' length (ops); NULL: T each */
	double *rcap;               /* E x R: one member's capacity */
	uint32_t *pres;             /* Q x E x MP: class paths, epoch by epoch */
	double *pw;
	uint8_t *pn;                /* Q x E */
	uint32_t *doff[CCS_SCHED_MAXDEPK], *dq[CCS_SCHED_MAXDEPK];   /* D_j(q): dependency classes */
	uint32_t *qoff[CCS_SCHED_MAXDEPK], *qs[CCS_SCHED_MAXDEPK];   /* S_j(q): classes that wait on q */
	uint32_t *goff;             /* per class its members' distinct dependency tuples: */
	uint32_t *tup;              /* ndep classes each (NONE: no dependency of that kind) */
	ccs_time *done;             /* T x Q end times, when some class has two tuples */
};

/* Class op qid is past its lanes' end: a no-op (no wait, no cost), which
 * nothing waits for and which releases nothing. */
static inline int ccs_classes_absent(const struct ccs_classes *k, uint64_t qid)
{
	return k->qlen && qid / k->Q >= k->qlen[qid % k->Q];
}

#endif
