/*
** tests/unit/test_coll.c: model/coll.h's vocabulary and the algorithm
** table: every row named and found again by its name and spellings, NCCL's
** ids one to one with NCCL's seven algorithms, and the table read the same
** by the parsers, NCCL_ALGO's grammar and the simulator's dispatcher (a
** collective outside a row's set refused with the row's message).
*/
#include "../check.h"
#include "fixture.h"

#include "../../model/coll.h"

#include <string.h>

static void test_rows(void)
{
	int seen[7] = { 0 };
	for (int a = 0; a < CCS_ALGO_N; a++) {
		const struct ccs_algo_desc *d = &ccs_algo_desc[a];
		CHECK(d->name && *d->name);
		CHECK(ccs_algo_parse(d->name) == a);
		for (int k = 0; d->alias[k]; k++)
			CHECK(ccs_algo_parse(d->alias[k]) == a);
		CHECK(d->colls != 0 && !(d->colls >> CCS_COLL_N));
		CHECK((d->colls == (1u << CCS_COLL_N) - 1) == (d->only == NULL));
		CHECK(d->mem >= CCS_ALGO_MEM_BYTES && d->mem <= CCS_ALGO_MEM_KERNEL);
		if (d->nccl >= 0) {
			CHECK(d->nccl < 7 && !seen[d->nccl]);
			seen[d->nccl] = 1;
			CHECK(ccs_algo_of_nccl(d->nccl) == a);
			CHECK(a < CCS_ALGO_NCCL_N);   /* NCCL's own come first */
		} else
			CHECK(a >= CCS_ALGO_NCCL_N);
	}
	for (int i = 0; i < 7; i++)
		CHECK(seen[i]);
	CHECK(ccs_algo_of_nccl(7) == -1);
	/* NCCL's spellings: NCCL_ALGO=CollnetDirect, NVLSTree */
	CHECK(ccs_algo_parse("CollNetDirect") == CCS_ALGO_COLLNET_DIRECT);
	CHECK(ccs_algo_parse("NVLSTree") == CCS_ALGO_NVLS_TREE);
	CHECK(ccs_algo_parse("Two-Shot") == CCS_ALGO_TWOSHOT);
	CHECK(ccs_algo_parse("butterfly") == -1);
	char bad[32];
	CHECK(ccs_coll_env_mask("allreduce:tree,nvlstree", CCS_COLL_ALLREDUCE, 0, ~0u, bad, sizeof bad) ==
	      ((1 << CCS_ALGO_TREE) | (1 << CCS_ALGO_NVLS_TREE)));
}

/* The dispatcher takes a row's collectives and says its message for the rest. */
static void test_dispatch(void)
{
	struct fx_world w;
	const char *sets[] = { "nodes=2" };
	if (fx_world_up(&w, "topologies/hgx-h100-cluster.yaml", sets, 1, 0)) {
		CHECK(0);
		return;
	}
	for (int a = 0; a < CCS_ALGO_N; a++)
		for (int coll = 0; coll < CCS_COLL_N; coll++) {
			if (ccs_algo_desc[a].colls >> coll & 1)
				continue;
			struct ccs_sched s;
			const char *why = NULL;
			CHECK(ccs_sched_build(&w.c, coll, a, CCS_PROTO_SIMPLE, 0, 1 << 20, &s, &why) == CCS_EINPUT);
			CHECK(why && !strcmp(why, ccs_algo_desc[a].only));
		}
	/* memory: charged per byte on a ring, not on NVLS (the switches
	 * reduce) nor on a one-shot kernel (timed whole) */
	struct { int algo, charged; } m[] = { { CCS_ALGO_RING, 1 }, { CCS_ALGO_NVLS_TREE, 0 } };
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		struct ccs_sched s;
		const char *why = NULL;
		if (ccs_sched_build(&w.c, CCS_COLL_ALLREDUCE, m[i].algo, CCS_PROTO_SIMPLE, 0, 1 << 20, &s, &why)) {
			fprintf(stderr, "%s: %s\n", ccs_algo_desc[m[i].algo].name, why);
			CHECK(0);
			continue;
		}
		CHECK((s.mem_per_byte > 0) == m[i].charged);
		ccs_sched_release(&s);
	}
	fx_world_down(&w);
}

int main(void)
{
	test_rows();
	test_dispatch();
	return CHECK_DONE("test_coll");
}
