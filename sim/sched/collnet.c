/*
** sim/sched/collnet.c: CollNet Direct AllReduce (in-network reduction,
** SHARP) as a schedule (sched.h); NVLS across scale-up domains with SHARP
** switches is the same shape (NVLS inside, SHARP across) with NVLS's
** chunks and latencies.
**
** Inside each group every rank runs one NVLS-like op through its scale-up
** ports (S out, S/p_g more in: the direct reduce-scatter and all-gather the
** closed form counts as b_su p/(p+1)).  Beside it, on the network, the
** heads, the first p = p_min members of every group (NCCL keeps the same
** heads in every node; a part-filled rack's size sets them), each own
** the slice S/p; head r (member j of its group) moves it in K chunks:
**   up(k, r)     chunk k from r's GPU to its NICs and up their links to
**                the switches (CCS_OP_UP; one part per best NIC of r, as
**                NCCL spreads channels over them); after up(k-1, r)
**   agg(k, j)    the switches hold chunk k of every member j of every group
**                and reduce it (a wait of one network hop); after up(k, r)
**                of all G ranks of rail j
**   down(k, r)   the reduced chunk back down to r (CCS_OP_DOWN); after
**                agg(k, j) and down(k-1, r)
** so each NIC carries S/p up and S/p down, as the closed form's B_net
** counts; agg gathers the ups and fans out to the downs through relay
** waits of no duration when there are more than one op may wait for or
** release.  The links between switches of
** the aggregation tree are not charged (each carries one reduced stream per
** rail, no more than a NIC link).  The intra op pays the closed form's
** latency and step work, the first up NCCL's base latency.
*/
#include "build.h"

#include "../../model/cost_term.h"

#include "../../model/nccl_tables.h"

#include <math.h>
#include <string.h>

#define FAN (CCS_SCHED_MAXSUCC - 1)

/* parent releases every target, through relay waits when there are more
 * than one op may release */
static int fan(struct ccs_dag *d, uint32_t parent, const uint32_t *tg, uint32_t m, uint32_t *scratch)
{
	if (m <= FAN) {
		for (uint32_t i = 0; i < m; i++)
			CCS_TRY(ccs_dag_edge(d, parent, tg[i]));
		return CCS_OK;
	}
	uint32_t nr = (m + FAN - 1) / FAN;
	struct ccs_op w;
	memset(&w, 0, sizeof w);
	w.kind = CCS_OP_DELAY;
	w.src = w.dst = ccs_dag_at(d, tg[0])->src;
	w.nic_src = w.nic_dst = UINT32_MAX;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t id;
		CCS_TRY(ccs_dag_op(d, &w, &id));
		scratch[i] = id;
		uint32_t lo = i * FAN, hi = lo + FAN < m ? lo + FAN : m;
		for (uint32_t j = lo; j < hi; j++)
			CCS_TRY(ccs_dag_edge(d, id, tg[j]));
	}
	return fan(d, parent, scratch, nr, scratch + nr);
}

/* target waits for every source, through relay waits when there are more
 * than one op may wait for */
#define GATHER 254
static int gather(struct ccs_dag *d, const uint32_t *src, uint32_t m, uint32_t target, uint32_t *scratch)
{
	if (m <= GATHER) {
		for (uint32_t i = 0; i < m; i++)
			CCS_TRY(ccs_dag_edge(d, src[i], target));
		return CCS_OK;
	}
	uint32_t nr = (m + GATHER - 1) / GATHER;
	struct ccs_op w;
	memset(&w, 0, sizeof w);
	w.kind = CCS_OP_DELAY;
	w.src = w.dst = ccs_dag_at(d, target)->src;
	w.nic_src = w.nic_dst = UINT32_MAX;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t id;
		CCS_TRY(ccs_dag_op(d, &w, &id));
		scratch[i] = id;
		uint32_t lo = i * GATHER, hi = lo + GATHER < m ? lo + GATHER : m;
		for (uint32_t j = lo; j < hi; j++)
			CCS_TRY(ccs_dag_edge(d, src[j], id));
	}
	return gather(d, scratch, nr, target, scratch + nr);
}

/* The dag into s; its checks can only fail here by a builder's mistake. */
/* What CollNet Direct's chunks share: K chunks per rank in M parts (one
 * per best NIC) of part bytes; the first pays base, the switches hop; up
 * and down the ops by (rank, chunk, part); tg and scratch for gathers. */
struct direct_args {
	const struct ccs_comm *c;
	const int32_t *gstart, *members;
	int K, M;
	double part, base, hop;
	uint32_t *up, *down, *tg, *scratch;
};

#define UD(r, k, i) (((size_t)(r) * A->K + (size_t)(k)) * A->M + (size_t)(i))

