/* model/cost.c: our cost model: the closed-form time of a collective on a
** communicator (cost.h, docs/model.md). */
#include "cost.h"
#include "nccl_tables.h"
#include "ring_nic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const ccs_bound_name[CCS_BOUND_N] = {
	"latency", "nvlink", "pcie", "c2c", "ub", "hccs", "smp", "nic", "leaf", "spine", "core",
	"reduce", "protocol", "sync", "sm", "proxy", "xgmi",
};

/* ---- our model ---- */

static int ilog2_ceil(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return k;
}

/* Chunk each channel moves per pipeline step [bytes] (NCCL's defaults:
 * buffers of 512 KiB (LL), 4.6875 MiB (LL128), 4 MiB (Simple) in 8 steps;
 * ring Simple moves 2-step slices; NVLS 128 KiB chunks that shrink for
 * small operations, src/enqueue.cc calcCollChunking). */
double ccs_cost_chunk(const struct ccs_comm *c, int coll, int algo, int proto, int channels, double bytes)
{
	if (proto == CCS_PROTO_LL)
		return CCS_NCCL_CHUNK_LL;
	if (proto == CCS_PROTO_LL128 && algo == CCS_ALGO_TREE) {
		/* NCCL halves the tree's LL128 chunk for operations that would
		 * not fill the pipeline: while S / (C chunk) < steps x 64 / ppn
		 * (down to 128 KiB), then x 16 / ppn (down to 32 KiB), with
		 * steps = 1 + log2(nodes) + 0.1 ppn (calcCollChunking) */
		double ppn = c->G > 0 ? (double)c->n / c->G : 1;
		int lg = 0;
		while ((2 << lg) <= c->G)
			lg++;
		double steps = 1 + lg + 0.1 * ppn, chunk = CCS_NCCL_CHUNK_LL128;
		double C = channels > 0 ? channels : 1;
		while (bytes / (C * chunk) < steps * 64 / ppn && chunk > 131072)
			chunk /= 2;
		while (bytes / (C * chunk) < steps * 16 / ppn && chunk > 32768)
			chunk /= 2;
		return chunk;
	}
	if (proto == CCS_PROTO_LL128)
		return CCS_NCCL_CHUNK_LL128;
	if (algo == CCS_ALGO_TREE) {
		/* NCCL shrinks the Simple tree's 512 KiB chunk so that each
		 * channel's pipeline holds enough chunks for the tree's depth
		 * (ranks per node - 1 + floor log2 nodes): to 128 KiB while
		 * fewer than 8 x depth, 64 KiB while fewer than 4 x depth, 32 KiB
		 * while fewer than depth (src/enqueue.cc, the chunking of
		 * ncclPatternTreeUpDown) */
		double ppn = c->G > 0 ? (double)c->n / c->G : 1;
		int lg = 0;
		while ((2 << lg) <= c->G)
			lg++;
		double depth = ppn - 1 + lg, chunk = CCS_NCCL_STEP_SIMPLE;
		double C = channels > 0 ? channels : 1;
		while (bytes / (C * chunk) < depth * 8 && chunk > 131072)
			chunk /= 2;
		while (bytes / (C * chunk) < depth * 4 && chunk > 65536)
			chunk /= 2;
		while (bytes / (C * chunk) < depth && chunk > 32768)
			chunk /= 2;
		return chunk;
	}
	if (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) {
		/* NCCL halves the 128 KiB NVLS chunk below 64, 8 and 2 x (channels
		 * x heads x chunk) bytes: 32 KiB at 64 KiB x ops, 64 KiB at 512 KiB
		 * x ops, 128 KiB from 8 MiB x ops.  A power law through those
		 * points, c = 32 KiB (S / (64 KiB ops))^(2/7), keeps the steps (and
		 * time) growing smoothly with S instead of jumping at each halving. */
		double ops = (double)channels * (c->p > 0 ? c->p : 1);
		double chunk = 32768.0 * pow(bytes / (65536.0 * ops), 2.0 / 7.0);
		double top = algo != CCS_ALGO_NVLS ? CCS_NCCL_CHUNK_NVLS
		           : c->nccl.nvls_chunk_max > 0 ? c->nccl.nvls_chunk_max
		           : c->G > 1 ? CCS_NCCL_CHUNK_NVLS_NET : CCS_NCCL_CHUNK_NVLS;
		return chunk < 16384.0 ? 16384.0 : chunk > top ? top : chunk;
	}
	if (algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN)
		return CCS_NCCL_CHUNK_COLLNET;
	if (algo == CCS_ALGO_RING && (coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_ALLGATHER ||
	                              coll == CCS_COLL_REDUCESCATTER))
		return CCS_NCCL_SLICE_RING;
	return CCS_NCCL_STEP_SIMPLE;
}

