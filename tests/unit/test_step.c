/* tests/unit/test_step.c: a training step's collectives (model/step.h)
 * against counts and sizes worked out by hand. */
#include "../check.h"

#include "../../model/coll.h"
#include "../../model/step.h"

#include <string.h>

/* Context and expert parallelism: a 47B MoE (40B in experts) on 256 GPUs,
 * TP=4, CP=2, EP=8, PP=2, DP=16, 32 layers all MoE, hidden 4096, K/V width
 * 1024, sequence 8192, 8 micro-batches of 1, top-8, ZeRO-0. */
static void test_moe_cp(void)
{
	struct ccs_step_cfg c = { .tp = 4, .pp = 2, .dp = 16, .layers = 32, .hidden = 4096, .seq = 8192,
	                          .micro_batch = 1, .micro_batches = 8, .params = 47e9, .cp = 2, .ep = 8, .topk = 8,
	                          .kv_hidden = 1024, .expert_params = 40e9 };
	struct ccs_step_coll v[CCS_STEP_MAXCOLL];
	int n;
	char err[256];
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0 && n == 7);
	/* tokens per rank 8192 / 2 = 4096; a = 4096 x 4096 x 2 = 33,554,432 B;
	 * TP: 4 x 16 layers per stage x 8 = 512 per group, 256 / 4 = 64 groups */
	CHECK(v[0].kind == CCS_STEP_TP && v[0].bytes == 33554432ull && v[0].count == 512 && v[0].groups == 64);
	/* CP: K and V of the whole sequence over TP: 8192 x 2 x 1024 x 2 / 4 =
	 * 8,388,608 B; AllGather 2 x 16 x 8 = 256, ReduceScatter 128; 128 pairs */
	CHECK(v[1].kind == CCS_STEP_CP && v[1].coll == CCS_COLL_ALLGATHER && v[1].bytes == 8388608ull &&
	      v[1].count == 256 && v[1].group_size == 2 && v[1].groups == 128);
	CHECK(v[2].kind == CCS_STEP_CP && v[2].coll == CCS_COLL_REDUCESCATTER && v[2].count == 128);
	/* EP: 4096 tokens x 8 experts x 4096 x 2 = 268,435,456 B per rank;
	 * 4 x 16 MoE layers x 8 = 512; 32 groups of 8 */
	CHECK(v[3].kind == CCS_STEP_EP && v[3].coll == CCS_COLL_ALLTOALL && v[3].bytes == 268435456ull &&
	      v[3].count == 512 && v[3].group_size == 8 && v[3].groups == 32);
	/* PP: a / 4 = 8,388,608 B, 2 x 8 x 1 boundary = 16 */
	CHECK(v[4].kind == CCS_STEP_PP && v[4].bytes == 8388608ull && v[4].count == 16 && v[4].groups == 128);
	/* DP: dense 7e9 / (4 x 2) x 2 = 1.75e9 B over CP x DP = 32 ranks, 8
	 * groups; EDP: 40e9 / (8 x 4 x 2) x 2 = 1.25e9 B over 32 / 8 = 4 ranks */
	CHECK(v[5].kind == CCS_STEP_DP && v[5].bytes == 1750000000ull && v[5].group_size == 32 && v[5].groups == 8);
	CHECK(v[6].kind == CCS_STEP_EDP && v[6].bytes == 1250000000ull && v[6].group_size == 4 && v[6].groups == 64);
	for (int k = 0; k < n; k++)
		CHECK(v[k].groups * v[k].group_size == 256);
	/* placement: rank = tp + 4 (cp + 2 (dp + 16 pp)) */
	CHECK(ccs_step_rank(&c, CCS_STEP_CP, 0, 1) == 4);
	CHECK(ccs_step_rank(&c, CCS_STEP_EP, 0, 1) == 8);                    /* next dp */
	CHECK(ccs_step_rank(&c, CCS_STEP_EP, 0, 7) == 56);
	CHECK(ccs_step_rank(&c, CCS_STEP_EP, 4, 0) == 4);                    /* g 4: tp 0, cp 1, d 0 */
	CHECK(ccs_step_rank(&c, CCS_STEP_EP, 8, 0) == 4 * 2 * 8);            /* g 8: tp 0, cp 0, d 1: dp 8 */
	CHECK(ccs_step_rank(&c, CCS_STEP_EDP, 0, 1) == 4);                   /* cp 1 */
	CHECK(ccs_step_rank(&c, CCS_STEP_EDP, 0, 2) == 8 * 8);               /* dp 8: the next expert copy */
	CHECK(ccs_step_rank(&c, CCS_STEP_DP, 0, 31) == 4 * 31);
	CHECK(ccs_step_rank(&c, CCS_STEP_PP, 0, 1) == 128);
	/* every group of a kind is disjoint and covers all 256 ranks */
	for (int k = 0; k < n; k++) {
		unsigned char seen[256];
		memset(seen, 0, sizeof seen);
		int dup = 0;
		for (int g = 0; g < v[k].groups; g++)
			for (int i = 0; i < v[k].group_size; i++) {
				int r = ccs_step_rank(&c, v[k].kind, g, i);
				if (r < 0 || r >= 256 || seen[r]++)
					dup++;
			}
		CHECK(dup == 0);
	}
	/* what does not hold */
	c.ep = 3;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "expert parallelism 3 does not divide"));
	c.ep = 8;
	c.expert_params = 50e9;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "expert parameters"));
	c.expert_params = 40e9;
	c.seq = 8191;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "does not split evenly over 2"));
}

/* Inference: forward only, no gradients.  Decode of 64 sequences on TP=8,
 * EP=8, PP=2, DP=8, 60 layers, hidden 7168, top-8, 4 micro-batches. */
