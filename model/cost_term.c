/* model/cost_term.c: what each algorithm moves (cost_term.h). */
#include "cost_term.h"
#include "comm_ch.h"
#include "nccl_tables.h"
#include "ring_nic.h"

#include <math.h>
#include <string.h>

static void set_rate(struct ccs_cost_term *x, double B, int bound)
{
	if (B < x->Bi) {
		x->Bi = B;
		x->bi_bound = bound;
	}
}

static void set_net(struct ccs_cost_term *x, double B, int bound)
{
	if (B < x->Bn) {
		x->Bn = B;
		x->bn_bound = bound;
	}
}

/* Network bytes per byte of a tree AllReduce through the busiest NIC of
 * the busiest group, relative to all the channels' NICs sharing it evenly
 * (tg of ring_nic.h: the B_net x min(C, nics) / nics that the caller
 * divides by it), and *tph, a phase's busiest NIC on the same scale, for
 * C channels (comm_ch.h); -1 when out of memory. */
static double tree_net_share(const struct ccs_comm *c, int C, double *tph)
{
	struct ccs_comm_ch f;
	if (ccs_comm_ch_at(c, C, &f))
		return -1;
	*tph = f.tph;
	return f.tg;
}

/* Time of moving 'bytes' between two ranks of the given relation. */
static double rate_of(const struct ccs_comm *c, int same_group)
{
	return same_group ? c->b_su : c->b_nic;
}

/* What every algorithm's term reads: the request and the communicator's
 * rates (net: B_net less the NICs that too few channels leave idle, the
 * share net_share of B_net). */

/* The rings' network rate where they enter and leave the groups by the
 * NICs ring_nic.h places them on, for the call's channels (comm_ch.h);
 * HUGE_VAL when out of memory (*oom set). */
static double ring_net(const struct ccs_cost_env *e, int *oom)
{
	const struct ccs_comm *c = e->c;
	int C = e->channels > 0 ? e->channels : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
	struct ccs_comm_ch f;
	if (ccs_comm_ch_at(c, C, &f)) {
		*oom = 1;
		return HUGE_VAL;
	}
	return f.B_ring;
}

/* ring: bytes, rates and hops (struct ccs_cost_term). */
static int term_ring(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
{
	if (e->coll == CCS_COLL_ALLTOALL || e->coll == CCS_COLL_SENDRECV) {
		*why = "ring applies to AllReduce, AllGather, ReduceScatter, Broadcast and Reduce";
		return -1;
	}
	x->W = (e->coll == CCS_COLL_BROADCAST || e->coll == CCS_COLL_REDUCE) ? e->S : e->f * e->S;
	/* a step of the ring moves one of n slices; a chain the whole buffer */
	x->msg = (e->coll == CCS_COLL_BROADCAST || e->coll == CCS_COLL_REDUCE) ? e->S : e->S / e->n;
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

/* tree: bytes, rates and hops (struct ccs_cost_term). */
static int term_tree(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
{
	if (e->coll != CCS_COLL_ALLREDUCE) {
		*why = "tree applies to AllReduce";
		return -1;
	}
	x->W = x->msg = e->S;
	x->tree_tg = tree_net_share(e->c, e->channels > 0 ? e->channels : ccs_nccl_channels(&e->c->nccl, CCS_ALGO_RING),
	                             &x->tree_tph);
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
		x->mem_scale = ccs_cost_term_tree_share(e->p, C0);
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
	x->steps_inter = 2 * ccs_cost_term_ilog2(e->G);
	x->lat_algo = CCS_ALGO_TREE;
	/* NCCL's measured shortfall of its trees at medium sizes */
	{
		double corr = ccs_nccl_tree_correction(e->proto, e->S);
		x->Bi *= corr;
		x->Bn *= corr;
	}
	return 0;
}

/* nvls, nvls_tree: bytes, rates and hops (struct ccs_cost_term). */
int ccs_cost_term_nvls_heads(const struct ccs_comm *c)
{
	int h = c->p_min > 0 ? c->p_min : 1;
	return h < CCS_NCCL_NVLS_ARITY ? h : CCS_NCCL_NVLS_ARITY;
}

static int term_nvls(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
		double net = e->net, hnet = ccs_cost_term_nvls_heads(e->c) * e->c->b_nic;
		if (e->algo == CCS_ALGO_NVLS_TREE && hnet < net)
			net = hnet;
		set_net(x, e->algo == CCS_ALGO_NVLS ? net : net / e->c->tree_net, CCS_BOUND_NIC);
	}
	x->steps_intra = 1;
	x->steps_inter = e->G > 1 ? (e->algo == CCS_ALGO_NVLS_TREE ? 2 * ccs_cost_term_ilog2(e->G) : 1) : 0;
	/* across groups each head carries its share over its own tree; NVLS
	 * each rank its slice */
	x->msg = e->algo == CCS_ALGO_NVLS_TREE ? e->S / ccs_cost_term_nvls_heads(e->c) : e->S / e->p;
	x->lat_algo = e->algo;
	return 0;
}

/* collnet_direct, collnet_chain: bytes, rates and hops (struct ccs_cost_term). */
static int term_collnet_direct(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
		                                              : e->su / ccs_cost_term_tree_share(e->p, C0),
		         e->su_b);
	}
	set_net(x, e->net, CCS_BOUND_NIC);
	/* direct: each rank's slice to the switch; chain: its head carries S */
	x->msg = e->algo == CCS_ALGO_COLLNET_DIRECT ? e->S / e->p : e->S;
	x->steps_intra = e->algo == CCS_ALGO_COLLNET_DIRECT ? 2 : 2 * (e->p - 1);
	x->steps_inter = 1;
	x->lat_algo = e->algo;
	return 0;
}

