/*
** sim/synth/synth_arbo.h: minimum-cost spanning arborescence (Chu-Liu /
** Edmonds), the pricing step of the tree packing (synth.h).
**
** Given nodes 0..nv-1, a root and directed edges (u_k -> v_k, cost w_k),
** find the edge set T in which every node but the root has exactly one
** entering edge, T has no cycle (so every node is reached from the root),
** and sum_{k in T} w_k is least.  Each round takes every node's cheapest
** entering edge; a cycle among them is contracted into one node, the
** costs of the edges entering it lowered by the cost of the cycle edge
** they would replace, and the search repeats on the smaller graph; the
** contractions are then undone from the last, each cycle keeping all its
** edges but the one the chosen entering edge replaces.  O(nv m) at worst.
*/
#ifndef CCS_SYNTH_ARBO_H
#define CCS_SYNTH_ARBO_H

#include <stdint.h>

/* sel[v] gets the index k of the edge entering v (-1 at the root) and
 * *cost the total.  CCS_OK; CCS_EINPUT when a node cannot be reached from
 * the root; CCS_ENOMEM. */
int ccs_synth_arbo(int nv, int root, int m, const int32_t *u, const int32_t *v, const double *w, int32_t *sel,
                   double *cost);

#endif
