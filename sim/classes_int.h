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
	int dep_refine;             /* the lanes' dependencies' classes in their colours (classes_refine.c
	                             * lane_sig): 0 none, 1 those within a step (dt 0), 2 every kind */
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

/* Small helpers both files use: a 64-bit mix, sorting a few ids, a
 * double's bits, capacities in epoch e, lane l's route in epoch e (*n its
 * length), crossing x of a resource as (lane class, epoch). */
#include <stdlib.h>
#include <string.h>

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t x = (h ^ (v * 0x9e3779b97f4a7c15ull)) + 0x632be59bd9b4e019ull;
	x ^= x >> 31;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 29;
	return x;
}

static inline int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static inline void sort_u32(uint32_t *v, uint32_t n)
{
	if (n > 24) {
		qsort(v, n, sizeof *v, cmp_u32);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static inline uint64_t bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* Resource capacities in epoch e. */
static inline const double *cap_at(const struct ccs_classes *k, uint32_t e)
{
	return e ? k->ecap + (size_t)(e - 1) * k->nres : k->cap_of;
}

/* Lane l's route in epoch e: its resources, *n their count. */
static inline const uint32_t *route_of(const struct ccs_classes *k, uint32_t l, uint32_t e, int *n)
{
	size_t x = (size_t)l * k->E + e;
	*n = k->rn[x];
	return k->route + x * MP;
}

/* Crossing x of a resource as (lane class, epoch). */
static inline uint32_t crossing(const struct ccs_classes *k, uint32_t x)
{
	return k->lc[x / k->E] * k->E + x % k->E;
}

/* classes_refine.c: the coarsest equitable partition.
 * ccs_classes_refine: refine to the fixed point from lane colours init (and,
 * first, resources by capacity; again, from their classes); *ok 1 when it
 * settled within max_q classes and max_rounds rounds, 0 when not.  A
 * lane's colour is its class, with dep_refine the classes of the lanes it
 * waits for, and epoch by epoch the multiset of its route's resource
 * classes; a resource's, its class and the multiset of its crossings'
 * (lane class, epoch).
 * ccs_classes_refine_verify: the exact check of what the hashes claimed
 * (every lane like its class's representative, every resource like its
 * class's), *ok 0 on a collision; one member's capacity per class (rcap). */
int ccs_classes_refine(struct ccs_classes *k, const uint64_t *init, int again, int *ok);
int ccs_classes_refine_verify(struct ccs_classes *k, int *ok);

#endif
