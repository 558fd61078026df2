/*
** model/topo_stats.h: what a planner reads off a topology (`ccsim topo show`).
**
** Counts      devices by kind (switches by tier), links by type with lanes.
** Per GPU     scale-up bandwidth = sum of its nvlink/ub/hccs links [B/s, per
**             direction]; scale-out bandwidth = NIC port bandwidth of its node
**             / GPUs of its node; NIC:GPU ratio; the path class (PIX..SYS) of
**             each GPU's best NIC.
** Bisection   max-flow, per direction, between two halves, found with Dinic's
**             algorithm on the link capacities (each direction of a link has
**             its full bandwidth; switches forward without limit):
**               scale-up:  GPUs of GPU 0's domain, first half -> second half,
**                          over scale-up links only;
**               scale-out: NICs of nodes [0, N/2) -> NICs of nodes [N/2, N),
**                          over network links only (ib, roce, ethernet).
**             For a non-blocking fat tree the scale-out figure is N/2 x the
**             node's NIC bandwidth; oversubscription and partial pods lower it.
** Diameter    the most links on any shortest GPU-to-GPU path.  Exact (a BFS
**             from every GPU) while GPUs x (devices + 2 links) <= 2e8, else
**             the maximum over BFS from 16 to 64 GPUs (about 5e7 steps)
**             spread evenly over the index range; diameter_sources says how many, diameter_exact whether
**             that was all.
** Tiers       per network tier: switches, ports in use (lanes) down and up,
**             bandwidth down and up; built oversubscription = down / up.
*/
#ifndef CCS_TOPO_STATS_H
#define CCS_TOPO_STATS_H

#include "topo.h"

struct ccs_tier_stats {
	uint32_t count;
	uint64_t down_ports, up_ports;
	uint32_t max_ports;         /* most ports in use on one switch */
	double down_Bps, up_Bps;
};

struct ccs_topo_stats {
	uint32_t ndev[CCS_DEV_NKINDS];
	uint32_t nlink[CCS_LINK_NTYPES];
	uint64_t nlanes[CCS_LINK_NTYPES];
	uint32_t ngpu, nnodes, ndomains;
	uint32_t gpn_min, gpn_max;          /* GPUs per node */
	uint32_t dom_min, dom_max;          /* GPUs per scale-up domain */
	uint32_t npn_min, npn_max;          /* NICs per node */
	uint32_t su_links_min, su_links_max;/* scale-up lanes per GPU */
	double su_bw_min, su_bw_max;        /* per GPU, per direction */
	double so_bw_min, so_bw_max;        /* per GPU, per direction */
	double nic_bw_min, nic_bw_max;      /* per NIC port speed */
	double injection_Bps;               /* all NICs together */
	uint32_t path_hist[CCS_PATH_N + 1]; /* best NIC per GPU; [N] = no NIC */
	int su_multicast, su_reduce, sharp;
	struct ccs_tier_stats tier[CCS_TIER_N];
	double su_up_min, su_up_max;        /* two-tier scale-up: a node's uplinks (0: one tier) */
	double su_up_oversub;               /* the largest node's GPU lanes : its uplinks */
	double su_bisect_Bps;
	uint32_t su_bisect_gpus;            /* GPUs in the bisected domain */
	double so_bisect_Bps;
	uint32_t so_bisect_nodes;           /* nodes on the first side (0: n/a) */
	int diameter, diameter_exact;
	uint32_t diameter_sources;
};

/* Fill s from t (finished).  Returns CCS_ENOMEM or CCS_OK. */
int ccs_topo_stats(const struct ccs_topo *t, struct ccs_topo_stats *s);

#endif