/* Rank r's chunks up to the switches and back, part i over its i-th NIC,
 * each after the same part of the chunk before. */
static int rank_chunks(struct ccs_dag *d, const struct direct_args *A, int r)
{
	struct ccs_op o;
	int rc;
	for (int k = 0; k < A->K; k++)
		for (int i = 0; i < A->M; i++) {
			memset(&o, 0, sizeof o);
			o.kind = CCS_OP_UP;
			o.src = o.dst = r;
			o.channel = (uint32_t)i;
			o.nic_src = o.nic_dst = ccs_comm_nic(A->c, r, i);
			o.bytes = A->part;
			o.delay_s = k == 0 ? A->base : 0;
			if ((rc = ccs_dag_op(d, &o, &A->up[UD(r, k, i)])))
				return rc;
			o.kind = CCS_OP_DOWN;
			o.delay_s = 0;
			if ((rc = ccs_dag_op(d, &o, &A->down[UD(r, k, i)])))
				return rc;
			if (k > 0 && ((rc = ccs_dag_edge(d, A->up[UD(r, k - 1, i)], A->up[UD(r, k, i)])) ||
			              (rc = ccs_dag_edge(d, A->down[UD(r, k - 1, i)], A->down[UD(r, k, i)]))))
				return rc;
		}
	return CCS_OK;
}

/* The switches' reduction of chunk k on rail j: after every group's up
 * parts, before their down parts. */
static int rail_reduce(struct ccs_dag *d, const struct direct_args *A, int j, int k)
{
	struct ccs_op o;
	uint32_t id;
	int rc;
	memset(&o, 0, sizeof o);
	o.kind = CCS_OP_DELAY;
	o.src = o.dst = A->members[A->gstart[0] + j];
	o.nic_src = o.nic_dst = UINT32_MAX;
	o.delay_s = A->hop;
	if ((rc = ccs_dag_op(d, &o, &id)))
		return rc;
	uint32_t m = 0;
	for (int g = 0; g < A->c->G; g++)
		for (int i = 0; i < A->M; i++)
			A->tg[m++] = A->up[UD(A->members[A->gstart[g] + j], k, i)];
	if ((rc = gather(d, A->tg, m, id, A->scratch)))
		return rc;
	m = 0;
	for (int g = 0; g < A->c->G; g++)
		for (int i = 0; i < A->M; i++)
			A->tg[m++] = A->down[UD(A->members[A->gstart[g] + j], k, i)];
	return fan(d, id, A->tg, m, A->scratch);
}

#undef UD

int ccs_sched_collnet(const struct ccs_comm *c, int algo, int proto, int channels, uint64_t bytes,
                      struct ccs_sched *s, const char **why)
{
	memset(s, 0, sizeof *s);
	struct ccs_cost cc;
	if (ccs_cost_eval(c, CCS_COLL_ALLREDUCE, algo, proto, channels, bytes, &cc, why))
		return CCS_EINPUT;
	int n = c->n, G = c->G, p = c->p_min;
	if (G < 2) {
		*why = "the collnet schedule needs several groups";
		return CCS_EINPUT;
	}
	int32_t *gstart = NULL, *members = NULL;
	uint32_t *up = NULL, *down = NULL, *tg = NULL, *scratch = NULL;
	struct ccs_dag *d = NULL;
	int rc = CCS_ENOMEM;
	if (ccs_dag_new(&d) || ccs_comm_members(c, &gstart, &members))
		goto out;
	double Sr = (double)bytes / p;
	double chunk = algo == CCS_ALGO_NVLS ? ccs_cost_chunk(c, CCS_COLL_ALLREDUCE, algo, proto, cc.channels, (double)bytes)
	                                     : CCS_NCCL_CHUNK_COLLNET;
	double Kd = ceil(Sr / chunk);
	int K = Kd < 1 ? 1 : Kd > 64 ? 64 : (int)Kd;
	/* each rank spreads its slice over its best NICs (M: the fewest any
	 * rank has, at most 8), as NCCL spreads its channels */
	int M = ccs_comm_fewest_nics(c, 8);
	if (M < 1) {
		*why = "a rank has no nic";
		rc = CCS_EINPUT;
		goto out;
	}
	size_t nud = (size_t)n * K * M;
	up = ccs_malloc(nud * sizeof *up);
	down = ccs_malloc(nud * sizeof *down);
	tg = ccs_malloc(((size_t)G * M + 1) * sizeof *tg);
	scratch = ccs_malloc(((size_t)G * M + 1) * sizeof *scratch);
	if (!up || !down || !tg || !scratch)
		goto out;
	double base = ccs_nccl_latency(&c->nccl, algo, proto, 0, 0);
	double hop = ccs_nccl_latency(&c->nccl, algo, proto, 0, 1) - base + cc.rdv_s;
	struct ccs_op o;
	uint32_t id;
	/* the intra op of every rank, over its own group (none in a group of
	 * one rank) */
	for (int r = 0; r < n; r++) {
		int pg = gstart[c->rank_group[r] + 1] - gstart[c->rank_group[r]];
		if (pg < 2)
			continue;
		memset(&o, 0, sizeof o);
		o.kind = CCS_OP_NVLS;
		o.src = o.dst = r;
		o.nic_src = o.nic_dst = UINT32_MAX;
		o.bytes = (double)bytes * (pg + 1.0) / pg;
		o.delay_s = cc.lat_s + cc.step_s;
		if ((rc = ccs_dag_op(d, &o, &id)))
			goto out;
	}
	/* up and down chunks of the heads (the first p members of every
	 * group), part i over the head's i-th best NIC */
	struct direct_args A = { c, gstart, members, K, M, Sr / K / M, base, hop, up, down, tg, scratch };
	for (int g = 0; g < G; g++)
		for (int j = 0; j < p; j++)
			if ((rc = rank_chunks(d, &A, members[gstart[g] + j])))
				goto out;
	/* the switches' reduction per rail and chunk */
	for (int j = 0; j < p; j++)
		for (int k = 0; k < K; k++)
			if ((rc = rail_reduce(d, &A, j, k)))
				goto out;
	rc = ccs_dag_take(&d, s, why);
out:
	ccs_dag_free(d);
	ccs_free(gstart);
	ccs_free(members);
	ccs_free(up);
	ccs_free(down);
	ccs_free(tg);
	ccs_free(scratch);
	if (rc && !*why)
		*why = rc == CCS_ENOMEM ? "out of memory" : "internal: collnet schedule";
	return rc;
}

