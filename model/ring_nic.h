/*
** model/ring_nic.h: where NCCL's rings cross the network, and the rate that
** placement allows.
**
** Channel ch's ring crosses each group (a node's or domain's ranks) once:
** it enters by NIC nics[ch mod nn] (the group's usable NICs: each
** member's as close as its best, in member order) at a member
** that may use it, and leaves at another member that may, by the same NIC
** (NCCL's rings: NET/0 GPU/0 ... GPU/1 NET/0).  The entry is the member
** with the fewest channels entering so far (then the one whose own NIC it
** is), the exit another with the fewest leaving.  Where no other member may
** use the NIC (one NIC per GPU on its own link, Ascend 910B; or a rail
** fault), the ring leaves by the member before the entry, through that
** member's own NICs in turn (its best ones, one more each time it is the
** exit: NCCL's search reserves each NIC's bandwidth, so its next ring takes
** the next NIC; with four NICs per GPU each carries a quarter).
**
** A NIC direction that k channels cross gives each bw/k, bw its port speed
** x the network's efficiency; the channels move S/C bytes each and the
** slowest sets the collective's pace, so the rings reach across groups
**   B_ring = C x min over groups, NICs and directions of bw / k
** (C x bw / (C / nics) = nics x bw, the groups' NIC sum, when the channels
** spread evenly).  Units: B/s.
*/
/*
** The trees (sim/sched/tree.c) by the same token: channel v of C runs tree
** 1 when 2v >= C (C > 1), else tree 0; its chain in a group of m members
** starts at member v mod m, the group's head, which reaches the network by
** the ((v / m) mod b)-th of its b best NICs (NCCL spreads the channels over
** the NICs, and with several NICs per GPU, AWS p5, over those of one GPU);
** where s GPUs of the group share their best NICs, GPU local index i takes the run of
** ceil(b / s) NICs (in device order) that starts at i mod s, bit-mirrored
** when b is a power of two, as NCCL's ncclTopoGetLocalNetType (GPUs 0 and 1
** sharing 8 NICs: NICs 0-3 and 4-7).
** A group with d_t edges in tree t moves S/C once per edge and direction
** for each of its channels, so NIC x carries (a_x d0 + b_x d1) S / C, a_x
** and b_x its channels on each tree; the busiest such NIC, relative to the
** even spread over min(nics, C) NICs that B_net counts, is
**   tg = max over groups and NICs (a_x d0 + b_x d1) x min(nics, C) / C
** ((d0 + d1) / 2 of the busiest group when the channels spread evenly).
** A lone chunk per channel crosses an edge while the tree's other
** channels cross theirs: in one phase (up, then down) the channels of one
** tree on a NIC move in the same direction, those of the other tree in the
** opposite one, so an edge takes max(a_x, b_x) chunks of the NIC's time:
**   tph = max over groups and NICs max(a_x, b_x) x min(nics, C) / C
** (one half when each NIC carries one channel of each tree; one when two
** channels of a tree share it), and an edge of that phase lasts the
** network time x tph / tg (model/cost.c, the lone chunk).
*/
#ifndef CCS_RING_NIC_H
#define CCS_RING_NIC_H

#include "topo.h"

#include <stddef.h>

/* Working state of one placement: channels entered and left at each rank
 * so far (indexed by rank), and a group's usable NICs. */
struct ccs_ring_nic {
	int32_t *ent, *ext;
	uint32_t *nics;
	size_t nics_cap, nn;
};

/* For n ranks; CCS_ENOMEM leaves nothing to release. */
int  ccs_ring_nic_init(struct ccs_ring_nic *w, int n);
void ccs_ring_nic_release(struct ccs_ring_nic *w);

/* The usable NICs of a group's m members (mem, ranks on GPUs rank_gpu)
 * into w->nics and w->nn; CCS_EINPUT when there are none, CCS_ENOMEM. */
int ccs_ring_nic_group(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m,
                       struct ccs_ring_nic *w);

/* Channel ch's ends in the group of the last ccs_ring_nic_group call:
 * *entry and *exit (indexes into mem), the NIC it enters by (*nic_in) and
 * leaves by (*nic_out); counts them in w. */
void ccs_ring_nic_place(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m, int ch,
                        struct ccs_ring_nic *w, int *entry, int *exit, uint32_t *nic_in, uint32_t *nic_out);

/* B_ring above for C channels over the G groups of n ranks (members of
 * group g: members[gstart[g]] up to gstart[g+1]), NIC rates x eff[link
 * type]; HUGE_VAL when G < 2; groups without a NIC left out.
 * CCS_ENOMEM. */
int ccs_ring_nic_rate(const struct ccs_topo *t, const uint32_t *rank_gpu, int n, const int32_t *gstart,
                      const int32_t *members, int G, int C, const double *eff, double *B_ring);

/* How many of a group's m members (mem) count member k's nearest NIC among
 * their own nearest (NCCL's localGpuCount: the communicator's GPUs only);
 * 0 when it has no NIC. */
int ccs_ring_nic_peers(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m, int k);

/* The NIC by which channel v's head, GPU gpu in a group of m members
 * sharing its nearest NICs with peers of them (ccs_ring_nic_peers), reaches
 * the network (above); UINT32_MAX when it has none. */
uint32_t ccs_ring_nic_head(const struct ccs_topo *t, uint32_t gpu, int m, int v, int peers);

/* tg and tph above for C channels, nics the NICs B_net spreads over; 0
 * when G < 2; tph may be NULL.  CCS_ENOMEM. */
int ccs_ring_nic_tree(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *gstart,
                      const int32_t *members, int G, int C, int nics, double *tg, double *tph);

#endif