static void test_inference(void)
{
	struct ccs_step_cfg c = { .tp = 8, .pp = 2, .dp = 8, .layers = 60, .hidden = 7168, .seq = 4096,
	                          .micro_batch = 64, .micro_batches = 4, .params = 671e9, .ep = 8, .topk = 8,
	                          .expert_params = 600e9, .phase = CCS_STEP_DECODE };
	struct ccs_step_coll v[CCS_STEP_MAXCOLL];
	int n;
	char err[256];
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0 && n == 3);
	/* one token per sequence: a = 64 x 7168 x 2 = 917,504 B; 2 x 30 x 4 = 240 */
	CHECK(v[0].kind == CCS_STEP_TP && v[0].bytes == 917504ull && v[0].count == 240);
	/* 64 x 8 x 7168 x 2 = 7,340,032 B; 2 x 30 x 4 */
	CHECK(v[1].kind == CCS_STEP_EP && v[1].bytes == 7340032ull && v[1].count == 240);
	/* 917,504 / 8 = 114,688 B, 4 micro-batches x 1 boundary */
	CHECK(v[2].kind == CCS_STEP_PP && v[2].bytes == 114688ull && v[2].count == 4);
	/* prefill: 64 prompts of 4096 tokens; every other layer MoE */
	c.phase = CCS_STEP_PREFILL;
	c.moe_every = 2;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0 && n == 3);
	CHECK(v[0].bytes == 64ull * 4096 * 7168 * 2 && v[1].count == 2 * 15 * 4);
	c.cp = 2;
	c.phase = CCS_STEP_DECODE;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "not decode"));
}

int main(void)
{
	/* GPT-3 175B-like on 1,024 GPUs: TP=8, PP=4, DP=32, 96 layers, hidden
	 * 12288, sequence 2048, micro-batch 1, 16 micro-batches, ZeRO-1 */
	struct ccs_step_cfg c = { .tp = 8, .pp = 4, .dp = 32, .layers = 96, .zero = 1, .hidden = 12288, .seq = 2048,
	                          .micro_batch = 1, .micro_batches = 16 };
	struct ccs_step_coll v[8];
	int n;
	char err[256];
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0);
	CHECK(n == 4);
	/* TP: a = 1 x 2048 x 12288 x 2 = 50,331,648 B; 4 per layer x 24 layers
	 * per stage x 16 micro-batches = 1,536; 32 x 4 = 128 groups of 8 */
	CHECK(v[0].kind == CCS_STEP_TP && v[0].coll == CCS_COLL_ALLREDUCE);
	CHECK(v[0].bytes == 50331648ull && v[0].count == 1536 && v[0].group_size == 8 && v[0].groups == 128);
	/* PP: a / 8 = 6,291,456 B; 2 x 16 x 3 boundaries = 96; 32 x 8 = 256 chains of 4 */
	CHECK(v[1].kind == CCS_STEP_PP && v[1].coll == CCS_COLL_SENDRECV);
	CHECK(v[1].bytes == 6291456ull && v[1].count == 96 && v[1].group_size == 4 && v[1].groups == 256);
	/* DP: P = 12 x 96 x 12288^2 = 173,946,175,488; per rank P / 32 x 2 =
	 * 10,871,635,968 B; ZeRO-1: ReduceScatter + AllGather; 8 x 4 = 32 groups of 32 */
	CHECK(v[2].kind == CCS_STEP_DP && v[2].coll == CCS_COLL_REDUCESCATTER && v[2].count == 1);
	CHECK(v[2].bytes == 10871635968ull && v[2].group_size == 32 && v[2].groups == 32);
	CHECK(v[3].coll == CCS_COLL_ALLGATHER && v[3].bytes == 10871635968ull && v[3].count == 1);
	/* every rank in exactly one group of each kind: 128 x 8 = 256 x 4 = 32 x 32 = 1,024 */
	for (int k = 0; k < 3; k++)
		CHECK(v[k].groups * v[k].group_size == 1024);
	/* placement: TP fastest, then DP, then PP */
	CHECK(ccs_step_rank(&c, CCS_STEP_TP, 0, 7) == 7);
	CHECK(ccs_step_rank(&c, CCS_STEP_TP, 1, 0) == 8);            /* dp 1 */
	CHECK(ccs_step_rank(&c, CCS_STEP_DP, 0, 1) == 8);            /* stride TP */
	CHECK(ccs_step_rank(&c, CCS_STEP_DP, 0, 31) == 248);
	CHECK(ccs_step_rank(&c, CCS_STEP_PP, 0, 1) == 256);          /* stride TP x DP */
	CHECK(ccs_step_rank(&c, CCS_STEP_PP, 0, 3) == 768);
	CHECK(ccs_step_rank(&c, CCS_STEP_DP, 9, 0) == 1 + 8 * 32 * 1); /* tp 1, pp 1 */
	/* ZeRO-0: one AllReduce; ZeRO-3: the AllGather twice */
	c.zero = 0;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0 && n == 3 && v[2].coll == CCS_COLL_ALLREDUCE);
	c.zero = 3;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == 0 && n == 4 && v[3].count == 2);
	/* no TP, no PP: only DP */
	struct ccs_step_cfg d = { .tp = 1, .pp = 1, .dp = 64, .layers = 32, .hidden = 4096, .seq = 4096, .micro_batch = 2,
	                          .micro_batches = 8, .params = 7e9 };
	CHECK(ccs_step_expand(&d, v, &n, err, sizeof err) == 0 && n == 1 && v[0].bytes == 14000000000ull);
	/* what does not hold */
	c.layers = 95;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "95 layers do not split evenly over 4"));
	c.layers = 96;
	c.zero = 4;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "ZeRO stage 4"));
	test_moe_cp();
	test_inference();
	return CHECK_DONE("test_step");
}
