/*
** sim/sched/a2a_agg.h: NCCL's AllToAll with its sends merged by
** destination leaf, the declared approximation `--fidelity aggregate`
** (docs/simulator.md measures its error against every flow).
**
** A rank's sends to the ranks of its own group stay as they are.  Its sends
** to other groups leave by some NIC of its group (its own, or under PXN the
** one of the GPU on the receiver's rail, reached over the scale-up fabric)
** and arrive by a NIC behind some leaf switch.  All the group's sends that
** leave by one forwarding GPU and arrive through one leaf (a pool of
** receivers: a rail group on a rail-optimized fabric) become one transfer
** of their bytes from that GPU to one representative of the pool, and
** under PXN each sender moves its share to the forwarding GPU in one hop
** beside it.  Every receiver gets the bytes it would (a2a_agg.c); what is
** lost is the order of the rounds inside the merged sends and how a
** network would spread their destinations over its paths.
** Ops: per rank its group's sends, its hops and about one merged op per
** pool it forwards to, instead of n - 1 (1,024 ranks of cluster-16k-3tier:
** 18,432 against 1,047,552; 8,192: 376,832 against 67 million).
** Destination-based routing needs nothing more: a representative's path
** carries what the sends' paths would, uplink by uplink (a2a_agg.c).
** Where the network hashes flows onto paths (ECMP), the cnt sends of a
** merged op would spread over the equal-cost paths about evenly, the
** more evenly the more there are: a merged op (cnt > 1) takes the path
** destination-based routing would give its representative (ccs_op.by_dst),
** so the merged ops of a leaf spread over its uplinks as evenly as D-mod-k
** spreads destinations; what a hash's collisions add is left out.
** Measured at 1,024 ranks, 64 MiB, against every flow under ECMP
** (1,572.41 us, 294 s): 1,572.69 us (+0.02%) in 0.02 s; the earlier
** min(cnt, 8) hashed parts were 0.74% slower in 0.54 s, and 2, 4, 16,
** 32 parts 47%, 12%, 0.52%, 0.24%: few hashed parts collide far more
** than the many sends do.
*/
#ifndef CCS_SCHED_A2A_AGG_H
#define CCS_SCHED_A2A_AGG_H

#include "../../model/comm.h"

#define CCS_A2A_NONE UINT32_MAX

/* One op of the merged schedule. */
struct ccs_a2a_op {
	int32_t src, dst;           /* sender (a forwarding GPU for a merged op), receiver (a representative) */
	uint32_t k, klast;          /* the NCCL rounds of its first and last send */
	uint32_t cnt;               /* the sends it stands for */
	uint32_t kprev;             /* a send within the group: the round of the one before it in its lane
	                               (round mod lanes), CCS_A2A_NONE where it is the first */
	uint32_t next;              /* and the one after it, as a place among the rank's ops; CCS_A2A_NONE */
	uint8_t send;               /* 1: a send within the group (not merged, not a hop) */
};

struct ccs_a2a_agg {
	uint64_t nops;
	uint64_t *off;              /* n + 1: the ops of the rank at position i are [off[i], off[i + 1]) */
	struct ccs_a2a_op *op;
};

/* peer(ctx, r, k): the rank r sends to in NCCL's round k (m rounds),
 * lanes sends in flight per rank; pxn: sends to other groups forwarded as
 * NCCL's PXN does.  rank_at[i] the rank at position i (group order).
 * CCS_ENOMEM. */
typedef int ccs_a2a_peer_fn(const void *ctx, int r, int k);
int  ccs_a2a_agg_build(const struct ccs_comm *c, const int32_t *rank_at, int m, int lanes, int pxn, ccs_a2a_peer_fn *peer,
                       const void *ctx, struct ccs_a2a_agg *g);
void ccs_a2a_agg_release(struct ccs_a2a_agg *g);

#endif