/* NCCL's per-protocol throughput caps [B/s] for the algorithm's B. */
double ccs_cost_proto_cap(const struct ccs_comm *c, int algo, int proto)
{
	int nodes_idx = c->G <= 2 ? c->G - 1 : 2;
	if (proto == CCS_PROTO_LL) {
		double cap = ccs_nccl_ll_max_bw(c->arch, c->G) * 1e9;
		return algo == CCS_ALGO_TREE ? cap : cap;
	}
	if (proto == CCS_PROTO_LL128) {
		double per = algo == CCS_ALGO_TREE ? ccs_nccl_tree_ll128_max(c->arch, nodes_idx)
		                                   : ccs_nccl_ring_ll128_max(c->arch, nodes_idx);
		return per * 1e9 * c->nccl.nch_ring;
	}
	return HUGE_VAL;
}

struct term {
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
};

static void set_rate(struct term *x, double B, int bound)
{
	if (B < x->Bi) {
		x->Bi = B;
		x->bi_bound = bound;
	}
}

static void set_net(struct term *x, double B, int bound)
{
	if (B < x->Bn) {
		x->Bn = B;
		x->bn_bound = bound;
	}
}

/* Network bytes per byte of a tree AllReduce through the busiest NIC of
 * the busiest group, relative to all the channels' NICs sharing it evenly
 * (tg of ring_nic.h: the B_net x min(C, nics) / nics that the caller
 * divides by it): the communicator's figure for NCCL's channel count, else
 * placed again; -1 when out of memory. */
static double tree_net_share(const struct ccs_comm *c, int C)
{
	if (C < 1)
		C = 1;
	if (C == c->ring_C)
		return c->tree_tg;
	for (int k = 0; k < 7; k++)
		if (C == 1 << k && c->tree_tg_k[k] > 0)
			return c->tree_tg_k[k];   /* placed once at build */
	int32_t *gstart = NULL, *members = NULL;
	double tg = -1;
	if (ccs_comm_members(c, &gstart, &members) ||
	    ccs_ring_nic_tree(c->t, c->rank_gpu, gstart, members, c->G, C, c->nccl.nics, &tg))
		tg = -1;
	ccs_free(gstart);
	ccs_free(members);
	return tg;
}

/* Time of moving 'bytes' between two ranks of the given relation. */
static double rate_of(const struct ccs_comm *c, int same_group)
{
	return same_group ? c->b_su : c->b_nic;
}

/* What every algorithm's term reads: the request and the communicator's
 * rates (net: B_net less the NICs that too few channels leave idle, the
 * share net_share of B_net). */
struct env {
	const struct ccs_comm *c;
	int coll, algo, proto, channels;
	double S;
	int n, G, p;
	double f;                   /* busbw factor */
	int intra_only;
	double su, net, net_share;
	int su_b;
};

/* The rings' network rate where they enter and leave the groups by the
 * NICs ring_nic.h places them on, for the call's channels (the
 * communicator's figure for NCCL's count, else placed again); HUGE_VAL
 * when out of memory (*oom set). */
static double ring_net(const struct env *e, int *oom)
{
	const struct ccs_comm *c = e->c;
	int C = e->channels > 0 ? e->channels : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
	if (C == c->ring_C || c->G < 2)
		return c->B_ring;
	for (int k = 0; k < 7; k++)
		if (C == 1 << k && c->B_ring_k[k] > 0)
			return c->B_ring_k[k];   /* placed once at build */
	int32_t *gstart = NULL, *members = NULL;
	double B = HUGE_VAL;
	if (ccs_comm_members(c, &gstart, &members) ||
	    ccs_ring_nic_rate(c->t, c->rank_gpu, c->n, gstart, members, c->G, C, c->prm.eff, &B))
		*oom = 1;
	ccs_free(gstart);
	ccs_free(members);
	return B;
}

/* ring: bytes, rates and hops (struct term). */
static int term_ring(const struct env *e, struct term *x, const char **why)
{
	if (e->coll == CCS_COLL_ALLTOALL || e->coll == CCS_COLL_SENDRECV) {
		*why = "ring applies to AllReduce, AllGather, ReduceScatter, Broadcast and Reduce";
		return -1;
	}
	x->W = (e->coll == CCS_COLL_BROADCAST || e->coll == CCS_COLL_REDUCE) ? e->S : e->f * e->S;
	if (e->p > 1)
		set_rate(x, e->su, e->su_b);
	if (!e->intra_only) {
		int oom = 0;
		double rn = ring_net(e, &oom);
		if (oom) {
			*why = "out of memory";
			return -1;
		}
		set_net(x, rn < e->net ? rn : e->net, CCS_BOUND_NIC);
	}
	x->steps_inter = e->intra_only ? 0 : (e->coll == CCS_COLL_ALLREDUCE ? 2 * (e->G - 1) : e->G - 1);
	{
		int steps = e->coll == CCS_COLL_ALLREDUCE ? 2 * (e->n - 1) : e->n - 1;
		if (e->coll == CCS_COLL_BROADCAST || e->coll == CCS_COLL_REDUCE)
			steps = e->n - 1;
		x->steps_intra = steps - x->steps_inter;
	}
	return 0;
}

