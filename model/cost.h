/*
** model/cost.h: closed-form cost of collectives on a topology graph.
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
**   b_nic      per-rank NIC bandwidth: its best NIC / the ranks sharing it
**   b_nic1     the same for a rank alone on its best NICs (SendRecv: one rank
**              a group crosses): their sum, at most its PCIe link; min over ranks
**   R_fab      per-group rate of uniform all-to-all traffic through the
**              fabric: the smaller of 4 B_bis (G-1)/G^2, B_bis the max-flow
**              between the NICs of the first and second half of the
**              groups, and the busiest leaf's (or pod's) uplinks carrying
**              the all-to-all bytes that leave it (cut_share in cost.c;
**              docs/model.md)
**   lat_net    one network traversal from the graph: NIC latencies, links
**              and switches on the path between two groups' NICs [s]
**
** Cost of one collective of S bytes (nccl-tests size), algorithm a,
** protocol q, C channels:
**   T = L(a, q) + W/B + K * o_q,   K = ceil(W / (C * c(a, q, S)))
**   W      bytes each rank moves on its bottleneck resource (per algorithm,
**          below), B that resource's rate per rank times the protocol's
**          wire efficiency e_q (LL 1/2, LL128 120/128, Simple 1), capped by
**          NCCL's per-protocol throughput caps; with a known GPU memory
**          bandwidth M_gpu the bandwidth term is max(W/B, m W / M_gpu), m =
**          2.5 bytes of memory traffic per byte for reductions, 2 for copies
**   L      NCCL's base latency plus per-hop latencies (NVLink, PCIe or
**          network) times the algorithm's hop counts, plus the graph's
**          latency of those hops
**   K o_q  the pipeline: each channel moves its share in chunks c (NCCL's
**          chunk sizes, which shrink for small NVLS operations); every chunk
**          step costs o_q of synchronisation (Simple 1.5 us, LL128 0.5, LL 0.2)
** Bytes W and rate B per algorithm (f = nccl-tests busbw factor):
**   ring        W = f S (Broadcast, Reduce: S);  B = min(b_su, B_net if G > 1);
**               Broadcast and Reduce with Simple are a chain that stores and
**               forwards each chunk: + (n - G) a + (G - 1) b - max(a, b), one
**               full chunk's hop, a = ti fc + o, b = tn fc, fc = min(1, C c/W)
**   tree        AllReduce: W = S;  B = min(b_su / 2, B_net / (G > 2 ? 2 : 1))
**   nvls        one group: W = S, B = b_su p / (p + 1) (AllReduce: each rank
**               sends S + S/p and receives as much); AllGather and
**               ReduceScatter W = f S, B = b_su
**   nvls_tree   W = S, B = min(b_su p/(p+1), B_net / (G > 2 ? 2 : 1))
**   collnet     W = S, B = min(b_su p/(p+1) (direct) or b_su/2 (chain),
**               B_net): the switches reduce, each group sends S once
**   pat         as ring, latency log2(G) network steps
**   rhd, rd, bruck, pairwise  sums over their steps of bytes / rate of the
**               step's peer (b_su inside a group, b_nic across)
**   direct      AllToAll: max(intra bytes / b_su, inter bytes x p / min(B_net,
**               R_fab)); SendRecv: S / (b_su or b_nic1)
**   hier        intra ring ReduceScatter + inter ring AllReduce of S/p per
**               rank on b_nic + intra AllGather, one after another
**   oneshot     AllReduce in one scale-up domain (vLLM / TensorRT-LLM custom
**               AllReduce): W = (p-1) S, B = b_su; no chunk steps;
**               L = o_1 + 2h: launch and start barrier, end barrier, with o_1
**               model.oneshot_overhead and h one flag across NVLink
**   twoshot     reduce-scatter then all-gather by peer loads:
**               W = 2 (p-1)/p S, B = e_2 b_su (e_2 model.twoshot_efficiency:
**               measured two-shot kernels reach less of the link than
**               one-shot ones), L = o_2 + 3h (a barrier between)
** 'bound' names the resource that sets B, or 'latency' when L + K o_q
** exceeds the bandwidth term.
*/
#ifndef CCS_COST_H
#define CCS_COST_H

#include "coll.h"
#include "topo.h"

enum ccs_bound { CCS_BOUND_LATENCY, CCS_BOUND_NVLINK, CCS_BOUND_PCIE, CCS_BOUND_C2C,
                 CCS_BOUND_UB, CCS_BOUND_HCCS, CCS_BOUND_SMP, CCS_BOUND_NIC, CCS_BOUND_LEAF,
                 CCS_BOUND_SPINE, CCS_BOUND_CORE, CCS_BOUND_REDUCE, CCS_BOUND_PROTOCOL,
                 CCS_BOUND_N };