/* CollNet Chain: per channel c and group, a chain of the group's members
 * starting at member c mod p (heads, and the NICs they use, rotate over
 * the channels, as the tree's chains do).  Per chunk k:
 *   u(j)   member j sends the partial sum to member j - 1 (j = p-1 .. 1),
 *          after u(j+1) and its own u of chunk k-1
 *   up     the head sends the group's sum up to the switches (CCS_OP_UP)
 *   agg    the switches wait for every group's head and reduce
 *   down   the result comes back to the head (CCS_OP_DOWN)
 *   d(j)   member j-1 passes it on to member j
 * The leaves' first transfer waits the closed form's latency; chain
 * transfers carry their chunk's step work as bytes at the channel's share
 * of the port (as the tree's). */
/* What every group's chain of a CollNet Chain schedule shares. */
struct chain_args {
	const struct ccs_comm *c;
	const int32_t *gstart, *members;
	int G;
	double intra, per, lat_s;   /* bytes a chain hop and the switch hop move; the first hop's delay */
};

/* Group g's ops for chunk k of channel ch: up its chain (tail first), the
 * head to the switches and back, down the chain; each op after the same
 * slot's op of the previous chunk (pv); heads[g] and heads[G + g] get the
 * head's up and down ops. */
static int chain_group(struct ccs_dag *d, const struct chain_args *A, int g, int ch, int k, uint32_t *pv,
                       uint32_t *heads)
{
	int p = A->gstart[g + 1] - A->gstart[g], rc;   /* this group's chain (a part-filled rack's is shorter) */
	struct ccs_op o;
#define M(j) A->members[A->gstart[g] + ((j) + ch) % p]
	uint32_t id, last = UINT32_MAX;
	/* up the chain, tail first */
	for (int j = p - 1; j >= 1; j--) {
		memset(&o, 0, sizeof o);
		o.kind = CCS_OP_XFER;
		o.src = M(j);
		o.dst = M(j - 1);
		o.channel = (uint32_t)ch;
		o.nic_src = o.nic_dst = UINT32_MAX;
		o.bytes = A->intra;
		o.delay_s = k == 0 && j == p - 1 ? A->lat_s : 0;
		if ((rc = ccs_dag_op(d, &o, &id)) || (last != UINT32_MAX && (rc = ccs_dag_edge(d, last, id))) ||
		    (k > 0 && (rc = ccs_dag_edge(d, pv[p - 1 - j], id))))
			return rc;
		pv[p - 1 - j] = id;
		last = id;
	}
	/* the head to the switches, through the channel's NIC among
	 * the head's best (they rotate with the channels) */
	memset(&o, 0, sizeof o);
	o.kind = CCS_OP_UP;
	o.src = o.dst = M(0);
	o.channel = (uint32_t)ch;
	{
		int m = ccs_comm_best_nics(A->c, M(0));
		o.nic_src = o.nic_dst = m ? ccs_comm_nic(A->c, M(0), ch / p % m) : UINT32_MAX;
	}
	o.bytes = A->per;
	o.delay_s = k == 0 && p == 1 ? A->lat_s : 0;
	if ((rc = ccs_dag_op(d, &o, &id)) || (last != UINT32_MAX && (rc = ccs_dag_edge(d, last, id))) ||
	    (k > 0 && (rc = ccs_dag_edge(d, pv[p - 1], id))))
		return rc;
	pv[p - 1] = id;
	heads[g] = id;
	/* back down to the head, then along the chain */
	o.kind = CCS_OP_DOWN;
	o.delay_s = 0;
	if ((rc = ccs_dag_op(d, &o, &id)) || (k > 0 && (rc = ccs_dag_edge(d, pv[p], id))))
		return rc;
	pv[p] = id;
	heads[A->G + g] = id;
	last = id;
	for (int j = 1; j < p; j++) {
		memset(&o, 0, sizeof o);
		o.kind = CCS_OP_XFER;
		o.src = M(j - 1);
		o.dst = M(j);
		o.channel = (uint32_t)ch;
		o.nic_src = o.nic_dst = UINT32_MAX;
		o.bytes = A->intra;
		if ((rc = ccs_dag_op(d, &o, &id)) || (rc = ccs_dag_edge(d, last, id)) ||
		    (k > 0 && (rc = ccs_dag_edge(d, pv[p + j], id))))
			return rc;
		pv[p + j] = id;
		last = id;
	}
#undef M
	return CCS_OK;
}