/* tree: bytes, rates and hops (struct term). */
static int term_tree(const struct env *e, struct term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLREDUCE) {
		*why = "tree applies to AllReduce";
		return -1;
	}
	x->W = e->S;
	x->tree_tg = tree_net_share(e->c, e->channels > 0 ? e->channels : ccs_nccl_channels(&e->c->nccl, CCS_ALGO_RING));
	if (x->tree_tg < 0) {
		*why = "out of memory";
		return -1;
	}
	if (e->p > 1) {
		/* Inside a group each rank sends its S up the chain and S
		 * down, except where it heads the chain (its up leaves by the
		 * network, or it is the root) or ends it (nothing below).
		 * Channel c's chain starts at member c mod p, so with C
		 * channels the busiest rank sends S (2C - m) / C, m the
		 * fewest head-or-tail roles any member has. */
		int C0 = e->channels > 0 ? e->channels : ccs_nccl_channels(&e->c->nccl, CCS_ALGO_RING);
		x->mem_scale = ccs_cost_tree_share(e->p, C0);
		set_rate(x, e->su / x->mem_scale, e->su_b);
	}
	if (!e->intra_only) {
		/* the NICs carry the channels where ring_nic.h places them (tg);
		 * the ranks' host paths their even share (tree_net): each limit
		 * on its own load, not one on top of the other */
		const struct ccs_comm *c = e->c;
		double bn = c->B_net_nic * e->net_share / x->tree_tg;
		double bh = isinf(c->B_net_host) || c->tree_net <= 0 ? HUGE_VAL : c->B_net_host * e->net_share / c->tree_net;
		set_net(x, bn < bh ? bn : bh, CCS_BOUND_NIC);
	}
	x->steps_intra = 2 * (e->p - 1);
	x->steps_inter = 2 * ilog2_ceil(e->G);
	x->lat_algo = CCS_ALGO_TREE;
	/* NCCL's measured shortfall of its trees at medium sizes */
	{
		double corr = ccs_nccl_tree_correction(e->proto, e->S);
		x->Bi *= corr;
		x->Bn *= corr;
	}
	return 0;
}

/* nvls, nvls_tree: bytes, rates and hops (struct term). */
int ccs_cost_nvls_heads(const struct ccs_comm *c)
{
	int h = c->p_min > 0 ? c->p_min : 1;
	return h < CCS_NCCL_NVLS_ARITY ? h : CCS_NCCL_NVLS_ARITY;
}

static int term_nvls(const struct env *e, struct term *x, const char **why)
{
	if (!e->c->nvls) {
		*why = "nvls needs scale-up switches with multicast and in-switch reduction, and P2P on";
		return -1;
	}
	if (e->proto != CCS_PROTO_SIMPLE) {
		*why = "nvls runs the Simple protocol only";
		return -1;
	}
	if (e->algo == CCS_ALGO_NVLS && e->G > 1 && !e->c->sharp) {
		*why = "nvls across scale-up domains needs SHARP switches (or use nvls_tree)";
		return -1;
	}
	if (e->algo == CCS_ALGO_NVLS_TREE && (e->G == 1 || e->coll != CCS_COLL_ALLREDUCE)) {
		*why = "nvls_tree is AllReduce across several scale-up domains";
		return -1;
	}
	if (e->coll == CCS_COLL_ALLREDUCE) {
		x->W = e->S;
		set_rate(x, e->su * e->p / (e->p + 1.0), e->su_b);
	} else if ((e->coll == CCS_COLL_ALLGATHER || e->coll == CCS_COLL_REDUCESCATTER) && e->G == 1) {
		x->W = e->f * e->S;
		set_rate(x, e->su, e->su_b);
	} else {
		*why = "nvls applies to AllReduce, and to AllGather and ReduceScatter inside one domain";
		return -1;
	}
	if (e->G > 1) {
		/* NVLS-tree crosses domains only through its heads: NCCL's NVLS
		 * graph has at most NCCL_MAX_NVLS_ARITY = 32 heads, GPUs with their
		 * NICs, in a node (under MNNVL the whole domain; src/graph/search.cc,
		 * src/include/device.h), each carrying its 1/heads of S up and down
		 * the tree between the domains: heads x a rank's NIC rate */
		double net = e->net, hnet = ccs_cost_nvls_heads(e->c) * e->c->b_nic;
		if (e->algo == CCS_ALGO_NVLS_TREE && hnet < net)
			net = hnet;
		set_net(x, e->algo == CCS_ALGO_NVLS ? net : net / e->c->tree_net, CCS_BOUND_NIC);
	}
	x->steps_intra = 1;
	x->steps_inter = e->G > 1 ? (e->algo == CCS_ALGO_NVLS_TREE ? 2 * ilog2_ceil(e->G) : 1) : 0;
	x->lat_algo = e->algo;
	return 0;
}

