/*
** model/kv.h: KV-cache transfer from a prefill instance to a decode
** instance (disaggregated inference), a point-to-point pattern.
**
** The prefill instance runs on ranks [0, P) of the communicator, the decode
** instance on ranks [n - Q, n).  Per layer and token the cache holds D
** values (K and V of every KV head together; an MLA latent is one vector)
** of d bytes.  Sharded (GQA): prefill rank i holds values
** [i D/P, (i+1) D/P), decode rank j needs [j D/Q, (j+1) D/Q), and i sends j
** their overlap; replicated (MLA: every rank holds the whole latent):
** decode rank j pulls all D from prefill rank j mod P.  Per layer a pair
** moves T x overlap x d bytes in ceil(T / page) pages (one RDMA write
** each), across groups through the NICs, inside a group over scale-up.
**
** Per layer, the busiest resource sets the layer's transfer time
**   t_l = max over ranks of { scale-up out, in / b_su;  NIC out, in / b_nic },
**         and over groups of network out, in / R_fab
** Layer l is ready when prefill has computed it, at (l + 1) T_c (T_c the
** compute time per layer, 0: all at once).  Transfers are work-conserving,
** so the last byte lands at
**   T = L + max(layers T_c + t_l, T_c + layers t_l),  L = lat_net (or
**   lat_intra when no pair crosses groups)
** and the exposed part, what decode waits beyond prefill, is T - layers T_c.
*/
#ifndef CCS_KV_H
#define CCS_KV_H

#include "cost.h"

struct ccs_kv_cfg {
	int layers, dim, replicated;    /* D values per token per layer */
	int tokens, page_tokens, dsize; /* T, page, d bytes per value */
	int prefill, decode;            /* P, Q ranks */
	double layer_s;                 /* T_c [s] */
};

/* Llama-3.1-70B-like defaults: 80 layers, 8 KV heads x 128 x (K, V) = 2048
 * values, bf16, 4096 tokens, 16-token pages (vLLM's block), T_c 0; P and Q
 * are left 0 (half the communicator each). */
void ccs_kv_cfg_default(struct ccs_kv_cfg *cfg);

/* One pair's transfer per layer. */
struct ccs_kv_pair {
	int32_t src, dst;
	double bytes;               /* per layer */
};

struct ccs_kv_plan {
	int npairs;
	struct ccs_kv_pair *pair;
	double pages;               /* per pair and layer */
	double page_bytes;          /* the largest page */
};

/* Check cfg for n ranks (P and Q of 0 become n/2) and plan it.  CCS_EINPUT
 * with a one-line reason in why: P + Q above n, D not divisible by P and
 * Q when sharded, ...; CCS_ENOMEM leaves nothing to free. */
int  ccs_kv_plan(const struct ccs_comm *c, struct ccs_kv_cfg *cfg, struct ccs_kv_plan *out, char *why, size_t whyn);
void ccs_kv_plan_release(struct ccs_kv_plan *p);

struct ccs_kv_cost {
	double time_s, exposed_s, layer_s, lat_s;
	double send_max, recv_max;          /* bytes per rank, all layers */
	double scaleup_bytes, net_bytes;    /* totals, all layers */
	int bound;
};

/* Closed form (the top).  CCS_ENOMEM or CCS_OK. */
int ccs_kv_eval(const struct ccs_comm *c, const struct ccs_kv_cfg *cfg, const struct ccs_kv_plan *p,
                struct ccs_kv_cost *out);

/* L above. */
double ccs_kv_latency(const struct ccs_comm *c, const struct ccs_kv_plan *p);

#endif
