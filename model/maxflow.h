/*
** model/maxflow.h: maximum flow on an undirected capacity graph (Dinic).
**
** Each edge {u, v} has a capacity per direction, c(u->v) and c(v->u), as a
** full-duplex link does.  ccs_maxflow_run() finds the largest flow from s to t
** with every arc within its capacity; O(V^2 E) worst case, near-linear on
** the layered graphs of fabrics.  Capacities below 1e-12 of the largest are
** treated as zero.  The network keeps the residual capacities afterwards:
** ccs_maxflow_flow() reads an edge's net flow.
*/
#ifndef CCS_MAXFLOW_H
#define CCS_MAXFLOW_H

#include "ccs.h"

struct ccs_maxflow {
	uint32_t nv, ne;            /* vertices; edges (each = 2 arcs) */
	size_t ecap;
	uint32_t *eu, *ev;          /* edge ends */
	double *c;                  /* 2*ne residual capacities: 2i u->v, 2i+1 v->u */
	double *c0;                 /* the capacities as added */
	uint32_t *off, *arcs;       /* CSR of arcs by tail, built by ccs_maxflow */
};

/* Add edge {u, v}; vertices are 0..nv-1 (set f->nv before ccs_maxflow_run). */
int  ccs_maxflow_add(struct ccs_maxflow *f, uint32_t u, uint32_t v, double cuv, double cvu);
/* Max flow value from s to t into *out.  CCS_ENOMEM on allocation failure. */
int  ccs_maxflow_run(struct ccs_maxflow *f, uint32_t s, uint32_t t, double *out);
/* Net flow on edge e from its u to its v (negative: v to u). */
double ccs_maxflow_flow(const struct ccs_maxflow *f, uint32_t e);
/* Restore every capacity, for another ccs_maxflow on the same edges. */
void ccs_maxflow_reset(struct ccs_maxflow *f);
/* Forget edges and flows, keep nothing. */
void ccs_maxflow_release(struct ccs_maxflow *f);

#endif