/* collnet_direct, collnet_chain: bytes, rates and hops (struct term). */
static int term_collnet_direct(const struct env *e, struct term *x, const char **why)
{
	if (!e->c->sharp) {
		*why = "collnet needs in-network reduction (SHARP) on the switches of every nic, and more than one group";
		return -1;
	}
	if (e->proto != CCS_PROTO_SIMPLE) {
		*why = "collnet runs the Simple protocol only";
		return -1;
	}
	if (e->coll != CCS_COLL_ALLREDUCE) {
		*why = "collnet applies to AllReduce";
		return -1;
	}
	x->W = e->S;
	if (e->p > 1) {
		/* chain: as the tree's chains, heads and tails rotating over
		 * the channels */
		int C0 = e->channels > 0 ? e->channels : ccs_nccl_channels(&e->c->nccl, CCS_ALGO_RING);
		set_rate(x, e->algo == CCS_ALGO_COLLNET_DIRECT ? e->su * e->p / (e->p + 1.0)
		                                              : e->su / ccs_cost_tree_share(e->p, C0),
		         e->su_b);
	}
	set_net(x, e->net, CCS_BOUND_NIC);
	x->steps_intra = e->algo == CCS_ALGO_COLLNET_DIRECT ? 2 : 2 * (e->p - 1);
	x->steps_inter = 1;
	x->lat_algo = e->algo;
	return 0;
}

/* pat: bytes, rates and hops (struct term). */
static int term_pat(const struct env *e, struct term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLGATHER && e->coll != CCS_COLL_REDUCESCATTER) {
		*why = "pat applies to AllGather and ReduceScatter";
		return -1;
	}
	if (e->proto != CCS_PROTO_SIMPLE) {
		*why = "pat runs the Simple protocol only";
		return -1;
	}
	x->W = e->f * e->S;
	if (e->p > 1)
		set_rate(x, e->su, e->su_b);
	if (!e->intra_only)
		set_net(x, e->net, CCS_BOUND_NIC);
	x->steps_intra = ilog2_ceil(e->p);
	x->steps_inter = ilog2_ceil(e->G);
	x->lat_algo = CCS_ALGO_PAT;
	return 0;
}

/* rhd, rd, bruck: bytes, rates and hops (struct term). */
static int term_rhd(const struct env *e, struct term *x, const char **why)
{
	int ok = (e->algo == CCS_ALGO_RHD && (e->coll == CCS_COLL_ALLREDUCE || e->coll == CCS_COLL_ALLGATHER ||
	                                   e->coll == CCS_COLL_REDUCESCATTER)) ||
	         (e->algo == CCS_ALGO_RD && (e->coll == CCS_COLL_ALLREDUCE || e->coll == CCS_COLL_ALLGATHER)) ||
	         (e->algo == CCS_ALGO_BRUCK && (e->coll == CCS_COLL_ALLGATHER || e->coll == CCS_COLL_ALLTOALL));
	if (!ok) {
		*why = e->algo == CCS_ALGO_BRUCK ? "bruck applies to AllGather and AllToAll"
		     : e->algo == CCS_ALGO_RD ? "recursive doubling applies to AllReduce and AllGather"
		                           : "halving-doubling applies to AllReduce, AllGather and ReduceScatter";
		return -1;
	}
	/* Steps k = 0..log2(n)-1 with peers at distance 2^k (ranks are
	 * placed group by group, so small distances stay inside a group).
	 * Bytes per step: RHD halving S/2^(k+1) (largest first, so the far
	 * peers get the big halves), RD S, Bruck AllGather
	 * min(2^k, n - 2^k) S/n, Bruck AllToAll the blocks with bit k set
	 * (S/2 for n a power of two).  sim/sched/steps.c runs the same. */
	int L2 = ilog2_ceil(e->n);
	double t = 0, tnet = 0;
	int inter = 0;
	for (int k = 0; k < L2; k++) {
		int dist = 1 << k;
		/* xor peers at a distance below p stay in a group; Bruck's
		 * shifts cross a group boundary in every round */
		int same = e->algo == CCS_ALGO_BRUCK ? e->G == 1 : dist < e->p && e->p > 1 && e->c->p_min == e->p;
		double bytes;
		if (e->algo == CCS_ALGO_RD)
			bytes = e->coll == CCS_COLL_ALLGATHER ? e->S * (double)(1 << k) / e->n : e->S;
		else if (e->algo == CCS_ALGO_BRUCK)
			bytes = e->coll == CCS_COLL_ALLTOALL ? e->S * ccs_cost_bruck_blocks(e->n, k) / e->n
			      : e->S * (dist < e->n - dist ? dist : e->n - dist) / e->n;
		else
			bytes = e->S / (double)(2 << (L2 - 1 - k));
		double r = rate_of(e->c, same);
		/* a two-tier scale-up plane: a step whose peers sit on other
		 * nodes sends all of a node's ranks through its uplinks */
		if (same && e->c->b_up > 0 && e->c->b_up < r && (e->algo == CCS_ALGO_BRUCK || dist >= e->c->up_q))
			r = e->c->b_up;
		if (r <= 0) {
			*why = "a step crosses groups but a rank has no nic";
			return -1;
		}
		/* steps run one after another: network steps add up too */
		if (same) {
			t += bytes / r;
		} else {
			tnet += bytes / r;
			inter++;
		}
	}
	if (e->algo == CCS_ALGO_RHD && e->coll == CCS_COLL_ALLREDUCE) {
		t *= 2;
		tnet *= 2;
		inter *= 2;
		L2 *= 2;
	}
	x->W = e->f * e->S;
	x->ti = t + tnet;
	x->tn = 0;
	x->bi_bound = tnet > t ? CCS_BOUND_NIC : e->su_b;
	x->steps_inter = inter;
	x->steps_intra = L2 - inter;
	return 0;
}

