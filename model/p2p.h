/*
** model/p2p.h: NCCL's point-to-point rounds (AllToAll: a group of sends
** to every peer) and what each batch of rounds loads.
**
** Order (NCCL 2.28.9+, src/init.cc ncclP2pSchedule): NCCL's nodes (hosts,
** or whole NVLink domains under MNNVL: here the communicator's groups) are
** cut into schedule groups of gs = gcd(8, ranks of every node) consecutive
** ranks (NCCL_P2P_SCHEDULE_GROUP_SIZE, default 8); rank r = q gs + l.
** Round (D, d) sends to rank ((q + D) mod nG) gs + (l + d) mod gs and
** receives from ((q - D) mod nG) gs + (l - d) mod gs, with D over the
** group deltas in the quadratic order
**   D_0 = 0,  D_{s+1} = (D_s + s + 1) mod 2^ceil(log2 nG),  D >= nG skipped
** and d = 0 .. gs - 1 inside each.  Every round is a permutation of the
** ranks.  Round (0, 0) is the rank itself and is left out: m = n - 1.
**
** Batches and waves: NCCL puts rounds [8j, 8j + 8) in one work batch
** (NCCL_MAX_DEV_WORK_P2P_PER_BATCH, src/enqueue.cc) on the channel
** reverseBits(j) of its P = pow2Up(channels) p2p channels
** (ncclP2pChannelBaseForRound, src/include/channel.h); across NCCL nodes it
** lowers the channels per peer until every batch has its own channel where
** it can (ncclTopoComputeP2pChannels, src/graph/paths.cc).  Each channel is
** one CTA: its batches run one after another, batches on different
** channels at once.  So W = min(batches, P) batches, 8 W rounds, run
** together (a wave), and the waves one after another; wave w lasts as long
** as its busiest resource needs:
**   T_w = s max( max_NIC load_w(NIC) / rate(NIC),  max_GPU su_w(GPU) / b_su )
** s the bytes of one send; load_w the sends of wave w through a NIC one
** way (out or in, the larger; a GPU with k NICs puts 1/k of a send on
** each); su_w the sends over a GPU's scale-up ports one way (to peers of
** its group, and under PXN to the GPU of its node on the receiver's rail,
** which sends it on through its NIC); on a two-tier scale-up plane
** (tiers: 2) a send between nodes of the domain also loads both nodes'
** uplinks, up_w(node) / up_rate(node) the third term.  The bandwidth time
** is s K with
**   K = sum_w max(...)   [s/B]
** a constant of the communicator.  Where n m exceeds CCS_P2P_BUDGET sends,
** evenly spaced waves are walked and K scaled to all of them.
*/
#ifndef CCS_P2P_H
#define CCS_P2P_H

#include <stdint.h>

#define CCS_P2P_BATCH 8
#define CCS_P2P_GROUP 8
#define CCS_P2P_BUDGET 4000000.0

/* The schedule: gs ranks a schedule group, nG groups, and the m = n - 1
 * rounds' deltas (caller's arrays of n entries). */
struct ccs_p2p_order {
	int n, gs, nG, m;
	int32_t *D, *d;
};

/* Fill o for n ranks whose NCCL nodes hold sizes[0 .. nnodes) ranks (in
 * rank order).  CCS_ENOMEM leaves o zeroed. */
int  ccs_p2p_order_init(struct ccs_p2p_order *o, int n, const int32_t *sizes, int nnodes);
void ccs_p2p_order_release(struct ccs_p2p_order *o);

/* The rank r sends to in round k (dir 1), or receives from (dir -1). */
static inline int ccs_p2p_peer(const struct ccs_p2p_order *o, int r, int k, int dir)
{
	int q = r / o->gs, l = r % o->gs;
	int qq = (q + dir * o->D[k] + o->nG) % o->nG, ll = (l + dir * o->d[k] + o->gs) % o->gs;
	return qq * o->gs + ll;
}

/* What the batch walk needs of each rank. */
struct ccs_p2p_rank {
	int32_t group;              /* scale-up group: sends to other groups use NICs */
	int32_t proxy0;             /* PXN: index into proxy[] of its node's rail table; -1: none */
	int32_t rail;               /* its rail (local index on its node) */
	uint32_t nic0, nnic;        /* its NICs: nic_ids[nic0 .. nic0 + nnic) */
	int32_t up;                 /* its node in up_rate[] (a two-tier scale-up plane), -1: none */
};

struct ccs_p2p_in {
	const struct ccs_p2p_order *o;
	const struct ccs_p2p_rank *rank;
	const int32_t *proxy;       /* rank at proxy0 + rail on the same node, -1: none */
	int rails;                  /* entries per node in proxy[] */
	const uint32_t *nic_ids;    /* NIC ordinals < nnics */
	const double *nic_rate;     /* B/s per NIC ordinal, efficiency applied */
	uint32_t nnics;
	double b_su;                /* per rank scale-up rate [B/s]; 0: none */
	const double *up_rate;      /* per node: its uplinks to the scale-up plane's second tier [B/s] */
	uint32_t nup;               /* entries in up_rate; 0: one tier */
	int pxn;
	int wave;                   /* batches at once (W above), >= 1 */
};

/* W for m rounds over P = pow2Up(channels) p2p channels (at most 64) when
 * the ranks span several NCCL nodes (across: 1), else 1. */
int ccs_p2p_wave(int m, int channels, int across);

struct ccs_p2p_out {
	double K;                   /* s/B of one send: the waves' sum */
	double K_up;                /* the same over the node uplinks' term alone (0: nup 0) */
	int sampled;                /* 1: K from a sample of the waves */
};

/* Walk the waves.  CCS_ENOMEM leaves out unset. */
int ccs_p2p_batches(const struct ccs_p2p_in *in, struct ccs_p2p_out *out);

#endif
