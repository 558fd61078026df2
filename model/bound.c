/* model/bound.c: the cut bound (bound.h). */
#include "bound.h"
#include "coll.h"

#include <math.h>

const char *const ccs_cut_name[3] = { "gpu", "group-nics", "node-uplinks" };

/* A rank's raw NIC rate: the sum of its best NICs' line rates. */
static double rank_nic(const struct ccs_comm *c, int r)
{
	double s = 0;
	for (int i = 0, m = ccs_comm_best_nics(c, r); i < m; i++)
		s += ccs_topo_nic_speed(c->t, ccs_comm_nic(c, r, i));
	return s;
}

static double rank_bytes(int coll, double S, int n)
{
	switch (coll) {
	case CCS_COLL_BROADCAST:
	case CCS_COLL_REDUCE:
	case CCS_COLL_SENDRECV:
		return S;
	default:
		return (n - 1.0) / n * S;
	}
}

static double group_bytes(int coll, double S, int n, int G, int pg)
{
	switch (coll) {
	case CCS_COLL_ALLREDUCE:
		return (G - 1.0) / G * S;
	case CCS_COLL_ALLGATHER:
	case CCS_COLL_REDUCESCATTER:
		return (double)(n - pg) / n * S;
	case CCS_COLL_ALLTOALL:
		return (double)pg * (n - pg) / n * S;
	default:
		return S;
	}
}

/* The node cut of a two-tier scale-up plane (t_node above); 0 without one. */
static int node_cut(const struct ccs_comm *c, int coll, double S, double *out)
{
	const struct ccs_topo *t = c->t;
	size_t nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	double *up = ccs_calloc(nn, sizeof *up);
	int32_t *q = ccs_calloc(nn, sizeof *q), *stamp = ccs_calloc((size_t)t->ndev + 1, sizeof *stamp);
	int rc = CCS_ENOMEM;
	*out = 0;
	if (!up || !q || !stamp)
		goto done;
	rc = CCS_OK;
	if (!ccs_topo_su_uplinks(t, up))
		goto done;
	int M = 0;
	for (int r = 0; r < c->n; r++) {
		int32_t k = t->gpu[c->rank_gpu[r]].node;
		if (k < 0)
			continue;
		M += !q[k]++;
		for (int i = 0, m = ccs_comm_best_nics(c, r); i < m; i++) {
			uint32_t x = ccs_comm_nic(c, r, i);
			if (stamp[x] != k + 1) {
				stamp[x] = k + 1;
				up[k] += ccs_topo_nic_speed(t, x);
			}
		}
	}
	for (size_t k = 0; k < nn && M > 1; k++)
		if (q[k] && up[k] > 0 && group_bytes(coll, S, c->n, M, q[k]) / up[k] > *out)
			*out = group_bytes(coll, S, c->n, M, q[k]) / up[k];
done:
	ccs_free(up);
	ccs_free(q);
	ccs_free(stamp);
	return rc;
}

int ccs_bound_cut(const struct ccs_comm *c, int coll, double S, struct ccs_cut *out)
{
	const struct ccs_topo *t = c->t;
	out->t_gpu_s = out->t_grp_s = out->t_node_s = 0;
	CCS_TRY(node_cut(c, coll, S, &out->t_node_s));
	if (c->n >= 2) {
		double br = rank_bytes(coll, S, c->n);
		for (int r = 0; r < c->n; r++) {
			double rate = t->gpu[c->rank_gpu[r]].su_bw_Bps + (c->G > 1 ? rank_nic(c, r) : 0);
			/* a GPU without scale-up links moves its bytes over PCIe */
			if (!(t->gpu[c->rank_gpu[r]].su_bw_Bps > 0))
				rate = HUGE_VAL;
			double tr = br / rate;
			if (tr > out->t_gpu_s)
				out->t_gpu_s = tr;
		}
	}
	if (c->G > 1) {
		/* each group's distinct NICs, once each (stamp: the group + 1) */
		int32_t *stamp = ccs_calloc((size_t)t->ndev + 1, sizeof *stamp);
		double *cap = ccs_calloc((size_t)c->G, sizeof *cap);
		int32_t *pg = ccs_calloc((size_t)c->G, sizeof *pg);
		int ok = stamp && cap && pg;
		if (ok) {
			for (int r = 0; r < c->n; r++) {
				int g = c->rank_group[r];
				pg[g]++;
				for (int i = 0, m = ccs_comm_best_nics(c, r); i < m; i++) {
					uint32_t x = ccs_comm_nic(c, r, i);
					if (stamp[x] != g + 1) {
						stamp[x] = g + 1;
						cap[g] += ccs_topo_nic_speed(t, x);
					}
				}
			}
			for (int g = 0; g < c->G; g++) {
				double tg = cap[g] > 0 ? group_bytes(coll, S, c->n, c->G, pg[g]) / cap[g] : 0;
				if (tg > out->t_grp_s)
					out->t_grp_s = tg;
			}
		}
		ccs_free(stamp);
		ccs_free(cap);
		ccs_free(pg);
		if (!ok)
			return CCS_ENOMEM;
	}
	out->by = out->t_grp_s > out->t_gpu_s ? CCS_CUT_GROUP : CCS_CUT_GPU;
	out->t_s = out->by == CCS_CUT_GROUP ? out->t_grp_s : out->t_gpu_s;
	if (out->t_node_s > out->t_s) {
		out->by = CCS_CUT_NODE;
		out->t_s = out->t_node_s;
	}
	return CCS_OK;
}
