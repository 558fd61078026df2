/*
** sim/sched/steps.c: the round-by-round algorithms as schedules (sched.h):
** recursive doubling (rd), recursive halving-doubling (rhd), Bruck,
** pairwise exchange, PAT and the hierarchical AllReduce (hier).  In round k every rank sends b_k bytes to one peer
** and receives b_k from another; round k + 1 of rank r waits for r's send
** of round k and for the send that reached r in round k.  Across groups a
** send is split over the M best NICs of each rank (NCCL spreads its
** channels over them): op id = (k n + r) M + i, part i over NIC i.
**
**   rd AllReduce     rounds log2 n, peer r xor 2^k, b_k = S
**   rd AllGather     rounds log2 n, peer r xor 2^k, b_k = 2^k S / n
**   rhd ReduceScatter rounds log2 n, peer r xor n / 2^(k+1), b_k = S / 2^(k+1)
**                    (the far peers get the big halves)
**   rhd AllGather    the reverse: peer r xor 2^k, b_k = 2^k S / n
**   rhd AllReduce    ReduceScatter then AllGather
**   bruck AllGather  rounds ceil(log2 n), to r - 2^k, b_k = min(2^k, n - 2^k) S / n
**   bruck AllToAll   rounds ceil(log2 n), to r + 2^k, b_k = S / n x (blocks
**                    j < n with bit k set)
**   pairwise AllToAll rounds n - 1, to r + k + 1, b_k = S / n
**   pat AllGather    Bruck's rounds with NCCL's PAT latency, one rank per
**                    group; ReduceScatter the mirror (far halves first)
**   hier AllReduce   a ring reduce-scatter inside each group (p - 1 rounds of
**                    S/p to the next member), a ring AllReduce of each
**                    member's S/p across the groups (2(G - 1) rounds of
**                    S/(pG) to the same member of the next group), a ring
**                    AllGather inside each group (p - 1 rounds of S/p)
** rd and rhd need n a power of two; hier equal groups of consecutive ranks.  Each op pays its hop's latency (NCCL's
** ring hop, intra or network, by the peer's group; the base latency in the
** first round) and the closed form's step overhead, shared over the rounds
** by bytes; bytes on the wire are b_k over the protocol's wire efficiency.
** The closed form (model/cost.c) adds the same rounds up.
*/
#include "build.h"

#include "../../model/cost_term.h"

#include "../../model/nccl_tables.h"

#include <math.h>
#include <string.h>

enum { PEER_XOR, PEER_DOWN, PEER_UP, PEER_GROUP_NEXT, PEER_RAIL_NEXT };

struct round {
	int dist, how;
	double bytes, sync;
};

struct steps {
	int n, L, p;                /* p: ranks per group (hier) */
	int M;                      /* NICs a rank spreads each send over */
	const int32_t *group;
	const struct ccs_comm *c;
	struct round *rd;
	double d_intra, d_inter, d_base;
};

static int peer_of(const struct steps *st, int k, int r)
{
	const struct round *x = &st->rd[k];
	switch (x->how) {
	case PEER_XOR:
		return r ^ x->dist;
	case PEER_DOWN:
		return (r - x->dist % st->n + st->n) % st->n;
	case PEER_GROUP_NEXT:       /* next member of r's group */
		return r - r % st->p + (r % st->p + 1) % st->p;
	case PEER_RAIL_NEXT:        /* same member of the next group */
		return (r + st->p) % st->n;
	default:
		return (r + x->dist) % st->n;
	}
}

static void st_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct steps *st = s->ctx;
	uint64_t kr = id / (uint64_t)st->M;
	int i = (int)(id % (uint64_t)st->M);
	int k = (int)(kr / (uint64_t)st->n), r = (int)(kr % (uint64_t)st->n);
	int peer = peer_of(st, k, r);
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_XFER;
	op->src = r;
	op->dst = peer;
	op->channel = (uint32_t)i;
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (st->group[r] != st->group[peer] && st->M > 1) {
		op->nic_src = ccs_comm_nic(st->c, r, i);
		op->nic_dst = ccs_comm_nic(st->c, peer, i);
	}
	op->bytes = st->rd[k].bytes / st->M;
	op->delay_s = (st->group[r] == st->group[peer] ? st->d_intra : st->d_inter) + st->rd[k].sync;
	if (k == 0)
		op->delay_s += st->d_base;
}