/* pat: bytes, rates and hops (struct ccs_cost_term). */
static int term_pat(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
	x->steps_intra = ccs_cost_term_ilog2(e->p);
	x->steps_inter = ccs_cost_term_ilog2(e->G);
	x->lat_algo = CCS_ALGO_PAT;
	x->msg = e->S / e->n;
	return 0;
}

/* rhd, rd, bruck: bytes, rates and hops (struct ccs_cost_term). */
static int term_rhd(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
	int L2 = ccs_cost_term_ilog2(e->n);
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
			bytes = e->coll == CCS_COLL_ALLTOALL ? e->S * ccs_cost_term_bruck_blocks(e->n, k) / e->n
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
			x->msg += bytes;   /* summed here, a network step's mean below */
			inter++;
		}
	}
	if (e->algo == CCS_ALGO_RHD && e->coll == CCS_COLL_ALLREDUCE) {
		t *= 2;
		tnet *= 2;
		inter *= 2;
		x->msg *= 2;
		L2 *= 2;
	}
	x->W = e->f * e->S;
	x->ti = t + tnet;
	x->tn = 0;
	x->bi_bound = tnet > t ? CCS_BOUND_NIC : e->su_b;
	x->steps_inter = inter;
	x->steps_intra = L2 - inter;
	x->msg = inter > 0 ? x->msg / inter : 0;
	return 0;
}

/* direct, pairwise: bytes, rates and hops (struct ccs_cost_term). */
static int term_direct(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
		x->W = x->msg = e->S;
		if (cross)
			set_net(x, e->c->b_nic1, CCS_BOUND_NIC);
		else
			set_rate(x, e->su, e->su_b);
		x->steps_intra = cross ? 0 : 1;
		x->steps_inter = cross ? 1 : 0;
		return 0;
	}
	x->msg = e->S / e->n;   /* a peer's block */
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

/* hier: bytes, rates and hops (struct ccs_cost_term). */
static int term_hier(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
		x->msg = e->S / e->n;   /* a step of the ring of S/p over G groups */
		x->ti = 2 * t_rs + t_ar;
		x->tn = 0;
		x->bi_bound = t_ar > 2 * t_rs ? CCS_BOUND_NIC : e->su_b;
		x->steps_intra = 2 * (e->p - 1);
		x->steps_inter = 2 * (e->G - 1);
	}
	return 0;
}

/* oneshot, twoshot: bytes, rates and hops (struct ccs_cost_term). */
static int term_oneshot(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
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
	 * one kernel, barriers between phases (ccs_cost_term_shot_lat). */
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
		ccs_cost_term_shot_lat(e->c, e->algo, &start, &stage);
		x->kernel_lat = start + (e->algo == CCS_ALGO_ONESHOT ? 1 : 2) * stage;
	}
	return 0;
}

/* Each algorithm's term: NULL where there is none. */
static int (*const term_of[CCS_ALGO_N])(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why) = {
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

void ccs_cost_term_shot_lat(const struct ccs_comm *c, int algo, double *start, double *stage)
{
	/* a flag store seen across one NVLink hop: NCCL's LL hop latency over
	 * NVLink plus the graph's */
	double h = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_LL, 1, 0) -
	           ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, CCS_PROTO_LL, 0, 0);
	*start = c->prm.shot_overhead_s[algo == CCS_ALGO_TWOSHOT] + h;
	*stage = h;
}

double ccs_cost_term_bruck_blocks(int n, int k)
{
	/* j in [0, n) with bit k set: whole periods of 2^(k+1), then the tail */
	long per = 1L << (k + 1), half = 1L << k;
	long full = n / per, rest = n % per;
	return (double)(full * half + (rest > half ? rest - half : 0));
}

double ccs_cost_term_tree_share(int p, int C)
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

int ccs_cost_term_of(const struct ccs_cost_env *e, struct ccs_cost_term *x, const char **why)
{
	if (e->algo < 0 || e->algo >= CCS_ALGO_N || !term_of[e->algo]) {
		*why = "unknown algorithm";
		return -1;
	}
	return term_of[e->algo](e, x, why);
}
