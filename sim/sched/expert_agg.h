/*
** sim/sched/expert_agg.h: an expert-parallel plan (model/moe.h) with its
** transfers across groups merged, the declared approximation `--fidelity
** aggregate` for dispatch and combine (docs/simulator.md measures its
** error against every flow).
**
** Drawn routing gives every (source, receiver) pair its own byte count, so
** per flow each transfer ends at its own time and re-solves a max-min
** component that holds most of the network.  The merge keeps what loads
** the fabric and drops who pairs with whom.  The transfers across groups
** (the network's: DeepEP's RDMA messages, a direct kernel's sends) fall
** into bundles by (leaf of the sender's NIC, leaf of the receiver's NIC,
** copy ports or not).  In a bundle with senders s (tokens a_s) and
** receivers d (tokens b_d), sum a_s = sum b_d, the transfers become pieces
** x(s, d) >= 0 with
**     sum_d x(s, d) = a_s,   sum_s x(s, d) = b_d,   x(s, d) = 0 within a group:
** a bundle whose senders reach at most F = CCS_MOE_AGG_FAN receivers on
** average stays as it is (its pieces would be as many as its transfers);
** else sender i of S sends to the F receivers from place
** i R / S on, in rank order rotated by half the bundle and skipping its own
** group, x scaled by rows and columns in turn until both sums hold within
** 1e-9 of the bundle (Sinkhorn), so that a sender's pieces, and a
** receiver's, are about equal as its transfers were.  Where that support
** cannot carry a receiver's bytes (a receiver owed more than its F senders
** have), the bundle is filled north-west corner instead, a piece left
** inside a group exchanged against another, and where even that fails its
** transfers stay as they are.  Every sender's NIC sends, and every
** receiver's NIC takes, what every flow would, leaf by leaf; under
** destination-based routing (dmodk) every uplink and downlink carries its
** bytes too, since the route depends only on the receiver.
** What a receiver forwards inside its group (deepep_normal) is merged the
** same way: its forwards to rank e, summed over the bundle, split over the
** pieces into it in proportion to their tokens, each piece's share behind
** that piece as the exact plan's forwards are behind their message.
** Chunks (expert.c): a dispatch piece standing for st transfers of the
** bundle's mean moves in st times their chunks, at most 255 (DeepEP's
** chunks are a number of tokens): what is left to forward once its last chunk lands is
** one transfer's last chunk, as where a receiver's transfers end one after
** another; its forwards go in groups of about st chunks (one wave of the
** transfers it stands for), the last ones graded down to one chunk.  A combine piece keeps a transfer's chunk count: its first chunk
** waits for the reductions of all its transfers' first chunks, which per
** flow all start at once.
** Measured against every flow (docs/simulator.md): HGX H800 nodes,
** DeepSeek-V3-like dispatch/combine, 4,096 tokens, uniform routing: -1.6% to
** +0.8% from 64 to 1,024 ranks (1,024 ranks, EP 256: 24-29 s / 8 s against
** 150 s); a zipf draw on 256 ranks -2.3% / -2.7%; direct dispatch on 8
** aws-p5 nodes -2.1%.
** Transfers inside a group stay as they are.  Under hashed routing (ECMP)
** a piece standing for m > 1 transfers (the bundle's transfers over its
** pieces) takes the path destination-based routing gives it (ccs_op.by_dst,
** as AllToAll's merged sends do, a2a_agg.h): its transfers would spread
** over the equal-cost paths about evenly.  (Until 2026-12-05 it moved as
** min(m, 8) hashed parts: the same times on 32 nodes of cluster-16k-3tier,
** deepep_normal dispatch 9,139.76 us and combine 9,327.6 us, and direct
** dispatch 10,116.40 us in 8.2 s instead of 95.7 s.)
*/
#ifndef CCS_SCHED_EXPERT_AGG_H
#define CCS_SCHED_EXPERT_AGG_H

#include "../../model/comm.h"
#include "../../model/moe.h"

#define CCS_MOE_AGG_FAN 4       /* receivers per sender (and senders per receiver) in a bundle */

/* How the lowering moves a merged plan's transfer: by_dst, routed by
 * destination (ccs_op.by_dst: under ECMP, a piece standing for about two
 * of its bundle's transfers or more); stand, how many of its bundle's transfers (of
 * their mean tokens) a piece stands for (0: not a piece; the lowering sizes
 * a dispatch piece's chunks by it). */
struct ccs_moe_agg_tx {
	float stand;
	uint8_t by_dst;
};

/* A merged plan: p's transfers (parents before their children, p.logical
 * NULL), tx[i] transfer i's as above. */
struct ccs_moe_agg {
	struct ccs_moe_plan p;
	struct ccs_moe_agg_tx *tx;
	size_t bundles, merged;     /* bundles merged; transfers across groups they stood for */
	size_t cornered;            /* of the bundles, those filled north-west corner */
};

/* The merge of plan p on c (above).  CCS_ENOMEM; CCS_EINPUT where p breaks
 * what the planners promise: a forward before its parent, leaving from
 * another rank than the parent's receiver, a forward of a forward, tokens
 * negative or not finite. */
int  ccs_moe_agg_build(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_moe_agg *out);
void ccs_moe_agg_release(struct ccs_moe_agg *a);

#endif
