/* tests/unit/test_step.c: a training step's collectives (model/step.h)
 * against counts and sizes worked out by hand. */
#include "../check.h"

#include "../../model/coll.h"
#include "../../model/step.h"

#include <string.h>

int main(void)
{
	/* GPT-3 175B-like on 1,024 GPUs: TP=8, PP=4, DP=32, 96 layers, hidden
	 * 12288, sequence 2048, micro-batch 1, 16 micro-batches, ZeRO-1 */
	struct ccs_step_cfg c = { 8, 4, 32, 96, 1, 12288, 2048, 1, 16, 0 };
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
	struct ccs_step_cfg d = { 1, 1, 64, 32, 0, 4096, 4096, 2, 8, 7e9 };
	CHECK(ccs_step_expand(&d, v, &n, err, sizeof err) == 0 && n == 1 && v[0].bytes == 14000000000ull);
	/* what does not hold */
	c.layers = 95;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "95 layers do not split evenly over 4"));
	c.layers = 96;
	c.zero = 4;
	CHECK(ccs_step_expand(&c, v, &n, err, sizeof err) == -1 && strstr(err, "ZeRO stage 4"));
	return CHECK_DONE("test_step");
}