/* direct, pairwise: bytes, rates and hops (struct term). */
static int term_direct(const struct env *e, struct term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLTOALL && e->coll != CCS_COLL_SENDRECV) {
		*why = "direct and pairwise apply to AllToAll and SendRecv";
		return -1;
	}
	if (e->coll == CCS_COLL_SENDRECV) {
		/* nccl-tests sendrecv: rank r sends S to r+1 and receives from
		 * r-1; one rank a group crosses, alone on its NICs (NCCL
		 * spreads a peer's channels over the GPU's nearest NICs) */
		int cross = e->G > 1;
		x->W = e->S;
		if (cross)
			set_net(x, e->c->b_nic1, CCS_BOUND_NIC);
		else
			set_rate(x, e->su, e->su_b);
		x->steps_intra = cross ? 0 : 1;
		x->steps_inter = cross ? 1 : 0;
		return 0;
	}
	{
		double intra_b = e->S * (e->p - 1) / e->n, inter_b = e->S * (double)(e->n - e->p) / e->n;
		double ti = e->p > 1 && e->su > 0 ? intra_b / e->su : 0;
		/* a two-tier scale-up plane: the rounds' sends between nodes of a
		 * domain through each node's uplinks (model/p2p.h) */
		if (e->c->a2a_K_up * (e->S / e->n) > ti)
			ti = e->c->a2a_K_up * (e->S / e->n);
		/* each group's own bytes to the others over its NICs (groups may
		 * differ in size: a part-filled rack), and where the fabric's cut
		 * is below the NICs, that share (R_fab, per group) */
		double tn = e->G > 1 ? e->S * e->c->a2a_grp : 0;
		x->bn_bound = CCS_BOUND_NIC;
		if (e->G > 1 && e->c->R_fab < e->net && inter_b * e->p / e->c->R_fab > tn) {
			tn = inter_b * e->p / e->c->R_fab;
			x->bn_bound = e->c->fab_bound;
		}
		/* and each rank through its own NICs' share: a rank whose NIC
		 * died shares its neighbour's, which then carries both */
		int per_rank = e->G > 1 && e->c->b_nic > 0 && inter_b / e->c->b_nic > tn;
		if (per_rank) {
			tn = inter_b / e->c->b_nic;
			x->bn_bound = CCS_BOUND_NIC;
		}
		/* NCCL's rounds, 8 to a batch, min(batches, p2p channels) batches
		 * at once (model/p2p.h): each wave as long as its busiest NIC or
		 * scale-up port needs, the waves one after another; the fabric's
		 * cut above still bounds them */
		if (e->G > 1 && e->c->a2a_K > 0) {
			double tb = e->c->a2a_K * (e->S / e->n);
			if (tb > tn) {
				tn = tb;
				x->bn_bound = CCS_BOUND_NIC;
			}
		}
		x->W = e->f * e->S;
		x->ti = ti;
		x->tn = tn;
		x->bi_bound = e->su_b;
		if (e->algo == CCS_ALGO_PAIRWISE) {
			/* n - 1 rounds, one peer each, one after another; with
			 * ranks placed group by group every round has a rank whose
			 * peer is in another group once there are several */
			double rr = e->G > 1 ? (e->c->R_fab / e->p < e->c->b_nic ? e->c->R_fab / e->p : e->c->b_nic) : e->su;
			if (e->G == 1 && e->c->b_up > 0 && e->c->b_up < rr)
				rr = e->c->b_up;   /* most rounds leave the node: its uplinks */
			x->ti = rr > 0 ? (e->n - 1) * (e->S / e->n) / rr : 0;
			x->tn = 0;
			x->bi_bound = e->G > 1 ? x->bn_bound : e->su_b;
			x->steps_intra = e->G > 1 ? 0 : e->n - 1;
			x->steps_inter = e->G > 1 ? e->n - 1 : 0;
		} else {
			/* NCCL runs 8 peers a batch, a_wave batches at once: each of
			 * its lanes meets its peers one after another */
			int L = 8 * (e->c->a2a_wave > 0 ? e->c->a2a_wave : 1);
			x->steps_intra = (e->p - 1 + L - 1) / L;
			x->steps_inter = (e->n - e->p + L - 1) / L;
		}
	}
	return 0;
}

/* hier: bytes, rates and hops (struct term). */
static int term_hier(const struct env *e, struct term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLREDUCE) {
		*why = "hierarchical applies to AllReduce";
		return -1;
	}
	if (e->G == 1) {
		*why = "hierarchical needs more than one group";
		return -1;
	}
	{
		double t_rs = e->p > 1 ? e->S * (e->p - 1.0) / e->p / e->su : 0;
		double t_ar = 2.0 * (e->G - 1) / e->G * (e->S / e->p) / e->c->b_nic;
		/* phases run one after another */
		x->W = e->f * e->S;
		x->ti = 2 * t_rs + t_ar;
		x->tn = 0;
		x->bi_bound = t_ar > 2 * t_rs ? CCS_BOUND_NIC : e->su_b;
		x->steps_intra = 2 * (e->p - 1);
		x->steps_inter = 2 * (e->G - 1);
	}
	return 0;
}

