/*
** model/moe.h: expert-parallel (MoE) traffic and its closed-form cost.
**
** Routing.  Each of n ranks holds T tokens; each token picks k distinct of E
** experts, drawn without replacement with weights w_e:
**   uniform  w_e = 1
**   zipf     w_e = 1 / (1 + pi(e))^s, pi a seeded permutation (popularity
**            order independent of placement)
**   hot      the H experts first in pi carry the share f of all picks:
**            w = f (E - H) / (H (1 - f)) for them, 1 for the rest
**   trace    expert ids given per token (sim/cli/moe_io.c reads them)
** Group-limited routing (DeepSeek-V3): experts in G_e contiguous groups; a
** token first picks g groups (by group weight), then its k experts in them.
** EP groups: the n ranks run n / P expert-parallel groups of P consecutive
** ranks at once (--ep P, default P = n), each with its own E experts; a
** token picks experts of its own group only.  P must divide n and be at most
** E (every EP rank hosts an expert, as DeepEP and NCCL's EP kernels ask).
** Placement inside a group: contiguous (rank = e / ceil(E/P)) or
** round-robin (e mod P); with R replicas the H hottest experts get R more
** copies, spread P/(R+1) ranks apart, and a pick goes to copy
** (rank + token) mod (R+1).
** Drawn or expected.  The routing above is one draw: each source's tokens
** land unevenly, as a real batch's do.  Expected routing (cfg->expected)
** keeps the draw's skew across experts and removes its imbalance across
** sources: every source of an EP group sends each rank (deepep_normal: each
** group, and each forward) the mean over the group's P sources of what the
** draw has them send, N(s, d) = sum_s' N_drawn(s', d) / P, so every source
** of a group loads the fabric alike.  The time under the draw over the time
** under the expectation is the cost of imbalance.
**
** Bytes per token: bf16 2h; fp8 h + 4 ceil(h/128) (an fp32 scale per 128).
**
** Transfers of one dispatch (combine: the same, reversed, top-k weighted
** sum at the receiver):
**   direct         a token goes once to each rank hosting one of its experts
**   scaleup        the same inside one scale-up domain (NVL72, UB super-node)
**   deepep_normal  per (token, node): one RDMA message to the GPU of the
**                  source's local index there (same rail), which forwards it
**                  over the scale-up fabric to each rank there that needs it
**                  (on the source's own node the source forwards); NVLink
**                  hops and local copies run on DeepEP's SM channels
**   deepep_ll      one message per (token, expert), scale-up inside a node,
**                  RDMA across; local and scale-up copies on SM channels
** Per rank r the transfers load: scale-up out/in U_o, U_i; NIC out/in N_o,
** N_i; copy ports C_o, C_i (SM channels: every byte they move, local copies
** included, at the scale-up port rate b_su); per group the fabric F_o, F_i.
**   T = L + max over r, g of { U/b_su, N/b_nic, C/b_su, F/R_fab,
**                               2.5 recv / M_gpu (combine's reduction) }
**   L = o_ep + lat_intra (+ lat_net across groups) for DeepEP's kernels
**       (o_ep: their fixed cost, launch and signalling, model.ep_overhead),
**       NCCL's AllToAll latency for direct and scaleup.
** DeepEP's "bottleneck bandwidth" is logical: normal across nodes counts
** every (token, node) pair, the own node included; normal on one node and
** direct count every (token, rank) pair received; LL every (token, expert)
** pair; each x bytes per token, over T.
*/
#ifndef CCS_MOE_H
#define CCS_MOE_H

#include "cost.h"
#include "moe_family.h"

enum ccs_moe_op { CCS_MOE_DISPATCH, CCS_MOE_COMBINE, CCS_MOE_ALLTOALLV, CCS_MOE_OP_N };
enum ccs_moe_dist { CCS_MOE_UNIFORM, CCS_MOE_ZIPF, CCS_MOE_HOT, CCS_MOE_TRACE, CCS_MOE_DIST_N };
enum ccs_moe_place { CCS_MOE_CONTIGUOUS, CCS_MOE_ROUND_ROBIN, CCS_MOE_PLACE_N };

extern const char *const ccs_moe_op_name[CCS_MOE_OP_N];       /* dispatch, combine, alltoallv */
extern const char *const ccs_moe_algo_name[CCS_MOE_ALGO_N];   /* direct, scaleup, deepep_normal, deepep_ll,
                                                                 pplx, uccl_ep, hybridep */
