/*
** model/step.h: the collectives of one training step, or of one inference
** forward pass, from a parallelism description (Megatron-style TP, CP, EP,
** PP and DP with ZeRO/FSDP stages).
**
** Ranks: n = TP x CP x PP x DP, placed in Megatron's default order, tensor
** parallel fastest: rank = tp + TP (cp + CP (dp + DP pp)).  A TP group is
** TP consecutive ranks; a CP group strides by TP; a DP group (with its CP
** ranks, which hold the same weights) is the TP-strided run of CP x DP
** ranks of a stage; a pipeline chain strides by TP CP DP.  EP splits the
** data-parallel index, dp = e + EP d: an EP group is EP consecutive dp
** indices (stride TP CP), and an expert-DP group the CP x DP / EP ranks
** holding the same experts.
** Model: L layers (every k-th an MoE layer when EP > 1), hidden h, K and V
** width kv (h for multi-head attention), sequence s, micro-batch b
** sequences, m micro-batches per step, P parameters (default 12 L h^2) of
** which Pe in experts, top-k experts per token, 2-byte activations and
** gradients (bf16).  Tokens per rank t = b s / CP; a = t h 2 bytes.
** Training, per micro-batch, on the L/PP layers of a stage (lps):
**   TP   AllReduce of a, 2 per layer forward + 2 backward: 4 lps m
**   CP   AllGather of K and V (b s 2 kv 2 / TP bytes, the whole buffer),
**        forward and again backward: 2 lps m; ReduceScatter of their
**        gradients backward: lps m (ring attention moves the same bytes)
**   EP   AllToAll of t x top-k x h x 2 bytes per rank, dispatch and combine
**        forward and backward: 4 (MoE layers per stage) m
**   PP   SendRecv of a / TP per rank (Megatron's scatter-gather of the
**        activation across the TP ranks), forward and backward: 2 m per
**        boundary, PP - 1 boundaries
**   DP   the stage's dense gradients, g = (P - Pe) / (TP PP) x 2 bytes, over
**        CP x DP ranks: ZeRO 0: AllReduce of g; 1 and 2: ReduceScatter +
**        AllGather of g; 3 / FSDP: AllGather twice (before forward, before
**        backward) + ReduceScatter
**   EDP  the experts' gradients, Pe / (EP TP PP) x 2 bytes, over CP x DP / EP
**        ranks, as DP
** Inference (prefill: b prompts of s tokens; decode: one new token for each
** of b sequences, t = b), forward only, no DP: TP 2 lps m, CP (prefill
** only) lps m AllGathers, EP 2 per MoE layer per stage per micro-batch, PP
** m per boundary.
** Sizes are nccl-tests sizes (AllGather / ReduceScatter: the whole buffer;
** AllToAll: what each rank sends).
*/
#ifndef CCS_STEP_H
#define CCS_STEP_H

#include <stdint.h>

enum { CCS_STEP_TRAIN, CCS_STEP_PREFILL, CCS_STEP_DECODE };

struct ccs_step_cfg {
	int tp, pp, dp;
	int layers, zero;           /* zero: 0..3 */
	long hidden, seq, micro_batch, micro_batches;
	double params;              /* 0: 12 L h^2 */
	int cp, ep;                 /* 0 or 1: none */
	int topk;                   /* experts per token (EP); 0: 2 */
	int moe_every;              /* every k-th layer is an MoE layer (EP); 0: 1 */
	long kv_hidden;             /* K and V width per token (CP); 0: hidden */
	double expert_params;       /* of params, those in experts (EP) */
	int phase;                  /* CCS_STEP_TRAIN, _PREFILL, _DECODE */
};

enum { CCS_STEP_TP, CCS_STEP_CP, CCS_STEP_EP, CCS_STEP_PP, CCS_STEP_DP, CCS_STEP_EDP, CCS_STEP_KINDS };

/* "TP", "CP", ... */
extern const char *const ccs_step_kind_name[CCS_STEP_KINDS];

struct ccs_step_coll {
	int kind;                   /* which group */
	int coll;                   /* enum ccs_coll */
	uint64_t bytes;             /* per operation (nccl-tests size) */
	uint64_t count;             /* operations per group per step */
	int group_size, groups;
	const char *what;           /* "attention + MLP outputs" ... */
};

#define CCS_STEP_MAXCOLL 12

/* Up to CCS_STEP_MAXCOLL collectives of one step into out; *n gets how
 * many.  -1 with a reason in err when the description does not hold
 * (layers not divisible by PP, sizes not positive, ZeRO stage out of 0..3,
 * EP not dividing DP, expert parameters above the total, CP in decode). */
int ccs_step_expand(const struct ccs_step_cfg *c, struct ccs_step_coll *out, int *n, char *err, unsigned long errn);

/* The rank (GPU index among the n) of group g's member i for a kind. */
int ccs_step_rank(const struct ccs_step_cfg *c, int kind, int g, int i);

#endif
