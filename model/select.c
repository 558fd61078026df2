/* model/select.c: our choice of algorithm and protocol, the fastest by the
** closed form among those allowed (cost.h). */
#include "cost.h"

#include <math.h>
#include <string.h>

/* ---- selection ---- */

int ccs_select(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned algo_mask, unsigned proto_mask,
               int nccl, int *algo, int *proto)
{
	double best = HUGE_VAL;
	int ba = -1, bp = -1;
	/* across groups, only the protocols the transport carries */
	if (c->G > 1)
		proto_mask &= ccs_comm_tr(c)->protos;
	int tuned = coll <= CCS_COLL_REDUCE;
	for (int a = 0; a < CCS_ALGO_N; a++) {
		if (!(algo_mask & (1u << a)))
			continue;
		/* NCCL's model covers its own algorithms; the others (asked for by
		 * name) are timed by ours */
		int by_nccl = nccl && tuned && a < CCS_ALGO_NCCL_N;
		if (nccl && tuned && a >= CCS_ALGO_NCCL_N && (algo_mask & ((1u << CCS_ALGO_NCCL_N) - 1)))
			continue;
		for (int q = 0; q < CCS_PROTO_N; q++) {
			if (!(proto_mask & (1u << q)))
				continue;
			double t;
			if (by_nccl) {
				/* NCCL's time, for an algorithm that completes here (a
				 * fault may leave it no finite time by ours): checked
				 * only where it would be the best so far */
				struct ccs_cost cc;
				t = ccs_nccl_time(&c->nccl, coll, a, q, bytes);
				if (t < 0 || (t < best && ccs_cost_eval(c, coll, a, q, 0, bytes, &cc, NULL)))
					continue;
			} else {
				struct ccs_cost cc;
				if (ccs_cost_eval(c, coll, a, q, 0, bytes, &cc, NULL))
					continue;
				t = cc.time_s;
				/* NCCL moves AllToAll and SendRecv with direct p2p, Simple
				 * above its LL threshold. */
				if (nccl && !tuned) {
					/* another algorithm only when asked for by name */
					if (a != CCS_ALGO_DIRECT && (algo_mask & (1u << CCS_ALGO_DIRECT)))
						continue;
					int want = bytes <= 16384u * (uint64_t)ccs_nccl_channels(&c->nccl, CCS_ALGO_RING) ? CCS_PROTO_LL
					                                                                         : CCS_PROTO_SIMPLE;
					if (q != want && (proto_mask & (1u << want)))
						continue;
				}
			}
			if (t < best) {
				best = t;
				ba = a;
				bp = q;
			}
		}
	}
	if (ba < 0)
		return -1;
	*algo = ba;
	*proto = bp;
	return 0;
}

/* ---- the same, precomputed per communicator ---- */

void ccs_selector_init(struct ccs_selector *s, const struct ccs_comm *c)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	for (int coll = CCS_COLL_REDUCE + 1; coll < CCS_COLL_N; coll++)
		for (int q = 0; q < CCS_PROTO_N; q++) {
			struct ccs_cost cc;
			s->direct_ok[coll][q] = !ccs_cost_eval(c, coll, CCS_ALGO_DIRECT, q, 0, 1u << 20, &cc, NULL);
		}
	for (int coll = 0; coll <= CCS_COLL_REDUCE; coll++)
		for (int a = 0; a < CCS_ALGO_NCCL_N; a++)
			for (int q = 0; q < CCS_PROTO_N; q++) {
				struct ccs_cost cc;
				s->nbw[coll][a][q] = ccs_nccl_bw_lat(&c->nccl, coll, a, q, &s->nlat[coll][a][q]);
				s->ok[coll][a][q] = !ccs_cost_eval(c, coll, a, q, 0, 1u << 20, &cc, NULL);
			}
}

int ccs_selector_pick(const struct ccs_selector *s, int coll, uint64_t bytes, unsigned algo_mask, unsigned proto_mask,
                      int nccl, int *algo, int *proto)
{
	const struct ccs_comm *c = s->c;
	unsigned nccl_algos = (1u << CCS_ALGO_NCCL_N) - 1;
	if (c->G > 1)
		proto_mask &= ccs_comm_tr(c)->protos;
	/* AllToAll and SendRecv as NCCL runs them: direct, LL up to 16 KiB a
	 * channel, else Simple (ccs_select) */
	if (bytes && nccl && coll > CCS_COLL_REDUCE && (algo_mask & (1u << CCS_ALGO_DIRECT))) {
		int want = bytes <= 16384u * (uint64_t)ccs_nccl_channels(&c->nccl, CCS_ALGO_RING) ? CCS_PROTO_LL : CCS_PROTO_SIMPLE;
		if (proto_mask & (1u << want)) {
			if (!s->direct_ok[coll][want])
				return -1;
			*algo = CCS_ALGO_DIRECT;
			*proto = want;
			return 0;
		}
	}
	/* only NCCL's choice among its own algorithms is precomputed */
	if (!bytes || !nccl || coll > CCS_COLL_REDUCE || !(algo_mask & nccl_algos) || c->n == 1)
		return ccs_select(c, coll, bytes, algo_mask, proto_mask, nccl, algo, proto);
	double best = HUGE_VAL;
	int ba = -1, bp = -1;
	for (int a = 0; a < CCS_ALGO_NCCL_N; a++) {
		if (!(algo_mask & (1u << a)))
			continue;
		for (int q = 0; q < CCS_PROTO_N; q++) {
			if (!(proto_mask & (1u << q)) || !s->ok[coll][a][q])
				continue;
			double t = ccs_nccl_time_at(&c->nccl, coll, a, q, bytes, s->nbw[coll][a][q], s->nlat[coll][a][q]);
			if (t >= 0 && t < best) {
				best = t;
				ba = a;
				bp = q;
			}
		}
	}
	if (ba < 0)
		return -1;
	*algo = ba;
	*proto = bp;
	return 0;
}