/* Each of round k's M parts of rank r releases all M parts of round k + 1
 * of r and of the peer it sent to. */
static int st_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct steps *st = s->ctx;
	uint64_t kr = id / (uint64_t)st->M;
	int k = (int)(kr / (uint64_t)st->n), r = (int)(kr % (uint64_t)st->n);
	if (k + 1 >= st->L)
		return 0;
	uint64_t next = (uint64_t)(k + 1) * (uint64_t)st->n, M = (uint64_t)st->M;
	uint64_t a = (next + (uint64_t)r) * M, b = (next + (uint64_t)peer_of(st, k, r)) * M;
	int m = 0;
	for (uint64_t j = 0; j < M; j++) {
		out[m++] = a + j;
		out[m++] = b + j;
	}
	return m;
}

static uint32_t st_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct steps *st = s->ctx;
	return id < (uint64_t)st->n * (uint64_t)st->M ? 0 : 2 * (uint32_t)st->M;
}

static void st_release(struct ccs_sched *s)
{
	struct steps *st = s->ctx;
	if (st)
		ccs_free(st->rd);
	ccs_free(st);
	s->ctx = NULL;
}

static int log2_ceil(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return k;
}

static const struct ccs_sched_ops st_ops = { st_get, st_succ, st_ndeps, st_release, NULL, NULL };

/* Whether the round-by-round schedule of algo covers this communicator
 * (0), else 1 with why. */
static int steps_apply(const struct ccs_comm *c, int coll, int algo, const char **why)
{
	int n = c->n;
	if ((algo == CCS_ALGO_RD || algo == CCS_ALGO_RHD) && (n & (n - 1))) {
		*why = "recursive doubling and halving-doubling are simulated on a power-of-two rank count";
		return 1;
	}
	if (n < 2) {
		*why = "a round schedule needs two ranks";
		return 1;
	}
	if (algo == CCS_ALGO_PAT && c->p != 1) {
		*why = "pat is simulated with one rank per group (NCCL runs it with one GPU per node)";
		return 1;
	}
	if (algo == CCS_ALGO_PAIRWISE && coll != CCS_COLL_ALLTOALL) {
		*why = "the pairwise schedule covers AllToAll";
		return 1;
	}
	int p = c->p, G = c->G;
	if (algo == CCS_ALGO_HIER) {
		int ok = G > 1 && c->p_min == p && p * G == n;
		for (int r = 0; ok && r < n; r++)
			ok = c->rank_group[r] == r / p;
		if (!ok) {
			*why = "the hierarchical schedule needs equal groups of consecutive ranks";
			return 1;
		}
	}
	return 0;
}

/* Round k of L: its peer rule, distance and bytes, per algorithm. */
static void round_of(int coll, int algo, int n, int p, int G, int L, int L2, int k, double S, struct round *x)
{
	if (algo == CCS_ALGO_HIER) {
		int inter = k >= p - 1 && k < p - 1 + 2 * (G - 1);
		x->how = inter ? PEER_RAIL_NEXT : PEER_GROUP_NEXT;
		x->dist = 1;
		x->bytes = inter ? S / ((double)p * G) : S / p;
	} else if (algo == CCS_ALGO_PAIRWISE) {
		x->how = PEER_UP;
		x->dist = k + 1;
		x->bytes = S / n;
	} else if (algo == CCS_ALGO_PAT) {
		/* Bruck's rounds, gathering outwards; reduce-scatter is the
		 * mirror: the far halves first, towards r + 2^j */
		int j = coll == CCS_COLL_ALLGATHER ? k : L - 1 - k;
		int d = 1 << j;
		x->dist = d;
		x->how = coll == CCS_COLL_ALLGATHER ? PEER_DOWN : PEER_UP;
		x->bytes = (d < n - d ? d : n - d) * S / n;
	} else if (algo == CCS_ALGO_BRUCK) {
		int d = 1 << k;
		x->dist = d;
		if (coll == CCS_COLL_ALLGATHER) {
			x->how = PEER_DOWN;
			x->bytes = (d < n - d ? d : n - d) * S / n;
		} else {
			x->how = PEER_UP;
			x->bytes = ccs_cost_term_bruck_blocks(n, k) * S / n;
		}
	} else if (algo == CCS_ALGO_RD) {
		x->how = PEER_XOR;
		x->dist = 1 << k;
		x->bytes = coll == CCS_COLL_ALLGATHER ? x->dist * S / n : S;
	} else {
		/* rhd: reduce-scatter rounds (far peers first), then gather */
		int rs = coll == CCS_COLL_REDUCESCATTER || (coll == CCS_COLL_ALLREDUCE && k < L2);
		int j = coll == CCS_COLL_ALLREDUCE && k >= L2 ? k - L2 : k;
		x->how = PEER_XOR;
		x->dist = rs ? n >> (j + 1) : 1 << j;
		x->bytes = rs ? S / (double)(2 << j) : x->dist * S / n;
	}
}