/* oneshot, twoshot: bytes, rates and hops (struct term). */
static int term_oneshot(const struct env *e, struct term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLREDUCE) {
		*why = "oneshot and twoshot apply to AllReduce";
		return -1;
	}
	if (e->G > 1 || !e->c->intra_nvl) {
		*why = "oneshot and twoshot need every rank on one scale-up domain (peer loads and stores over NVLink)";
		return -1;
	}
	if (e->proto != CCS_PROTO_SIMPLE) {
		*why = "oneshot and twoshot carry their own flags; they run as Simple";
		return -1;
	}
	if (e->n > 256) {
		*why = "oneshot and twoshot are for at most 256 ranks";
		return -1;
	}
	/* one-shot: every rank reads (or is sent) all p - 1 peers' S and
	 * reduces locally; two-shot: a reduce-scatter then an all-gather,
	 * each rank moving (p - 1) S / p each way in each.  No chunk steps:
	 * one kernel, barriers between phases (ccs_cost_shot_lat). */
	x->W = e->algo == CCS_ALGO_ONESHOT ? (e->p - 1.0) * e->S : 2.0 * (e->p - 1) / e->p * e->S;
	set_rate(x, e->algo == CCS_ALGO_ONESHOT ? e->su : e->su * e->c->prm.twoshot_eff, e->su_b);
	/* memory: the one-shot GPU serves p - 1 peers' reads of its S,
	 * reads its own S and writes the sum, (p + 1) S; the two-shot one
	 * 3 S (serves (p-1)/p S twice, reads and writes its S/p share,
	 * writes the whole result) */
	x->kernel = 1;
	x->kernel_mem = (e->algo == CCS_ALGO_ONESHOT ? e->p + 1.0 : 3.0) * e->S;
	{
		double start, stage;
		ccs_cost_shot_lat(e->c, e->algo, &start, &stage);
		x->kernel_lat = start + (e->algo == CCS_ALGO_ONESHOT ? 1 : 2) * stage;
	}
	return 0;
}

/* Each algorithm's term: NULL where there is none. */
static int (*const term_of[CCS_ALGO_N])(const struct env *e, struct term *x, const char **why) = {
	[CCS_ALGO_RING] = term_ring,
	[CCS_ALGO_TREE] = term_tree,
	[CCS_ALGO_NVLS] = term_nvls,
	[CCS_ALGO_NVLS_TREE] = term_nvls,
	[CCS_ALGO_COLLNET_DIRECT] = term_collnet_direct,
	[CCS_ALGO_COLLNET_CHAIN] = term_collnet_direct,
	[CCS_ALGO_PAT] = term_pat,
	[CCS_ALGO_RHD] = term_rhd,
	[CCS_ALGO_RD] = term_rhd,
	[CCS_ALGO_BRUCK] = term_rhd,
	[CCS_ALGO_DIRECT] = term_direct,
	[CCS_ALGO_PAIRWISE] = term_direct,
	[CCS_ALGO_HIER] = term_hier,
	[CCS_ALGO_ONESHOT] = term_oneshot,
	[CCS_ALGO_TWOSHOT] = term_oneshot,
};

/* The GPU side's and the network's times of x's bytes (ti, tn) at the
 * protocol's wire efficiency and NCCL's caps, the GPU side also bounded by
 * GPU memory; *bi_bound what bounds the GPU side. */
static int side_times(const struct env *en, const struct term *xp, double *ti_out, double *tn_out, int *bi_out,
                      const char **why)
{
	const struct ccs_comm *c = en->c;
	int coll = en->coll, algo = en->algo, proto = en->proto, G = en->G;
	struct term x = *xp;
	/* Protocol: wire efficiency, and NCCL's throughput caps on the GPU side.
	 * NCCL's trees reach less of it (its tuning model: x0.92, and LL /3.8,
	 * LL128 7/9 on one node). */
	double e = ccs_nccl_proto_data_share(proto);
	if (algo == CCS_ALGO_TREE)
		e = ccs_nccl_tree_proto_eff(proto, G);
	double ti, tn;
	int bi_bound = x.bi_bound;
	if (x.ti >= 0) {
		ti = x.ti / e;
		tn = x.tn / e;
	} else {
		if (isinf(x.Bi) && isinf(x.Bn)) {
			*why = "no bandwidth between the ranks";
			return -1;
		}
		double Bi = x.Bi * e;
		double cap = ccs_cost_proto_cap(c, algo, proto);
		if (cap < Bi) {
			Bi = cap;
			bi_bound = CCS_BOUND_PROTOCOL;
		}
		ti = isinf(Bi) ? 0 : x.W / Bi;
		tn = isinf(x.Bn) ? 0 : x.W / (x.Bn * e);
	}
	/* Memory bandwidth of the reduction or copy, on the GPU side (not
	 * where the switches reduce; a kernel's own figure for the shots). */
	if (c->mem_bw > 0 && ccs_algo_desc[algo].mem != CCS_ALGO_MEM_SWITCH) {
		double m = ccs_cost_mem_per_byte(c, ccs_coll_reduces(coll));
		double tm = (x.kernel ? x.kernel_mem : m * x.W * (x.mem_scale > 1 ? x.mem_scale : 1)) / c->mem_bw;
		if (tm > ti) {
			ti = tm;
			bi_bound = CCS_BOUND_REDUCE;
		}
	}
	*ti_out = ti;
	*tn_out = tn;
	*bi_out = bi_bound;
	return 0;
}