int ccs_sched_collnet_chain(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                            const char **why)
{
	memset(s, 0, sizeof *s);
	struct ccs_cost cc;
	if (ccs_cost_eval(c, CCS_COLL_ALLREDUCE, CCS_ALGO_COLLNET_CHAIN, proto, channels, bytes, &cc, why))
		return CCS_EINPUT;
	int G = c->G, p = c->p, C = cc.channels > 0 ? cc.channels : 1;
	if (G < 2) {
		*why = "the collnet schedule needs several groups";
		return CCS_EINPUT;
	}
	int32_t *gstart = NULL, *members = NULL;
	uint32_t *prev = NULL, *heads = NULL, *scratch = NULL;
	struct ccs_dag *d = NULL;
	int rc = CCS_ENOMEM;
	if (ccs_dag_new(&d) || ccs_comm_members(c, &gstart, &members))
		goto out;
	double S = (double)bytes, chunk = CCS_NCCL_CHUNK_COLLNET;
	double Kd = ceil(S / ((double)C * chunk));
	int K = Kd < 1 ? 1 : Kd > 64 ? 64 : (int)Kd;
	double real_k = Kd < 1 ? 1 : Kd;
	double per = S / ((double)C * K);
	double sync = c->prm.step_s[proto] * real_k / K;
	double share = ccs_cost_term_tree_share(p, C);
	double intra = per + (share > 0 ? sync * c->b_su / (share * C) : 0);
	/* ops of the previous chunk, per (channel, group, slot): slots 0..p-2
	 * the u(j), p-1 up, p down, p+1.. the d(j) */
	int slots = 2 * p;
	prev = ccs_malloc((size_t)C * G * slots * sizeof *prev);
	heads = ccs_malloc(((size_t)G * 2 + 1) * sizeof *heads);
	scratch = ccs_malloc(((size_t)G * 2 + 1) * sizeof *scratch);
	if (!prev || !heads || !scratch)
		goto out;
	struct ccs_op o;
	for (int ch = 0; ch < C; ch++)
		for (int k = 0; k < K; k++) {
			uint32_t agg;
			memset(&o, 0, sizeof o);
			o.kind = CCS_OP_DELAY;
			o.src = o.dst = members[gstart[0] + ch % (gstart[1] - gstart[0])];
			o.nic_src = o.nic_dst = UINT32_MAX;
			o.delay_s = 0;          /* in the latency the leaves paid */
			if ((rc = ccs_dag_op(d, &o, &agg)))
				goto out;
			struct chain_args A = { c, gstart, members, G, intra, per, cc.lat_s };
			for (int g = 0; g < G; g++)
				if ((rc = chain_group(d, &A, g, ch, k, prev + ((size_t)ch * G + g) * slots, heads)))
					goto out;
			if ((rc = gather(d, heads, (uint32_t)G, agg, scratch)) ||
			    (rc = fan(d, agg, heads + G, (uint32_t)G, scratch)))
				goto out;
		}
	rc = ccs_dag_take(&d, s, why);
out:
	ccs_dag_free(d);
	ccs_free(gstart);
	ccs_free(members);
	ccs_free(prev);
	ccs_free(heads);
	ccs_free(scratch);
	if (rc && !*why)
		*why = rc == CCS_ENOMEM ? "out of memory" : "internal: collnet chain schedule";
	return rc;
}