int ccs_sched_steps(const struct ccs_comm *c, int coll, int algo, int proto, uint64_t bytes, struct ccs_sched *s,
                    const char **why)
{
	memset(s, 0, sizeof *s);
	int n = c->n, L2 = log2_ceil(n);
	struct ccs_cost cc;
	if (ccs_cost_eval(c, coll, algo, proto, 0, bytes, &cc, why))
		return CCS_EINPUT;
	if (steps_apply(c, coll, algo, why))
		return CCS_EINPUT;
	int p = c->p, G = c->G;
	int L = algo == CCS_ALGO_PAIRWISE ? n - 1
	      : algo == CCS_ALGO_HIER ? 2 * (p - 1) + 2 * (G - 1)
	      : (algo == CCS_ALGO_RHD && coll == CCS_COLL_ALLREDUCE) ? 2 * L2 : L2;
	struct steps *st = ccs_calloc(1, sizeof *st);
	if (!st)
		return CCS_ENOMEM;
	st->rd = ccs_calloc((size_t)L + 1, sizeof *st->rd);
	if (!st->rd) {
		ccs_free(st);
		return CCS_ENOMEM;
	}
	st->n = n;
	st->L = L;
	st->p = p;
	st->c = c;
	/* Across groups a rank spreads each send over its best NICs, as NCCL
	 * spreads channels over them and the closed form's b_nic counts them:
	 * M = the fewest any rank has (at most 8) */
	st->M = ccs_comm_fewest_nics(c, 8);
	if (G == 1 || st->M < 1)
		st->M = 1;
	st->group = c->rank_group;
	double S = (double)bytes, total = 0;
	for (int k = 0; k < L; k++) {
		struct round *x = &st->rd[k];
		round_of(coll, algo, n, p, G, L, L2, k, S, x);
		total += x->bytes;
	}
	/* the closed form's step overhead, by bytes; wire efficiency */
	double e = ccs_nccl_proto_data_share(proto);
	for (int k = 0; k < L; k++) {
		/* PAT's network streams from its own buffers while the GPU pays
		 * the steps (the closed form overlaps them) */
		st->rd[k].sync = total > 0 && algo != CCS_ALGO_PAT ? cc.step_s * st->rd[k].bytes / total : 0;
		st->rd[k].bytes /= e;
	}
	int lat_algo = algo == CCS_ALGO_PAT ? CCS_ALGO_PAT : CCS_ALGO_RING;
	st->d_base = ccs_nccl_latency(&c->nccl, lat_algo, proto, 0, 0);
	st->d_intra = ccs_nccl_latency(&c->nccl, lat_algo, proto, 1, 0) - st->d_base;
	st->d_inter = ccs_nccl_latency(&c->nccl, lat_algo, proto, 0, 1) - st->d_base + cc.rdv_s;
	s->ctx = st;
	s->nops = (uint64_t)L * (uint64_t)n * (uint64_t)st->M;
	s->ops = &st_ops;
	return CCS_OK;
}
