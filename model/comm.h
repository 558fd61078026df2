/*
** model/comm.h: a communicator: ranks placed on GPUs of a topology graph,
** and what the cost model needs of the graph, derived once (comm.c,
** comm_net.c).
**
** A communicator (struct ccs_comm) is a set of ranks placed on GPUs.  Ranks
** fall into groups: a scale-up domain (NVLink, UB, HCCS) when the GPU has
** peers on one, else its node.  From the graph, once per communicator:
**   n, G, p    ranks, groups, ranks per group (largest)
**   b_su       intra-group bandwidth per rank [B/s]: min over member pairs
**              (first, v) of the max-flow over the group's scale-up links (or
**              its host links when it has none), capacities x efficiency;
**              a ring crosses every cut of the group at least once each way,
**              and by Gomory-Hu the smallest cut among members is found from
**              any one member, so this bounds every ring and tree inside
**   B_net      per-group NIC bandwidth: sum over the distinct best NICs of the
**              group's ranks of port speed x efficiency, at most their number
**              x the slowest of them and the ranks x the slowest rank's PCIe
**              link (NCCL spreads channels evenly over NICs and ranks, so one
**              slow NIC or x8 link slows every channel); min over groups
**   B_ring     (ch[C]) the rate NCCL's rings reach across groups where they enter
**              and leave by the NICs ring_nic.h places them on: below B_net
**              where some NIC carries more channels than others (a rail
**              fault), else B_net or more
**   b_nic      per-rank NIC bandwidth: its best NIC / the ranks sharing it
**   b_nic1     the same for a rank alone on its best NICs (SendRecv: one rank
**              a group crosses): their sum, at most its PCIe link; min over ranks
**   R_fab      per-group rate of uniform all-to-all traffic through the
**              fabric: the smaller of 4 B_bis (G-1)/G^2, B_bis the max-flow
**              between the NICs of the first and second half of the
**              groups, and the busiest leaf's (or pod's) uplinks carrying
**              the all-to-all bytes that leave it (ccs_comm_net_cut in comm_net.c;
**              docs/model.md)
**   lat_net    one network traversal from the graph: NIC latencies, links
**              and switches on the path between two groups' NICs [s]
**
** Units: B/s and seconds throughout struct ccs_comm; NCCL's model takes
** its own input (struct ccs_nccl_in, nccl_tables.h: its view of this
** communicator, its graph in GB/s), filled last (comm_nccl.c).
*/
#ifndef CCS_COMM_H
#define CCS_COMM_H

#include "nccl_tables.h"
#include "topo.h"
#include "transport.h"

enum ccs_bound { CCS_BOUND_LATENCY, CCS_BOUND_NVLINK, CCS_BOUND_PCIE, CCS_BOUND_C2C,
                 CCS_BOUND_UB, CCS_BOUND_HCCS, CCS_BOUND_SMP, CCS_BOUND_NIC, CCS_BOUND_LEAF,
                 CCS_BOUND_SPINE, CCS_BOUND_CORE, CCS_BOUND_REDUCE, CCS_BOUND_PROTOCOL,
                 CCS_BOUND_SYNC, CCS_BOUND_SM, CCS_BOUND_PROXY, CCS_BOUND_XGMI, CCS_BOUND_N };
extern const char *const ccs_bound_name[CCS_BOUND_N];

#define CCS_COMM_CH_MAX 64   /* channel counts whose NIC placement a communicator keeps */

