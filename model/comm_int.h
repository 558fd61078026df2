/*
** model/comm_int.h: what comm.c takes from comm_net.c and comm_host.c while it builds a
** communicator (not for other modules: they read the results in struct
** ccs_comm, cost.h).
*/
#ifndef CCS_COMM_INT_H
#define CCS_COMM_INT_H

#include "comm.h"

/* The wire latency of the shortest path from device a to b (links and the
 * devices between), over scale-up links (net 0, through scale-up
 * switches), network links (1, through network switches) or host links
 * (CCS_LAT_HOST, through PCIe switches and CPUs); 0 without a path. */
#define CCS_LAT_HOST 2
double ccs_comm_net_latency(const struct ccs_topo *t, uint32_t a, uint32_t b, int net, int32_t *dist,
                           uint32_t *parent, uint32_t *queue);
int ccs_comm_net_share(struct ccs_comm *c, const uint32_t *nic_of_rank);
/* NCCL's AllToAll rounds (p2p.h): a2a_K, a2a_wave; and a2a_grp
 * from each group's network rate gnet [B/s]. */
int ccs_comm_net_p2p(struct ccs_comm *c, const int32_t *gstart, const int32_t *members, const double *gnet);
int ccs_comm_net_cut(struct ccs_comm *c, const int32_t *gstart, const int32_t *members, double *R, int *bound);
/* The communicator's ring and tree figures (comm.h's ch) from ring_nic.h's placement: the rings'
 * network rate and the trees' busiest NIC and phase on NCCL's count
 * ring_C; other counts are placed on first use (comm_ch.h).  CCS_ENOMEM
 * on failure. */
int ccs_comm_net_rings(struct ccs_comm *c, const int32_t *gstart, const int32_t *members);

/* NCCL's own model's input, c->nccl (comm_nccl.c): its scalars from c and
 * the ring and tree graphs its search would find, from c->nccl's link
 * figures (nvl_GBps, pci_GBps, net_GBps, nics), which comm.c sets first. */
void ccs_comm_nccl_view(struct ccs_comm *c);
/* Host staging (comm_host.c): a rank's network rate without GPUDirect RDMA
 * (at most host), and its rate to its group's GPUs with P2P off. */
double ccs_comm_host_staged_net(const struct ccs_topo *t, const struct ccs_comm *c, const struct ccs_gpu *gp, double host);
double ccs_comm_host_staged_p2p(const struct ccs_topo *t, const struct ccs_comm *c, const int32_t *members, int m,
                                const struct ccs_gpu *gp);

#endif
