/*
** tests/unit/test_steps.c: the round-by-round schedules (sim/sched/steps.c)
** on 4 ranks, Simple, 4 MiB, op by op against the rounds drawn by hand:
**   bruck AllGather    2 rounds: r sends to r - 1 a quarter, then to r - 2 half
**   bruck AllToAll     2 rounds: r to r + 1 the blocks j with bit 0 set (1, 3:
**                      half), then to r + 2 those with bit 1 set (2, 3: half)
**   rhd ReduceScatter  r xor 2 half, then r xor 1 a quarter (far halves first)
**   rhd AllGather      the reverse: r xor 1 a quarter, then r xor 2 half
**   rhd AllReduce      the four in a row
**   rd AllGather       r xor 1 a quarter, r xor 2 half
**   pairwise AllToAll  3 rounds, r to r + k + 1, a quarter each
**   pat AllGather      (one rank a node, 4 nodes) Bruck's rounds with NCCL's
**                      PAT latency; ReduceScatter the mirror, towards r + 2^j
**                      with the far half first
**   hier AllReduce     (2 nodes of 2) a round to the node's other member of
**                      half, two rounds to the same member of the other node
**                      of a quarter, a round of half inside again
** Every op of round k of rank r: XFER r -> peer, bytes the round's share of
** S (across nodes split in M parts, part i over the i-th best NIC of each
** end); round 0 waits for nothing and pays the base latency, round k > 0
** waits for 2M (r's own send and the one that reached r in round k - 1);
** each op releases its own next round and its peer's; each pays its hop's latency
** (inside a node or across) and the closed form's step work shared by
** bytes.  The rounds' bytes add up to the closed form's wire bytes where
** that counts the same rounds (test_sched.c holds the times).
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/nccl_tables.h"

#define S_BYTES (4u << 20)
#define MAXL 4

struct want {
	int coll, algo, L;
	int peer[MAXL][4];          /* peer of rank r in round k */
	double share[MAXL];         /* bytes of round k / S */
};

/* whether op id's successors are exactly the M parts a M + i and b M + i
 * (i < M; a and b may be equal: then each part once) */
static int succ_pair(const struct ccs_sched *s, uint64_t id, uint64_t a, uint64_t b, uint64_t M)
{
	uint64_t v[CCS_SCHED_MAXSUCC + 8];
	int n = ccs_sched_succ(s, id, v), got = 0;
	for (int j = 0; j < n; j++)
		got += v[j] / M == a || v[j] / M == b;
	return n == (int)(2 * M) && got == n;
}

static void check(const struct ccs_comm *c, const struct want *w, const char *name)
{
	struct ccs_sched s;
	const char *why = NULL;
	int rc = ccs_sched_build(c, w->coll, w->algo, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why);
	if (rc) {
		printf("%s: %s\n", name, why ? why : "?");
		CHECK(0);
		return;
	}
	int n = c->n, lat_algo = w->algo == CCS_ALGO_PAT ? CCS_ALGO_PAT : CCS_ALGO_RING;
	/* across nodes a send is split over the M best NICs of its rank: op
	 * (k n + r) M + i moves 1/M of it over NIC i */
	uint64_t M = s.nops / ((uint64_t)w->L * (uint64_t)n);
	CHECK(M >= 1 && s.nops == (uint64_t)w->L * (uint64_t)n * M);
	CHECK(c->G > 1 || M == 1);
	struct ccs_cost cc;
	CHECK(!ccs_cost_eval(c, w->coll, w->algo, CCS_PROTO_SIMPLE, 0, S_BYTES, &cc, &why));
	double base = ccs_nccl_latency(&c->nccl, lat_algo, CCS_PROTO_SIMPLE, 0, 0);
	double in = ccs_nccl_latency(&c->nccl, lat_algo, CCS_PROTO_SIMPLE, 1, 0) - base;
	double out = ccs_nccl_latency(&c->nccl, lat_algo, CCS_PROTO_SIMPLE, 0, 1) - base;
	double total = 0;
	for (int k = 0; k < w->L; k++)
		total += w->share[k];
	int bad = 0;
	for (int k = 0; k < w->L; k++)
		for (int r = 0; r < n; r++)
		for (uint64_t i = 0; i < M; i++) {
			uint64_t kr = (uint64_t)(k * n + r), id = kr * M + i;
			struct ccs_op o;
			ccs_sched_get(&s, id, &o);
			int peer = w->peer[k][r], cross = c->rank_group[r] != c->rank_group[peer];
			bad += o.kind != CCS_OP_XFER || o.src != r || o.dst != peer || o.channel != i;
			bad += fabs(o.bytes - w->share[k] * S_BYTES / (double)M) > 1e-6;
			if (cross && M > 1)
				bad += o.nic_src != ccs_comm_nic(c, r, (int)i) || o.nic_dst != ccs_comm_nic(c, peer, (int)i);
			else
				bad += o.nic_src != UINT32_MAX || o.nic_dst != UINT32_MAX;
			double sync = w->algo == CCS_ALGO_PAT ? 0 : cc.step_s * w->share[k] / total;
			double hop = cross ? out : in;
			bad += fabs(o.delay_s - hop - sync - (k ? 0 : base)) > 1e-12;
			bad += ccs_sched_ndeps(&s, id) != (k ? 2 * (uint32_t)M : 0u);
			if (k + 1 < w->L)
				bad += !succ_pair(&s, id, (uint64_t)((k + 1) * n + r), (uint64_t)((k + 1) * n + peer), M);
			else
				bad += ccs_sched_succ(&s, id, (uint64_t[CCS_SCHED_MAXSUCC + 8]){ 0 }) != 0;
		}
	if (bad)
		printf("%s: %d ops differ from the rounds drawn\n", name, bad);
	CHECK(bad == 0);
	ccs_sched_release(&s);
}

