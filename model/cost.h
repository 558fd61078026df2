/*
** model/cost.h: closed-form cost of collectives on a topology graph.
**
** The communicator it runs on (model/comm.h) gives n, G, p, b_su, B_net,
** b_nic, b_nic1, R_fab and lat_net.
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
**          latency of those hops, plus on each network hop the transport's
**          rendezvous where a channel's message m = min(c, M/C) / e_q
**          exceeds its eager size (model/transport.h)
**   K o_q  the pipeline: each channel moves its share in chunks c (NCCL's
**          chunk sizes, which shrink for small NVLS operations); every chunk
**          step costs o_q of synchronisation (Simple 1.5 us, LL128 0.5, LL 0.2)
** Bytes W and rate B per algorithm: model/cost_term.h.
** 'bound' names the largest of the three terms: the resource that sets B
** when W/B is, 'latency' when L is, 'sync' when the chunk steps K o_q are.
*/
#ifndef CCS_COST_H
#define CCS_COST_H

#include "coll.h"
#include "comm.h"
#include "topo.h"



struct ccs_cost {
	double time_s;
	double lat_s;               /* L */
	double bw_s;                /* bandwidth term */
	double step_s;              /* K o_q */
	double rate_Bps;            /* B */
	double wire_bytes;          /* W */
	double rdv_s;               /* the transport's rendezvous on each network hop of L, in L */
	int channels, bound;
};


/* GPU memory bytes a kernel moves per byte it sends: a reduction's or a
 * copy's (memory.reduce_traffic, memory.copy_traffic in model/params.c). */
static inline double ccs_cost_mem_per_byte(const struct ccs_comm *c, int reduces)
{
	return c->prm.mem_traffic[reduces != 0];
}

/* Our model.  channels 0 picks NCCL's count for the algorithm.  Returns 0,
 * or -1 with a reason in why (algorithm not available for this collective or
 * hardware: NVLS without multicast switches, CollNet without SHARP ...). */
int ccs_cost_eval(const struct ccs_comm *c, int coll, int algo, int proto, int channels,
                  uint64_t bytes, struct ccs_cost *out, const char **why);

/* Pieces of the model that the simulator's schedules share, so that both
 * count the same bytes.  ccs_cost_proto_cap: NCCL's cap on the GPU-side
 * throughput of algo with proto [B/s] (HUGE_VAL: none).
 */
double ccs_cost_proto_cap(const struct ccs_comm *c, int algo, int proto);
/* Bytes each channel moves per pipeline step (NCCL's chunk) for an
 * operation of 'bytes' on 'channels' channels. */
double ccs_cost_chunk(const struct ccs_comm *c, int coll, int algo, int proto, int channels, double bytes);
/* The transport's rendezvous on one network hop (model/transport.h) for a
 * channel's message: min(chunk, msg / channels) data bytes on proto's wire,
 * msg what one message of the hop carries over all channels. */
double ccs_cost_rdv(const struct ccs_comm *c, int proto, int channels, double chunk, double msg);
/* The same for an operation as ccs_cost_eval sees it (struct ccs_cost
 * rdv_s; 0 where it has no cost), for the simulator's network hops. */
double ccs_cost_rdv_of(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes);

/* Selection among algorithms and protocols whose bit is set in the masks.
 * nccl: NCCL's choice (its model's minimum, for the five tuned collectives;
 * AllToAll and SendRecv take direct/Simple as NCCL does).  Otherwise the
 * fastest by our model.  Returns -1 when nothing in the masks applies. */
int ccs_select(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned algo_mask,
               unsigned proto_mask, int nccl, int *algo, int *proto);

/* The same for many sizes on one communicator: what does not depend on the
 * size computed once (NCCL's bandwidth and latency per collective,
 * algorithm and protocol, and which of them our model completes: its
 * refusals are structural, and a fault's infinite time is infinite at any
 * size), so that NCCL's choice costs one multiply-add per pair.
 * ccs_selector_pick gives what ccs_select gives (0 bytes: ccs_select). */
struct ccs_selector {
	const struct ccs_comm *c;
	double nbw[CCS_COLL_N][CCS_ALGO_NCCL_N][CCS_PROTO_N];
	double nlat[CCS_COLL_N][CCS_ALGO_NCCL_N][CCS_PROTO_N];
	uint8_t ok[CCS_COLL_N][CCS_ALGO_NCCL_N][CCS_PROTO_N];
	uint8_t direct_ok[CCS_COLL_N][CCS_PROTO_N];   /* AllToAll, SendRecv: direct completes */
};
void ccs_selector_init(struct ccs_selector *s, const struct ccs_comm *c);
int  ccs_selector_pick(const struct ccs_selector *s, int coll, uint64_t bytes, unsigned algo_mask,
                       unsigned proto_mask, int nccl, int *algo, int *proto);

#endif