/* The shared finish: channels, latency, the chunk pipeline and what fills
 * it (a tree's climb across groups, a Simple chain's store and forward, a
 * lone chunk's serial path), then *out.  One idea, the pipeline's time from
 * the two sides' times: its parts share C, the chunk, K and the step cost. */
static void finish(const struct env *en, const struct term *xp, double ti, double tn, int bi_bound,
                   struct ccs_cost *out)
{
	const struct ccs_comm *c = en->c;
	int coll = en->coll, algo = en->algo, proto = en->proto, channels = en->channels, n = en->n, G = en->G;
	double S = en->S;
	struct term x = *xp;
	int C = channels > 0 ? channels
	      : ccs_algo_desc[algo].nvls_channels ? c->nccl.nvls_channels
	      : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
	if (C < 1)
		C = 1;
	double lat = x.kernel ? x.kernel_lat : ccs_nccl_latency(&c->nccl, x.lat_algo, proto, x.steps_intra, x.steps_inter);
	double chunk = ccs_cost_chunk(c, coll, algo, proto, C, S);
	double K = ceil(x.W / ((double)C * chunk));
	if (K < 1)
		K = 1;
	double step = x.kernel ? 0 : K * c->prm.step_s[proto];
	/* the transport's handling of each chunk a channel sends across the
	 * network (model/transport.h): the proxy posts the next chunk while the
	 * NIC sends this one, so it paces the network side only where it takes
	 * longer than the chunks' wire time; the first chunk's handling is in
	 * the message latency */
	if (G > 1 && !x.kernel && tn > 0) {
		double proxy = (K - 1) * ccs_comm_tr(c)->chunk_s;
		if (proxy > tn)
			tn = proxy;
	}
	/* A tree across groups is a pipeline: the first chunk climbs log2 G
	 * network levels before the root can send the result down, and each
	 * level holds the network for a chunk's time, tn / Kc with Kc the
	 * chunks per channel (at least one).  A lone chunk (Kc = 1) meets the
	 * network lightly loaded and crosses it in about log2 G chunk times
	 * in all; K chunks take K + log2 G - 1/K.  NCCL's model leaves this
	 * out; it shows between 1 and 64 MiB (fitted to the simulated tree on
	 * 2-16 HGX H100 nodes, where it is within 1 chunk time of it). */
	double tn_raw = tn;
	if (algo == CCS_ALGO_TREE && G > 1) {
		double Kc = x.W / ((double)C * chunk);
		if (Kc < 1)
			Kc = 1;
		tn *= 1 + (ilog2_ceil(G) - 1 / Kc) / Kc;
	}
	/* The GPU side pays a synchronisation per chunk step; the network
	 * streams through the same steps from its own buffers, so the slower of
	 * the two sets the pace. */
	double gpu = ti + step;
	double bw_s = gpu > tn ? gpu : tn;
	/* Broadcast and Reduce with Simple: a chain of n - 1 hops that
	 * stores and forwards each chunk (NCCL's Simple passes a step on once
	 * it is whole; a channel moves full chunks and then what is left), so
	 * the pipeline also pays every hop but the slowest once for a full
	 * chunk: n - G GPU hops of a = ti fc + o and G - 1 network hops of
	 * b = tn fc, fc = min(1, C chunk / W) the share of a full chunk, less
	 * the slowest.  LL and LL128 forward each line as it arrives: no fill. */
	if (algo == CCS_ALGO_RING && (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) &&
	    proto == CCS_PROTO_SIMPLE && n > 2 && x.W > 0) {
		double fc = (double)C * chunk / x.W;
		if (fc > 1)
			fc = 1;
		double a = ti * fc + step / K, b = tn * fc, top = n - G > 0 ? a : 0;
		if (G > 1 && b > top)
			top = b;
		bw_s += (n - G) * a + (G - 1) * b - top;
	}
	/* At most one chunk per channel across groups: nothing pipelines, so
	 * the chunk's path is paid in series.  Each group's ports first do their
	 * chains' up work (half the GPU side); the chunk climbs the tree to the
	 * root, each edge taking X times its parent's children (their chunks
	 * share the parent's NIC port), X = tn / (2 t_G) the time of one edge
	 * (the network term counts both directions of the busiest group's t_G
	 * edges); the root's group sends it down its chains (a quarter) while
	 * it descends the same way, and the last leaf's chains take it down last
	 * (a quarter): gpu/2 + P + max(gpu/4, P) + gpu/4, P = X x the slowest
	 * leaf-root path.  Two groups: P = tn/2. */
	if (algo == CCS_ALGO_TREE && G > 1 && x.W <= (double)C * chunk && c->tree_path > 0) {
		double P = c->tree_path * tn_raw / (2 * x.tree_tg);
		double serial = gpu / 2 + P + (gpu / 4 > P ? gpu / 4 : P) + gpu / 4;
		if (serial > bw_s)
			bw_s = serial;
	}
	int bound = gpu >= tn ? bi_bound : x.bn_bound;
	double rate = bw_s > 0 ? x.W / (bw_s - (gpu >= tn ? step : 0)) : HUGE_VAL;

