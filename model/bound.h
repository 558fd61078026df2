/*
** model/bound.h: the cut bound, the least time the hardware allows a
** collective whatever its algorithm: bytes that must cross a cut over the
** cut's raw capacity (line rates, no efficiency, no latency).
**
**   GPU injection:  each rank moves at least b_rank(coll) bytes one way
**                   through its scale-up links and its best NICs:
**                   t_gpu = max_r b_rank / (su_r + nic_r)
**   group NICs:     each scale-up group g of p_g ranks moves at least
**                   b_grp(coll, p_g) bytes one way through its NICs:
**                   t_grp = max_g b_grp / nic_g      (G > 1)
**   node uplinks:   on a two-tier scale-up plane (tiers: 2) each node k
**                   of q_k ranks moves b_grp(coll, q_k) bytes (M nodes
**                   for G) one way through its uplinks to the second
**                   tier and its NICs:
**                   t_node = max_k b_grp / (up_k + nic_k)
**   t_cut = max(t_gpu, t_grp, t_node)
** with S nccl-tests' size (AllGather: the output, AllToAll: one rank's
** send buffer) and n ranks:
**   coll          b_rank          b_grp
**   AllReduce     (n-1)/n S       (G-1)/G S   (in-network reduction too)
**   AllGather     (n-1)/n S       (n-p_g)/n S
**   ReduceScatter (n-1)/n S       (n-p_g)/n S
**   AllToAll      (n-1)/n S       p_g (n-p_g)/n S
**   Broadcast     S               S           (a group without the root)
**   Reduce        S               S           (likewise)
**   SendRecv      S               S
** Every term is linear in S: t_cut(S) = S t_cut(1).
** A prediction below t_cut is a defect (tests/prop/prop_bound.c).
*/
#ifndef CCS_BOUND_H
#define CCS_BOUND_H

#include "comm.h"

enum { CCS_CUT_GPU, CCS_CUT_GROUP, CCS_CUT_NODE };
extern const char *const ccs_cut_name[3];

struct ccs_cut {
	double t_s;                 /* the bound [s] */
	int by;                     /* CCS_CUT_GPU, CCS_CUT_GROUP or CCS_CUT_NODE */
	double t_gpu_s, t_grp_s, t_node_s;
};

/* The cut bound of coll on S bytes over c into out.  CCS_ENOMEM leaves out
 * unset. */
int ccs_bound_cut(const struct ccs_comm *c, int coll, double S, struct ccs_cut *out);

#endif
