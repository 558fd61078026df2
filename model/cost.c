/* model/cost.c: our cost model: the closed-form time of a collective on a
** communicator (cost.h, docs/model.md). */
#include "cost.h"
#include "cost_term.h"
#include "nccl_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const ccs_bound_name[CCS_BOUND_N] = {
	"latency", "nvlink", "pcie", "c2c", "ub", "hccs", "smp", "nic", "leaf", "spine", "core",
	"reduce", "protocol", "sync", "sm", "proxy", "xgmi",
};

/* ---- our model ---- */

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

double ccs_cost_rdv(const struct ccs_comm *c, int proto, int channels, double chunk, double msg)
{
	double m = channels > 0 && msg / channels < chunk ? msg / channels : chunk;
	return ccs_transport_rdv(ccs_comm_tr(c), m / ccs_nccl_proto_data_share(proto));
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

/* The GPU side's and the network's times of x's bytes (ti, tn) at the
 * protocol's wire efficiency and NCCL's caps, the GPU side also bounded by
 * GPU memory; *bi_bound what bounds the GPU side. */
static int side_times(const struct ccs_cost_env *en, const struct ccs_cost_term *xp, double *ti_out, double *tn_out, int *bi_out,
                      const char **why)
{
	const struct ccs_comm *c = en->c;
	int coll = en->coll, algo = en->algo, proto = en->proto, G = en->G;
	struct ccs_cost_term x = *xp;
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

/* A tree's bandwidth term across groups beyond max(gpu, tn): the fill of
 * Simple chains across two groups and the serial path of a lone chunk
 * (tn_raw the network time before the pipeline's fill). */
static double tree_bw(const struct ccs_cost_env *en, const struct ccs_cost_term *x, double gpu, double tn,
                      double tn_raw, double bw_s, double K, double C, double chunk)
{
	const struct ccs_comm *c = en->c;
	/* A Simple tree across two groups whose network sets the pace stores
	 * and forwards each chunk along their chains (sim/sched/tree.c; on more
	 * groups the network's own fill above covers it): before the first
	 * chunk reaches the network it climbs p - 1 hops, the j-th shared with
	 * the min(j, C/2, K) chunks that follow it on that port (the chunks of
	 * its tree's C/2 channels, one chain order per tree), and after the
	 * last chunk leaves the network it descends p - 1 hops alone; a hop
	 * alone takes a1, one channel's share of a chunk step of the GPU side,
	 * gpu / (K C share). */
	if (en->G == 2 && en->proto == CCS_PROTO_SIMPLE && tn >= gpu && en->p > 1 && x->W > C * chunk) {
		double a1 = gpu / (K * C * (x->mem_scale > 1 ? x->mem_scale : 1));
		double h = floor(C / 2) > 1 ? floor(C / 2) : 1, m = en->p - 1;
		if (K < h)
			h = K;
		/* sum over j < p of min(j, h), then the p - 1 hops down */
		double up = m <= h ? m * (m + 1) / 2 : h * (h + 1) / 2 + (m - h) * h;
		bw_s += a1 * (up + m);
	}
	/* At most one chunk per channel across groups: nothing pipelines, so
	 * the chunk's path is paid in series.  Each group's ports first do their
	 * chains' up work (half the GPU side); the chunk climbs the tree to the
	 * root, each edge taking X times its parent's children (their chunks
	 * share the parent's NIC port), X = tn x tph / tg the time of one edge
	 * (the network term counts every edge of the busiest NIC, tg; a phase
	 * moves its channels of one tree, tph: ring_nic.h); the root's group
	 * sends it down its chains (a quarter) while it descends the same way,
	 * and the last leaf's chains take it down last (a quarter): gpu/2 + P + max(gpu/4, P) + gpu/4, P = X x the slowest
	 * leaf-root path.  Two groups, a channel of each tree on every NIC:
	 * P = tn/2; two channels of one tree sharing a NIC: P = tn.  From one
	 * chunk a channel to two (Kc, the second one growing) the time passes
	 * from that serial path to the pipeline's in proportion, so that it
	 * does not fall where NCCL's chunk shrinks and Kc crosses 1. */
	double Kc = x->W / (C * chunk);
	if (Kc < 2 && c->tree_path > 0) {
		double P = c->tree_path * tn_raw * x->tree_tph / x->tree_tg;
		double serial = gpu / 2 + P + (gpu / 4 > P ? gpu / 4 : P) + gpu / 4;
		if (Kc > 1)
			serial = serial * (2 - Kc) + bw_s * (Kc - 1);
		if (serial > bw_s)
			bw_s = serial;
	}
	return bw_s;
}

/* The shared finish: channels, latency, the chunk pipeline and what fills
 * it (a tree's climb across groups, a Simple chain's store and forward, a
 * lone chunk's serial path), then *out.  One idea, the pipeline's time from
 * the two sides' times: its parts share C, the chunk, K and the step cost. */
static void finish(const struct ccs_cost_env *en, const struct ccs_cost_term *xp, double ti, double tn, int bi_bound,
                   struct ccs_cost *out)
{
	const struct ccs_comm *c = en->c;
	int coll = en->coll, algo = en->algo, proto = en->proto, channels = en->channels, n = en->n, G = en->G;
	double S = en->S;
	struct ccs_cost_term x = *xp;
	int C = channels > 0 ? channels
	      : ccs_algo_desc[algo].nvls_channels ? c->nccl.nvls_channels
	      : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
	if (C < 1)
		C = 1;
	double lat = x.kernel ? x.kernel_lat : ccs_nccl_latency(&c->nccl, x.lat_algo, proto, x.steps_intra, x.steps_inter);
	double chunk = ccs_cost_chunk(c, coll, algo, proto, C, S);
	/* a two-sided transport's rendezvous on each network hop of the
	 * latency chain, for the message a channel puts on the wire */
	double rdv = G > 1 && !x.kernel ? ccs_cost_rdv(c, proto, C, chunk, x.msg > 0 ? x.msg : x.W) : 0;
	lat += x.steps_inter * rdv;
	double K = ceil(x.W / ((double)C * chunk));
	if (K < 1)
		K = 1;
	double step = x.kernel ? 0 : K * c->prm.step_s[proto];
	/* the transport's handling of each chunk a channel sends across the
	 * network (model/transport.h): the proxy posts the next chunk while the
	 * NIC sends this one, so it paces the network side only where it takes
	 * longer than the chunks' wire time; the first chunk's handling is in
	 * the message latency.  Each proxy carries its own GPU's channels: an
	 * NVLS-tree head moves S / heads over its tree (sim/sched/tree.c) */
	if (G > 1 && !x.kernel && tn > 0) {
		/* NVLS-tree: each head's proxy carries its own tree, S / heads */
		double Kn = algo == CCS_ALGO_NVLS_TREE ? ceil(x.W / ccs_cost_term_nvls_heads(c) / ((double)C * chunk)) : K;
		double proxy = (Kn > 1 ? Kn - 1 : 0) * ccs_comm_tr(c)->chunk_s;
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
		tn *= 1 + (ccs_cost_term_ilog2(G) - 1 / Kc) / Kc;
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
	if (algo == CCS_ALGO_TREE && G > 1)
		bw_s = tree_bw(en, &x, gpu, tn, tn_raw, bw_s, K, C, chunk);
	int bound = gpu >= tn ? bi_bound : x.bn_bound;
	double rate = bw_s > 0 ? x.W / (bw_s - (gpu >= tn ? step : 0)) : HUGE_VAL;

	lat += c->late_s;   /* everyone waits for a straggler */
	out->lat_s = lat;
	out->bw_s = bw_s - (gpu >= tn ? step : 0);
	out->step_s = gpu >= tn ? step : 0;
	out->time_s = lat + bw_s;
	out->rate_Bps = rate;
	out->wire_bytes = x.W;
	out->rdv_s = rdv;
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
	struct ccs_cost_term x = { 0, HUGE_VAL, HUGE_VAL, CCS_BOUND_LATENCY, CCS_BOUND_NIC, -1, -1, 0, 0, CCS_ALGO_RING,
		          0, 0, 0, 0, 0, 0, 0 };
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
	if (algo < 0 || algo >= CCS_ALGO_N) {
		*why = "unknown algorithm";
		return -1;
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

	struct ccs_cost_env env = { c, coll, algo, proto, channels, S, n, G, p, f, intra_only, su, net, net_share, su_b };
	if (ccs_cost_term_of(&env, &x, why))
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

double ccs_cost_rdv_of(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes)
{
	struct ccs_cost cc;
	return ccs_cost_eval(c, coll, algo, proto, channels, bytes, &cc, NULL) ? 0 : cc.rdv_s;
}