struct ccs_comm {
	const struct ccs_topo *t;
	struct ccs_model_params prm;
	int n, G, p, p_min, nnodes, arch;
	uint32_t *rank_gpu;         /* GPU index of each rank */
	int32_t *rank_group;        /* group of each rank */
	double b_su;                /* per rank, efficiency applied; 0 if p == 1 */
	int su_bound;               /* enum ccs_bound of the intra-group bottleneck */
	int intra_nvl;              /* intra-group hops are scale-up links */
	double B_net, b_nic;        /* per group, per rank; efficiency applied */
	double b_nic1;              /* per rank alone on its NICs (SendRecv) */
	double B_net_nic, B_net_host; /* B_net's two parts: the NICs (their sum, at most their count x the
	                             * slowest), the ranks' host paths (count x the slowest); HUGE_VAL for none */
	int ring_C;                 /* NCCL's channel count */
	/* With C channels, 1 <= C <= CCS_COMM_CH_MAX: the rings' network rate
	 * from their NIC placement (B_ring above; HUGE_VAL on one group) and the
	 * trees' busiest NIC and phase (ring_nic.h's tg, tph); ch_done[C] when
	 * placed: ring_C at build, other counts (a tuner's, the user's) on first
	 * use (comm_ch.h) */
	struct ccs_comm_ch { double B_ring, tg, tph; } ch[CCS_COMM_CH_MAX + 1];
	unsigned char ch_done[CCS_COMM_CH_MAX + 1];
	double R_fab;               /* per group, uniform all-to-all */
	double a2a_K;               /* NCCL's AllToAll rounds: bandwidth time per byte of one send [s/B]
	                             * (p2p.h: its waves' busiest NIC or scale-up port, summed) */
	double a2a_K_up;            /* the part of the rounds' waves spent on a two-tier scale-up plane's node uplinks alone
	                               (sum_w max_node up_w / up_rate) [s/B]; 0: one tier */
	double b_up;                /* a two-tier scale-up plane: min over nodes of its uplinks (efficiency applied) / its
	                               ranks [B/s], the rate at which all of a node's ranks can leave it at once; 0: one tier */
	int up_q;                   /* ranks on the least-populated such node (b_up's divisor) */
	int a2a_wave;               /* NCCL's p2p batches of 8 rounds that run at once (p2p.h) */
	double a2a_grp;             /* AllToAll over each group's NICs: max_g p_g (n - p_g) / n / B_net(g) [s/B of S] */
	int fab_bound;              /* what limits R_fab below B_net */
	int nvls, sharp;            /* capabilities present on every group */
	int net_type;               /* link type of the NICs */
	double lat_net, lat_intra;  /* graph latencies [s] */
	double mem_bw;              /* min GPU memory bandwidth [B/s], 0 if unknown */
	struct ccs_nccl_in nccl;    /* NCCL's own model's input (nccl_tables.h), its view of this communicator */
	double tree_net;            /* busiest group's tree AllReduce network bytes per byte (1 at G = 2, 2 for large G) */
	int tree_path;              /* the tree's slowest leaf-root path: sum of its parents' child counts */
	double late_s;              /* the latest start of any rank (a straggler fault), 0 */
	int transport;              /* enum ccs_transport: the topology's, or its NICs' link type's */
	const struct ccs_transport_row *tr;   /* its row (tr_row); prm.eff of the network links includes tr->eff */
	struct ccs_transport_row tr_row;
};

/* c's transport row: tr, or InfiniBand's (NCCL's reference) for a
 * communicator filled in by hand without one. */
static inline const struct ccs_transport_row *ccs_comm_tr(const struct ccs_comm *c)
{
	return c->tr ? c->tr : &ccs_transport_verbs;
}

/* Build a communicator of nranks ranks (0: all GPUs, or ppn x nodes) with
 * at most ppn ranks per node (0: every GPU of a node), taking nodes in order
 * and GPUs in local order.  On an impossible request returns CCS_EINPUT with
 * a one-line reason in err. */
int  ccs_comm_build(const struct ccs_topo *t, int nranks, int ppn, struct ccs_comm *c,
                    char *err, size_t errn);
/* The same with rank i on GPU gpus[i] (a job's placement). */
int  ccs_comm_build_gpus(const struct ccs_topo *t, const uint32_t *gpus, int n, struct ccs_comm *c, char *err,
                         size_t errn);
void ccs_comm_release(struct ccs_comm *c);
/* The NICs rank r may use (ccs_topo_best_nics: as close as its best, over
 * which NCCL spreads its channels): how many, the i-th of them (a device
 * index), and the fewest any rank of c has, at most 'most'. */
int      ccs_comm_best_nics(const struct ccs_comm *c, int r);
uint32_t ccs_comm_nic(const struct ccs_comm *c, int r, int i);
int      ccs_comm_fewest_nics(const struct ccs_comm *c, int most);
/* A two-tier scale-up plane's node uplinks (topo.h ccs_topo_su_uplinks),
 * efficiency applied: up[n] B/s per direction, t->nnodes entries; returns
 * 0 when the plane has one tier. */
int      ccs_comm_su_uplinks(const struct ccs_comm *c, double *up);
/* The ranks of each group in rank order, members [start[g], start[g+1])
 * (a counting sort on rank_group).  Both arrays are the caller's to free;
 * CCS_ENOMEM leaves none. */
int  ccs_comm_members(const struct ccs_comm *c, int32_t **start, int32_t **members);

#endif