	lat += c->late_s;   /* everyone waits for a straggler */
	out->lat_s = lat;
	out->bw_s = bw_s - (gpu >= tn ? step : 0);
	out->step_s = gpu >= tn ? step : 0;
	out->time_s = lat + bw_s;
	out->rate_Bps = rate;
	out->wire_bytes = x.W;
	out->channels = x.kernel ? 1 : C;
	/* the largest of the three terms names the bound: the fixed latency,
	 * the chunk steps' synchronisation (sync), or the bytes over a rate */
	out->bound = out->bw_s >= lat && out->bw_s >= out->step_s ? bound
	           : out->step_s > lat ? CCS_BOUND_SYNC : CCS_BOUND_LATENCY;
}

int ccs_cost_eval(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t ubytes,
                  struct ccs_cost *out, const char **why)
{
	double S = (double)ubytes;
	int n = c->n, G = c->G, p = c->p;
	double f = ccs_busbw_factor(coll, n);
	struct term x = { 0, HUGE_VAL, HUGE_VAL, CCS_BOUND_LATENCY, CCS_BOUND_NIC, -1, -1, 0, 0, CCS_ALGO_RING,
		          0, 0, 0, 0, 0 };
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof *out);
	if (n == 1) {
		out->time_s = 0;
		out->channels = 0;
		out->bound = CCS_BOUND_LATENCY;
		return 0;
	}
	int intra_only = G == 1;
	if (!intra_only && !(ccs_comm_tr(c)->protos & (1u << proto))) {
		*why = "the transport across groups carries the Simple protocol only";
		return -1;
	}
	double su = c->b_su, net = c->B_net, net_share = 1;
	/* Each channel leaves a group through one NIC (NVLS and NVLS tree
	 * through one per head: every rank of the group sends its slice over
	 * its own NIC): fewer of those than NICs leave some NICs idle. */
	{
		int nv = ccs_algo_desc[algo].nvls_channels;
		int C0 = channels > 0 ? channels : nv ? c->nccl.nvls_channels : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
		if (nv)
			C0 *= p > 0 ? p : 1;
		if (c->nccl.nics > 0 && C0 < c->nccl.nics && algo != CCS_ALGO_DIRECT && algo != CCS_ALGO_PAIRWISE) {
			net = net * C0 / c->nccl.nics;
			net_share = (double)C0 / c->nccl.nics;
		}
	}
	int su_b = c->su_bound;

	struct env env = { c, coll, algo, proto, channels, S, n, G, p, f, intra_only, su, net, net_share, su_b };
	if (algo < 0 || algo >= CCS_ALGO_N || !term_of[algo]) {
		*why = "unknown algorithm";
		return -1;
	}
	if (term_of[algo](&env, &x, why))
		return -1;
	/* the collectives its row covers (model/coll.h), as the simulator */
	if (!(ccs_algo_desc[algo].colls >> coll & 1)) {
		*why = ccs_algo_desc[algo].only;
		return -1;
	}

	double ti, tn;
	int bi_bound;
	if (side_times(&env, &x, &ti, &tn, &bi_bound, why))
		return -1;
	finish(&env, &x, ti, tn, bi_bound, out);
	if (!isfinite(out->time_s)) {
		*why = "no finite time: a link on its path carries nothing (a fault took it down)";
		return -1;
	}
	return 0;
}

void ccs_cost_shot_lat(const struct ccs_comm *c, int algo, double *start, double *stage)
{
	/* a flag store seen across one NVLink hop: NCCL's LL hop latency over
	 * NVLink plus the graph's */
	double h = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_LL, 1, 0) -
	           ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_LL, 0, 0);
	*start = c->prm.shot_overhead_s[algo == CCS_ALGO_TWOSHOT] + h;
	*stage = h;
}

double ccs_cost_bruck_blocks(int n, int k)
{
	/* j in [0, n) with bit k set: whole periods of 2^(k+1), then the tail */
	long per = 1L << (k + 1), half = 1L << k;
	long full = n / per, rest = n % per;
	return (double)(full * half + (rest > half ? rest - half : 0));
}

double ccs_cost_tree_share(int p, int C)
{
	if (p < 2 || C < 1)
		return 0;
	int m = 2 * C;
	for (int j = 0; j < p; j++) {
		int a = j, b = (j + 1) % p;
		int mj = C / p + (a < C % p) + C / p + (b < C % p);
		if (mj < m)
			m = mj;
	}
	return (2.0 * C - m) / C;
}