extern const char *const ccs_moe_dist_name[CCS_MOE_DIST_N];
extern const char *const ccs_moe_place_name[CCS_MOE_PLACE_N];
int ccs_moe_parse(const char *const *names, int n, const char *s);

struct ccs_moe_cfg {
	int tokens, hidden, fp8, topk, experts;
	int dist;
	double skew;                /* zipf exponent s */
	int hot;                    /* H */
	double hot_share;           /* f */
	int groups, topk_groups;    /* G_e (0: one per node of the communicator), g (0: no limit) */
	int place, replicas;
	uint64_t seed;
	int sms;                    /* SMs given to the kernel; 0: the family's default (moe_family.h) */
	int ep;                     /* EP group size P; 0: every rank */
	int expected;               /* expected routing (above): each pair its mean over the EP group's sources */
};

/* Bytes of one token of hidden values: bf16, or fp8 with an fp32 scale per
 * 128 values (the top of this file). */
double ccs_moe_tok_bytes(int hidden, int fp8);

/* DeepSeek-V3 decoding defaults: 128 tokens, hidden 7168, bf16, top-8 of
 * 256 experts, uniform, contiguous, seed 1. */
void ccs_moe_cfg_default(struct ccs_moe_cfg *cfg);

/* Check cfg for n ranks; CCS_EINPUT with a one-line reason in why. */
int ccs_moe_check(const struct ccs_moe_cfg *cfg, int n, char *why, size_t whyn);

/* The picks: expert[(r T + t) k + j] and the rank serving it, rank[...]. */
struct ccs_moe_routing {
	int n, tokens, topk;
	int32_t *expert, *rank;
};

/* Route n ranks' tokens (cfg checked).  trace: NULL, or n T k expert ids
 * (checked by the caller) used instead of drawing.  Groups of experts follow
 * the communicator's groups when cfg->groups is 0.  CCS_ENOMEM leaves
 * nothing to free. */
int  ccs_moe_route(const struct ccs_moe_cfg *cfg, const struct ccs_comm *c, const int32_t *trace,
                   struct ccs_moe_routing *out);
void ccs_moe_routing_release(struct ccs_moe_routing *r);

/* One transfer of a plan: tokens x tok_bytes from src to dst; parent >= 0:
 * it forwards what transfer `parent` brought (deepep_normal's second hop). */
struct ccs_moe_xfer {
	int32_t src, dst, parent;
	double tokens;              /* a mean under expected routing: not whole */
	uint8_t sm;                 /* moved by SM channels (copy ports) */
};

struct ccs_moe_plan {
	int n, op, algo;
	double tok_bytes;
	double copy_Bps;            /* the copy ports' rate under the kernel's SM budget; 0: the port rate */
	size_t nx;
	struct ccs_moe_xfer *x;     /* parents before their children */
	double *logical;            /* per rank: DeepEP's logical bytes */
};

/* The transfers of dispatch or combine (op) with algo for routing r on c;
 * bytes per token from cfg (combine: bf16 unless fp8 is asked).  For
 * alltoallv pass matrix (n x n bytes, row = sender) and r NULL.  Returns
 * CCS_EINPUT with why when algo does not apply (scaleup across domains,
 * deepep_normal with groups of unequal size). */
int  ccs_moe_plan(const struct ccs_comm *c, const struct ccs_moe_cfg *cfg, const struct ccs_moe_routing *r,
                  const double *matrix, int op, int algo, struct ccs_moe_plan *out, char *why, size_t whyn);
void ccs_moe_plan_release(struct ccs_moe_plan *p);

struct ccs_moe_cost {
	double time_s, lat_s;
	double send_max, send_mean, recv_max, recv_mean;   /* bytes on wires per rank, local copies excluded */
	double scaleup_bytes, net_bytes, local_bytes;        /* totals */
	double logical_mean;        /* DeepEP's logical bytes, mean over ranks */
	double bottleneck_Bps;      /* logical_mean / time */
	int bound;                  /* enum ccs_bound */
	int hot_rank;               /* the rank whose resource bounds T */
};

/* Closed form of a plan (see the top). */
int ccs_moe_eval(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_moe_cost *out);

/* The fixed latency of algo on c [s] (L above). */
double ccs_moe_latency(const struct ccs_comm *c, int algo);

#endif