extern const char *const ccs_bound_name[CCS_BOUND_N];

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
	double R_fab;               /* per group, uniform all-to-all */
	int fab_bound;              /* what limits R_fab below B_net */
	int nvls, sharp;            /* capabilities present on every group */
	int net_type;               /* link type of the NICs */
	double lat_net, lat_intra;  /* graph latencies [s] */
	double mem_bw;              /* min GPU memory bandwidth, 0 if unknown */
	/* inputs of NCCL's own model (nccl_tune.c), in NCCL's units */
	double nccl_nvl_bw;         /* per GPU: NVLink links x per-link GB/s */
	double nccl_pci_bw;         /* per GPU: PCIe link GB/s */
	double nccl_net_bw;         /* per group: NIC GB/s (port speed / 8000) */
	int nics;                   /* distinct NICs per group (min) */
	int nch_ring;               /* search channels of the ring graph */
	double bw_intra, bw_inter;  /* per search channel, GB/s */
	int nvls_channels;
	double tree_net;            /* busiest group's tree AllReduce network bytes per byte (1 at G = 2, 2 for large G) */
	uint16_t tree_degs;         /* bit 4 d0 + d1: some group has d0 edges in tree 0 and d1 in tree 1 */
	int tree_path;              /* the tree's slowest leaf-root path: sum of its parents' child counts */
	double late_s;              /* the latest start of any rank (a straggler fault), 0 */
};

struct ccs_cost {
	double time_s;
	double lat_s;               /* L */
	double bw_s;                /* bandwidth term */
	double step_s;              /* K o_q */
	double rate_Bps;            /* B */
	double wire_bytes;          /* W */
	int channels, bound;
};

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
/* The ranks of each group in rank order, members [start[g], start[g+1])
 * (a counting sort on rank_group).  Both arrays are the caller's to free;
 * CCS_ENOMEM leaves none. */
int  ccs_comm_members(const struct ccs_comm *c, int32_t **start, int32_t **members);

/* GPU memory bytes a kernel moves per byte it sends: a reduction reads two
 * operands and writes one (2.5 counted, some stay in cache), a copy reads
 * and writes (2). */
static inline double ccs_cost_mem_per_byte(int coll)
{
	return ccs_coll_reduces(coll) ? 2.5 : 2.0;
}

/* Our model.  channels 0 picks NCCL's count for the algorithm.  Returns 0,
 * or -1 with a reason in why (algorithm not available for this collective or
 * hardware: NVLS without multicast switches, CollNet without SHARP ...). */
int ccs_cost_eval(const struct ccs_comm *c, int coll, int algo, int proto, int channels,
                  uint64_t bytes, struct ccs_cost *out, const char **why);

/* Pieces of the model that the simulator's schedules share, so that both
 * count the same bytes.  ccs_cost_proto_cap: NCCL's cap on the GPU-side
 * throughput of algo with proto [B/s] (HUGE_VAL: none).
 * ccs_cost_tree_share: the busiest rank's intra-group bytes per byte of the
 * operation in a tree AllReduce whose C channels start their chains at
 * member c mod p: S (2C - m) / C, m the fewest head-or-tail roles any member
 * has (2 with one channel per member, 2 - 2/p when C is a multiple of p). */
double ccs_cost_proto_cap(const struct ccs_comm *c, int algo, int proto);
/* Bytes each channel moves per pipeline step (NCCL's chunk) for an
 * operation of 'bytes' on 'channels' channels. */
double ccs_cost_chunk(const struct ccs_comm *c, int coll, int algo, int proto, int channels, double bytes);
double ccs_cost_tree_share(int p, int C);
/* One-shot / two-shot latency pieces: the kernel's start (fixed cost and
 * start barrier) and one barrier between or after phases [s]. */
void ccs_cost_shot_lat(const struct ccs_comm *c, int algo, double *start, double *stage);
/* Blocks j in [0, n) with bit k set: what a Bruck AllToAll rank sends in
 * round k, in units of S / n. */
double ccs_cost_bruck_blocks(int n, int k);

/* NCCL's tuning model (src/graph/tuning.cc, NCCL 2.30), reimplemented on the
 * same communicator: predicted seconds, or -1 when NCCL would not offer the
 * combination.  Only the five tuned collectives. */
double ccs_nccl_time(const struct ccs_comm *c, int coll, int algo, int proto, uint64_t bytes);
/* NCCL's runtime channel count for the algorithm. */
int ccs_nccl_channels(const struct ccs_comm *c, int algo);

/* Selection among algorithms and protocols whose bit is set in the masks.
 * nccl: NCCL's choice (its model's minimum, for the five tuned collectives;
 * AllToAll and SendRecv take direct/Simple as NCCL does).  Otherwise the
 * fastest by our model.  Returns -1 when nothing in the masks applies. */
int ccs_select(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned algo_mask,
               unsigned proto_mask, int nccl, int *algo, int *proto);

#endif
