/*
** model/fault.h: hardware faults applied to a loaded topology.
**
** One fault per string, KIND:TARGET[:WHAT], targets named as `topo show`
** names devices (node1/nic3, spine0, node0/gpu5; a link as A-B, every link
** between the two):
**   link:A-B:down          the link carries nothing; routes go around it
**   link:A-B:50%           the link runs at that share of its bandwidth
**   link:A-B:+2us          the link adds that latency
**   nic:NAME:down          every network link of the NIC goes down; its GPUs
**                          use the next NIC of their node as NCCL does (or,
**                          with none left, the node is cut off)
**   nic:NAME:50%           the port runs at that share
**   switch:NAME:down       every link of the switch goes down
**   pcie:GPU:x8            the GPU's PCIe link trained at 8 lanes (of its
**                          lanes; x1 x2 x4 x8 x16)
**   pcie:GPU:gen4          ... or at generation 4 (of its generation; the rate
**                          halves per generation down)
**   straggler:GPU:20us     the GPU starts every collective that late
**   straggler:GPU:50%      the GPU reduces and copies at that share of its
**                          memory bandwidth (the closed form's memory bound
**                          takes the slowest GPU; the simulator charges that
**                          GPU's sends on its memory)
**   rail:GPU:NIC           the GPU uses that NIC of its node and no other (a
**                          wrong NCCL_IB_HCA, a GPU-to-NIC map off by one),
**                          sharing it with the GPUs whose NIC it is; farther
**                          than PXB (through a CPU) GPUDirect RDMA goes off,
**                          as NCCL's default NCCL_NET_GDR_LEVEL has it
**   gdr:GPU:off, gdr:all:off  GPUDirect RDMA off: the GPU's network traffic
**                          is staged through host memory, so it goes up to
**                          its CPU and down again to the NIC
**   acs:GPU:on, acs:all:on  PCIe ACS (or a VM's IOMMU) redirects the GPU's
**                          peer-to-peer PCIe traffic to the root complex:
**                          GPUDirect RDMA still on in NCCL's eyes (its
**                          channels say GDRDMA), but the bytes to and from
**                          its NIC go up to the CPU and down, the path of
**                          gdr:off; P2P with its node's GPUs too when it has
**                          no NVLink
**   p2p:GPU:off, p2p:all:off  P2P off (NCCL_P2P_DISABLE, an IOMMU or ACS that
**                          blocks it, a VM): traffic to the other GPUs of its
**                          node goes through host memory (NCCL's SHM): up its
**                          PCIe path to its CPU, down the receiver's; a GPU
**                          behind a PCIe switch shares the switch's uplink
**                          with the others there that stage
** Any fault that changes bandwidth (a link, nic or switch down or at a
** share, a pcie width or generation, a straggler's memory share) may
** strike during the run instead, KIND:TARGET:WHAT@TIME
** (link:leaf0-spine0:down@200us, nic:node1/nic3:50%@1ms): the topology
** stays healthy and keeps it in
** t->timed for the simulator, which then changes the links' capacities,
** moves the flows crossing a dead link to a live route (the fabric's
** rerouting; a NIC's GPUs keep it, as a running NCCL communicator does)
** or reports the hang; the closed form (ccsim predict) takes the share
** of the work done by then at the healthy rate.
** Effects: a dead link's bandwidth becomes 0 (ccs_link_live), so max-flows,
** NIC choice (ccs_topo_refresh) and the simulator's routes leave it out.
** Bandwidths and latencies in base units; shares in (0, 1).
*/
#ifndef CCS_FAULT_H
#define CCS_FAULT_H

#include "topo.h"

/* Apply spec to t (then ccs_topo_refresh).  CCS_EINPUT with a one-line
 * reason in err (the fault names what it could not find or parse);
 * CCS_ENOMEM.  On failure t is left as it was unless the refresh ran out
 * of memory. */
int ccs_fault_apply(struct ccs_topo *t, const char *spec, char *err, size_t errn);

/* Let the first upto timed faults of t strike now: their links take their
 * shares for good (then ccs_topo_refresh); they stay listed in t->timed.
 * For the closed form's view of the hardware after a strike.  CCS_ENOMEM
 * from the refresh leaves t unusable. */
int ccs_fault_settle(struct ccs_topo *t, uint32_t upto);

/* The closed form across timed faults: the work advances at the healthy
 * rate, then at each state's.  Phase k starts at at_s[k] (at_s[0] = 0,
 * increasing) and would take full_s[k] alone (< 0: the collective cannot
 * run in that state).  With w the share of the work done when phase k
 * starts, the run ends in phase k at at_s[k] + (1 - w) full_s[k] if that
 * is before at_s[k+1]; else w grows by (at_s[k+1] - at_s[k]) / full_s[k].
 * Returns the time, or -(k + 1) when the run is still going when phase k,
 * a state it cannot run in, starts. */
double ccs_fault_progress(const double *at_s, const double *full_s, int n);

#endif
