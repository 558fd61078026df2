/*
** sim/sched/a2a_agg.h: NCCL's AllToAll with its sends merged by
** destination leaf, the declared approximation `--fidelity aggregate`
** asks for (docs/simulator.md measures its error against every flow).
**
** A rank's sends to the ranks of its own group stay as they are.  Its sends
** to the ranks behind one leaf switch (the switch their best NIC hangs
** off; a rail group on a rail-optimized fabric), outside its group, become
** one transfer of their bytes, placed where the first of them is in NCCL's
** rounds, to one representative receiver: the ((sender's position) mod
** cnt)-th of those cnt ranks in group order.  Every receiver behind a leaf
** then gets its share of the bytes within one send, as in the exchange;
** what is lost is the order of the rounds inside a leaf's sends and how the
** network spreads one leaf's destinations over its paths (a representative
** takes one path where D-mod-k or a hash would spread the cnt sends).
** Ops: (group size - 1) + the leaves a rank reaches, instead of n - 1.
** Where the network hashes flows onto paths (ECMP), the cnt sends of a
** merged op would take about as many different paths: it moves as
** min(cnt, CCS_A2A_AGG_WAYS) equal parts over as many of the equal-cost
** paths (ccs_op.ways).  One path puts a leaf's merged ops on a few uplinks
** (1,024 ranks of cluster-16k-3tier, 64 MiB: 18% slower than every flow);
** 4, 8, 16 ways: 0.47%, 0.30%, 0.18% slower, the run 7.8, 17.5, 37.6 s
** (every flow: 294 s).  Destination-based routing needs no parts: a
** representative's path carries what the sends' paths would, uplink by
** uplink (a2a_agg.c).
*/
#ifndef CCS_SCHED_A2A_AGG_H
#define CCS_SCHED_A2A_AGG_H

#include "../../model/comm.h"

#define CCS_A2A_AGG_WAYS 4

struct ccs_a2a_agg {
	uint64_t nops;
	uint64_t *off;              /* n + 1: the ops of the rank at position i are [off[i], off[i + 1]) */
	int32_t *dst;               /* each op's receiver (a representative for a merged one) */
	uint32_t *k;                /* the NCCL round of its first send */
	uint32_t *klast;            /* and of its last */
	uint32_t *cnt;              /* the sends it stands for */
};

/* peer(ctx, r, k): the rank r sends to in NCCL's round k (m rounds).
 * rank_at[i] the rank at position i (group order).  CCS_ENOMEM. */
typedef int ccs_a2a_peer_fn(const void *ctx, int r, int k);
int  ccs_a2a_agg_build(const struct ccs_comm *c, const int32_t *rank_at, int m, ccs_a2a_peer_fn *peer,
                       const void *ctx, struct ccs_a2a_agg *g);
void ccs_a2a_agg_release(struct ccs_a2a_agg *g);

#endif
