/*
** tests/unit/test_shot.c: the one-shot and two-shot AllReduce kernels as
** schedules (sim/sched/shot.c) on 4 ranks of one HGX H100 node, 4 MiB, op
** by op against the kernels as drawn by hand:
**   one-shot  ops 0-3 rank r's start (DELAY: the kernel's fixed cost and
**             the start barrier, ccs_cost_term_shot_lat's start); ops 4-7 rank
**             j's end barrier (DELAY of one stage), waiting for the three
**             transfers into j; ops 8-19 XFER r -> j of S for every r and
**             j != r in that order (the peers' loads of r's buffer), each
**             after r's start
**   two-shot  the same start; ops 4-7 the middle barriers and 8-19 the
**             reduce-scatter's XFER r -> j of S/4 over the kernels' share of
**             the link (model.twoshot_efficiency); ops 20-23 the end
**             barriers and 24-35 the all-gather's XFER j -> k of S/4 (j's
**             reduced share), each after j's middle barrier
** With 3 peers every barrier releases at most CCS_SCHED_MAXSUCC ops, so
** none is split.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/cost_term.h"

#define S_BYTES (4u << 20)

/* whether op id has successors exactly the m ids in want (any order) */
static int succ_set(const struct ccs_sched *s, uint64_t id, const uint64_t *want, int m)
{
	uint64_t v[CCS_SCHED_MAXSUCC + 8];
	int n = ccs_sched_succ(s, id, v);
	if (n != m)
		return 0;
	for (int i = 0; i < n; i++) {
		int hit = 0;
		for (int j = 0; j < m; j++)
			hit += v[i] == want[j];
		if (hit != 1)
			return 0;
	}
	return 1;
}

/* a DELAY of rank r and delay d with ndeps deps */
static int is_wait(const struct ccs_sched *s, uint64_t id, int r, double d, unsigned ndeps)
{
	struct ccs_op o;
	ccs_sched_get(s, id, &o);
	return o.kind == CCS_OP_DELAY && o.src == r && o.dst == r && fabs(o.delay_s - d) < 1e-15 &&
	       ccs_sched_ndeps(s, id) == ndeps;
}

/* One phase: barriers at ids bar + r releasing the XFERs from r (ids
 * x0 + 3 r + m, m-th peer of r in order), each into end barrier
 * end + j; bytes each. */
static int phase(const struct ccs_sched *s, uint64_t bar, uint64_t x0, uint64_t end, double bytes)
{
	int bad = 0;
	for (int r = 0; r < 4; r++) {
		uint64_t out[3];
		int m = 0;
		for (int j = 0; j < 4; j++) {
			if (j == r)
				continue;
			uint64_t id = x0 + 3 * (uint64_t)r + (uint64_t)m;
			out[m++] = id;
			struct ccs_op o;
			ccs_sched_get(s, id, &o);
			bad += o.kind != CCS_OP_XFER || o.src != r || o.dst != j || fabs(o.bytes - bytes) > 1e-6;
			bad += o.delay_s != 0 || ccs_sched_ndeps(s, id) != 1;
			uint64_t e = end + (uint64_t)j;
			bad += !succ_set(s, id, &e, 1);
		}
		bad += !succ_set(s, bar + (uint64_t)r, out, 3);
	}
	return bad;
}

static void test_oneshot(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why));
	CHECK(s.nops == 20);
	double start, stage;
	ccs_cost_term_shot_lat(c, CCS_ALGO_ONESHOT, &start, &stage);
	CHECK(start > 0 && stage > 0);
	int bad = 0;
	for (int r = 0; r < 4; r++) {
		bad += !is_wait(&s, (uint64_t)r, r, start, 0);
		bad += !is_wait(&s, 4 + (uint64_t)r, r, stage, 3) || !succ_set(&s, 4 + (uint64_t)r, NULL, 0);
	}
	bad += phase(&s, 0, 8, 4, S_BYTES);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static void test_twoshot(const struct ccs_comm *c)
{
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why));
	CHECK(s.nops == 36);
	double start, stage;
	ccs_cost_term_shot_lat(c, CCS_ALGO_TWOSHOT, &start, &stage);
	double w = (double)S_BYTES / 4 / c->prm.twoshot_eff;
	CHECK(c->prm.twoshot_eff > 0 && c->prm.twoshot_eff < 1);
	int bad = 0;
	for (int r = 0; r < 4; r++) {
		bad += !is_wait(&s, (uint64_t)r, r, start, 0);
		bad += !is_wait(&s, 4 + (uint64_t)r, r, stage, 3);
		bad += !is_wait(&s, 20 + (uint64_t)r, r, stage, 3) || !succ_set(&s, 20 + (uint64_t)r, NULL, 0);
	}
	bad += phase(&s, 0, 8, 4, w);
	bad += phase(&s, 4, 24, 20, w);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

int main(void)
{
	struct ccs_topo *t = fx_load("topologies/hgx-h100.yaml", NULL, 0);
	if (!t)
		return CHECK_DONE("test_shot");
	struct ccs_comm c;
	memset(&c, 0, sizeof c);
	char err[256];
	CHECK(!ccs_comm_build(t, 4, 0, &c, err, sizeof err));
	test_oneshot(&c);
	test_twoshot(&c);
	/* what the kernels do not cover: another collective, LL, two nodes */
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(ccs_sched_build(&c, CCS_COLL_ALLGATHER, CCS_ALGO_ONESHOT, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) && why);
	why = NULL;
	CHECK(ccs_sched_build(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_TWOSHOT, CCS_PROTO_LL, 0, S_BYTES, &s, &why) && why &&
	      strstr(why, "Simple"));
	ccs_comm_release(&c);
	ccs_topo_free(t);
	return CHECK_DONE("test_shot");
}