static const struct want one_node[] = {
	{ CCS_COLL_ALLGATHER, CCS_ALGO_BRUCK, 2, { { 3, 0, 1, 2 }, { 2, 3, 0, 1 } }, { 0.25, 0.5 } },
	{ CCS_COLL_ALLTOALL, CCS_ALGO_BRUCK, 2, { { 1, 2, 3, 0 }, { 2, 3, 0, 1 } }, { 0.5, 0.5 } },
	{ CCS_COLL_REDUCESCATTER, CCS_ALGO_RHD, 2, { { 2, 3, 0, 1 }, { 1, 0, 3, 2 } }, { 0.5, 0.25 } },
	{ CCS_COLL_ALLGATHER, CCS_ALGO_RHD, 2, { { 1, 0, 3, 2 }, { 2, 3, 0, 1 } }, { 0.25, 0.5 } },
	{ CCS_COLL_ALLREDUCE, CCS_ALGO_RHD, 4, { { 2, 3, 0, 1 }, { 1, 0, 3, 2 }, { 1, 0, 3, 2 }, { 2, 3, 0, 1 } },
	  { 0.5, 0.25, 0.25, 0.5 } },
	{ CCS_COLL_ALLGATHER, CCS_ALGO_RD, 2, { { 1, 0, 3, 2 }, { 2, 3, 0, 1 } }, { 0.25, 0.5 } },
	{ CCS_COLL_ALLTOALL, CCS_ALGO_PAIRWISE, 3, { { 1, 2, 3, 0 }, { 2, 3, 0, 1 }, { 3, 0, 1, 2 } },
	  { 0.25, 0.25, 0.25 } },
};

static const struct want one_a_node[] = {
	{ CCS_COLL_ALLGATHER, CCS_ALGO_PAT, 2, { { 3, 0, 1, 2 }, { 2, 3, 0, 1 } }, { 0.25, 0.5 } },
	{ CCS_COLL_REDUCESCATTER, CCS_ALGO_PAT, 2, { { 2, 3, 0, 1 }, { 1, 2, 3, 0 } }, { 0.5, 0.25 } },
};

static const struct want two_of_two[] = {
	{ CCS_COLL_ALLREDUCE, CCS_ALGO_HIER, 4, { { 1, 0, 3, 2 }, { 2, 3, 0, 1 }, { 2, 3, 0, 1 }, { 1, 0, 3, 2 } },
	  { 0.5, 0.25, 0.25, 0.5 } },
};

/* the communicator of n ranks, ppn a node, on topology path with nodes set */
static int world(const char *path, const char *nodes, int n, int ppn, struct ccs_topo **t, struct ccs_comm *c)
{
	const char *sets[1] = { nodes };
	char err[256];
	*t = fx_load(path, sets, nodes ? 1 : 0);
	if (!*t)
		return -1;
	memset(c, 0, sizeof *c);
	if (ccs_comm_build(*t, n, ppn, c, err, sizeof err)) {
		printf("comm: %s\n", err);
		ccs_topo_free(*t);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	if (!world("topologies/hgx-h100.yaml", NULL, 4, 0, &t, &c)) {
		CHECK(c.n == 4 && c.G == 1);
		for (size_t i = 0; i < sizeof one_node / sizeof one_node[0]; i++)
			check(&c, &one_node[i], ccs_algo_desc[one_node[i].algo].name);
		/* rd and rhd need a power of two; pairwise AllToAll only */
		struct ccs_sched s;
		const char *why = NULL;
		CHECK(ccs_sched_build(&c, CCS_COLL_ALLGATHER, CCS_ALGO_PAIRWISE, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) &&
		      why && strstr(why, "AllToAll"));
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	if (!world("topologies/hgx-h100.yaml", NULL, 3, 0, &t, &c)) {
		struct ccs_sched s;
		const char *why = NULL;
		CHECK(ccs_sched_build(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RD, CCS_PROTO_SIMPLE, 0, S_BYTES, &s, &why) &&
		      why && strstr(why, "power-of-two"));
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	if (!world("topologies/hgx-h100-cluster.yaml", "nodes=4", 4, 1, &t, &c)) {
		CHECK(c.n == 4 && c.G == 4);
		for (size_t i = 0; i < sizeof one_a_node / sizeof one_a_node[0]; i++)
			check(&c, &one_a_node[i], "pat");
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	if (!world("topologies/hgx-h100-cluster.yaml", "nodes=2", 4, 2, &t, &c)) {
		CHECK(c.n == 4 && c.G == 2 && c.p == 2);
		check(&c, &two_of_two[0], "hier");
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	return CHECK_DONE("test_steps");
}
