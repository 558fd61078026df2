/*
** model/cost_term.h: what each algorithm moves, for the closed form
** (model/cost.h): the bytes W each rank moves on its bottleneck resource,
** that resource's rate B, and the hop counts of its latency, per algorithm
** (adding one: its term_<algo>() here and a row of term_of[]; its row of
** ccs_algo_desc in model/coll.c).  cost.c turns a term into a time (the
** protocol's wire share, NCCL's caps, GPU memory, the chunk pipeline).
**
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
*/
#ifndef CCS_COST_TERM_H
#define CCS_COST_TERM_H

#include "coll.h"
#include "comm.h"

/* A term: what the algorithm moves and how fast it may (bytes, B/s). */
struct ccs_cost_term {
	double W;                       /* bytes per rank on the bottleneck */
	double Bi, Bn;                  /* GPU-side (scale-up, PCIe) and network rates */
	int bi_bound, bn_bound;
	double ti, tn;                  /* or times set directly (multi-phase) */
	int steps_intra, steps_inter;   /* hop counts for the latency */
	int lat_algo;                   /* NCCL latency row to use */
	/* one kernel without chunk steps (one-shot, two-shot): its own latency
	 * and GPU memory bytes; 0 for NCCL's pipelined algorithms */
	int kernel;
	double kernel_lat, kernel_mem;
	/* the busiest rank's sent bytes per W where it exceeds W (the tree's
	 * chain share), for the memory bound; 0: 1 */
	double mem_scale;
	double tree_tg;             /* the tree's network bytes per byte (tree_net_share) */
	double tree_tph;            /* a phase's busiest NIC on tree_tg's scale (tree_net_share) */
	/* the data bytes one message of a network hop of the latency chain
	 * carries, before the channels' split and the chunk cap (the ring's
	 * S/n slice, the tree's S, a peer's S/n); 0: W.  The transport's
	 * rendezvous (model/transport.h) prices it */
	double msg;
};

/* What a term is asked for: the call and the communicator's rates. */
struct ccs_cost_env {
	const struct ccs_comm *c;
	int coll, algo, proto, channels;
	double S;
	int n, G, p;
	double f;                   /* busbw factor */
	int intra_only;
	double su, net, net_share;
	int su_b;
};

/* Algorithm e->algo's term into *x (set up by the caller: rates HUGE_VAL,
 * hops -1, NCCL's ring latency row): 0, or -1 with why (the collective or
 * machine it does not cover). */
int ccs_cost_term_of(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why);

/* Pieces of the terms that the simulator's schedules share, so that both
 * count the same bytes.  ccs_cost_term_tree_share: the busiest rank's
 * intra-group bytes per byte of the operation in a tree AllReduce whose C
 * channels start their chains at member c mod p: S (2C - m) / C, m the
 * fewest head-or-tail roles any member has (2 with one channel per member,
 * 2 - 2/p when C is a multiple of p). */
double ccs_cost_term_tree_share(int p, int C);
/* One-shot / two-shot latency pieces: the kernel's start (fixed cost and
 * start barrier) and one barrier between or after phases [s]. */
void ccs_cost_term_shot_lat(const struct ccs_comm *c, int algo, double *start, double *stage);
/* Blocks j in [0, n) with bit k set: what a Bruck AllToAll rank sends in
 * round k, in units of S / n. */
double ccs_cost_term_bruck_blocks(int n, int k);
/* NVLS-tree's heads: the GPUs (with their NICs) through which it crosses
 * domains, the same count in every domain: at most NCCL_MAX_NVLS_ARITY
 * (32) and the fewest ranks of any group; at least 1. */
int ccs_cost_term_nvls_heads(const struct ccs_comm *c);

/* ceil(log2 n), 0 for n <= 1 */
static inline int ccs_cost_term_ilog2(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return k;
}

#endif
