/*
** model/step.h: the collectives of one training step from a parallelism
** description (Megatron-style 3D parallelism with ZeRO/FSDP stages).
**
** Ranks: n = TP x PP x DP, placed as Megatron does by default, tensor
** parallel fastest: rank = tp + TP (dp + DP pp).  So a TP group is TP
** consecutive ranks (inside a node when TP <= GPUs per node), a DP group
** strides by TP, a pipeline chain by TP x DP.
** Model: L layers, hidden h, sequence s, micro-batch b sequences, m
** micro-batches per step, P parameters (default 12 L h^2), 2-byte
** activations and gradients (bf16).  a = b s h 2 bytes of activations.
**   TP   AllReduce of a, 2 per layer forward + 2 backward (attention and MLP
**        outputs), on each of the L/PP layers of a stage, per micro-batch:
**        count 4 (L/PP) m per TP group; DP x PP groups of TP ranks
**   PP   SendRecv of a / TP per rank (Megatron's scatter-gather of the
**        activation across the TP ranks), forward and backward, per
**        micro-batch, on each of the PP - 1 stage boundaries: 2 m per
**        boundary; DP x TP chains of PP ranks
**   DP   the stage's gradients, g = P / (TP PP) x 2 bytes per rank:
**        ZeRO 0: AllReduce of g; ZeRO 1 and 2: ReduceScatter of g + AllGather
**        of g (the updated parameter shards); ZeRO 3 / FSDP: AllGather of g
**        before forward and again before backward + ReduceScatter of g;
**        TP x PP groups of DP ranks
** Sizes are nccl-tests sizes (AllGather / ReduceScatter: the whole buffer).
*/
#ifndef CCS_STEP_H
#define CCS_STEP_H

#include <stdint.h>

struct ccs_step_cfg {
	int tp, pp, dp;
	int layers, zero;           /* zero: 0..3 */
	long hidden, seq, micro_batch, micro_batches;
	double params;              /* 0: 12 L h^2 */
};

enum { CCS_STEP_TP, CCS_STEP_PP, CCS_STEP_DP, CCS_STEP_KINDS };

struct ccs_step_coll {
	int kind;                   /* which group */
	int coll;                   /* enum ccs_coll */
	uint64_t bytes;             /* per operation (nccl-tests size) */
	uint64_t count;             /* operations per group per step */
	int group_size, groups;
	const char *what;           /* "attention + MLP outputs" ... */
};

/* Up to 6 collectives of one step into out; *n gets how many.  -1 with a
 * reason in err when the description does not hold (layers not divisible
 * by PP, sizes not positive, ZeRO stage out of 0..3). */
int ccs_step_expand(const struct ccs_step_cfg *c, struct ccs_step_coll *out, int *n, char *err, unsigned long errn);

/* The GPU (rank) of group g's member i for a kind: rank = tp + TP (dp + DP pp). */
int ccs_step_rank(const struct ccs_step_cfg *c, int kind, int g, int i);

#endif
