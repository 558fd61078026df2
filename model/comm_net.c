/* model/comm_net.c: the communicator's network side: NIC types and
** speeds, graph latencies, the fabric's share of each group for all-to-all
** traffic and the tightest cut (comm_int.h). */
#include "comm_int.h"
#include "maxflow.h"
#include "nccl_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- NICs and the fabric ---- */

int ccs_comm_net_type(const struct ccs_topo *t, uint32_t nic)
{
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++)
		if (ccs_link_is_network(t->link[t->adj[k]].type))
			return t->link[t->adj[k]].type;
	return CCS_LINK_IB;
}

double ccs_comm_net_speed(const struct ccs_topo *t, uint32_t nic)
{
	if (t->dev[nic].bw_Bps > 0)
		return t->dev[nic].bw_Bps;
	double s = 0;
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++)
		if (ccs_link_is_network(t->link[t->adj[k]].type))
			s += t->link[t->adj[k]].bw_Bps;
	return s;
}

/* Graph latency between two devices over links accepted by 'net' (network
 * links) or scale-up links: links plus the switches in between [s]. */
double ccs_comm_net_latency(const struct ccs_topo *t, uint32_t a, uint32_t b, int net, int32_t *dist,
                           uint32_t *parent, uint32_t *queue)
{
	for (uint32_t d = 0; d < t->ndev; d++)
		dist[d] = -1;
	uint32_t qh = 0, qt = 0;
	dist[a] = 0;
	queue[qt++] = a;
	while (qh < qt && dist[b] < 0) {
		uint32_t u = queue[qh++];
		if (u != a && t->dev[u].kind != CCS_DEV_NETSW && t->dev[u].kind != CCS_DEV_SUSW)
			continue;
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (net ? !ccs_link_is_network(l->type) : !ccs_link_is_scaleup(l->type))
				continue;
			uint32_t v = t->adj_nbr[k];
			if (dist[v] >= 0)
				continue;
			dist[v] = dist[u] + 1;
			parent[v] = t->adj[k];
			queue[qt++] = v;
		}
	}
	if (dist[b] < 0)
		return 0;
	double lat = 0;
	for (uint32_t v = b; v != a;) {
		const struct ccs_link *l = &t->link[parent[v]];
		lat += l->lat_s;
		v = ccs_link_other(l, v);
		if (v != a)
			lat += t->dev[v].lat_s;
	}
	return lat;
}

/* Which tier limits the bisection: the highest tier among the saturated
 * network links (the first first_edge edges of f), as a bound. */
static int limiting_tier(const struct ccs_topo *t, const struct ccs_maxflow *f, uint32_t first_edge, const int32_t *vx)
{
	int tier = 0;
	for (uint32_t e = 0; e < first_edge; e++) {
		double fl = fabs(ccs_maxflow_flow(f, e));
		double cap = f->c0[2 * e];
		if (cap <= 0 || fl < cap * 0.999)
			continue;
		/* the lower end's tier: NIC-leaf 0, leaf-spine 1, spine-core 2 */
		const struct ccs_link *l = NULL;
		uint32_t u = f->eu[e], v = f->ev[e];
		for (uint32_t d = 0; d < t->ndev && !l; d++)
			if (vx[d] == (int32_t)u) {
				for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++)
					if (vx[t->adj_nbr[k]] == (int32_t)v) {
						l = &t->link[t->adj[k]];
						break;
					}
			}
		if (!l)
			continue;
		int ta = t->dev[l->a].kind == CCS_DEV_NETSW ? t->dev[l->a].tier : 0;
		int tb = t->dev[l->b].kind == CCS_DEV_NETSW ? t->dev[l->b].tier : 0;
		int lo = ta < tb ? ta : tb;
		if (lo > tier)
			tier = lo;
	}
	return tier >= 3 ? CCS_BOUND_CORE : tier >= 2 ? CCS_BOUND_SPINE : tier == 1 ? CCS_BOUND_LEAF : CCS_BOUND_NIC;
}

int ccs_comm_net_share(struct ccs_comm *c, const uint32_t *nic_of_rank)
{
	const struct ccs_topo *t = c->t;
	if (c->G < 2)
		return CCS_OK;
	int32_t *vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *vx);
	int8_t *side = NULL;
	struct ccs_maxflow f;
	memset(&f, 0, sizeof f);
	int rc = CCS_ENOMEM;
	if (!vx)
		goto out;
	uint32_t nv = 2;
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = t->dev[d].kind == CCS_DEV_NETSW ? (int32_t)nv++ : -1;
	(void)nic_of_rank;
	/* The NICs each rank may use: those as close as its best one. */
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
		for (uint32_t i = 0, m = ccs_topo_best_nics(t, gp); i < m; i++) {
			const struct ccs_gpu_nic *e = &t->gnic[gp->nic_first + i];
			if (vx[e->nic] < 0)
				vx[e->nic] = (int32_t)nv++;
		}
	}
	f.nv = nv;
	double big = 1;
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (!ccs_link_is_network(l->type) || vx[l->a] < 0 || vx[l->b] < 0)
			continue;
		double cap = l->bw_Bps * c->prm.eff[l->type];
		big += 2 * cap;
		if ((rc = ccs_maxflow_add(&f, (uint32_t)vx[l->a], (uint32_t)vx[l->b], cap, cap)))
			goto out;
	}
	uint32_t first_edge = f.ne;
	/* side of a node: that of the group of its first rank */
	side = ccs_malloc(((size_t)t->nnodes + 1) * sizeof *side);
	if (!side)
		goto out;
	for (int32_t nd = 0; nd <= t->nnodes; nd++)
		side[nd] = -1;
	for (int r = 0; r < c->n; r++) {
		int32_t nd = t->dev[t->gpu[c->rank_gpu[r]].dev].node;
		if (nd >= 0 && side[nd] < 0)
			side[nd] = c->rank_group[r] < c->G / 2;
	}
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_NIC || vx[d] < 0 || t->dev[d].node < 0)
			continue;
		int a = side[t->dev[d].node];
		if (a < 0)
			continue;
		rc = a ? ccs_maxflow_add(&f, 0, (uint32_t)vx[d], big, 0) : ccs_maxflow_add(&f, (uint32_t)vx[d], 1, big, 0);
		if (rc)
			goto out;
	}
	double bis = 0;
	if ((rc = ccs_maxflow_run(&f, 0, 1, &bis)))
		goto out;
	double G = c->G;
	c->R_fab = 4.0 * bis * (G - 1) / (G * G);
	/* Which tier limits: the highest tier among saturated network links. */
	c->fab_bound = c->R_fab < c->B_net * 0.999 ? limiting_tier(t, &f, first_edge, vx) : CCS_BOUND_NIC;
	rc = CCS_OK;
out:
	ccs_free(vx);
	ccs_free(side);
	ccs_maxflow_release(&f);
	return rc;
}

/* Uniform all-to-all through each subtree of the network.  For tier k
 * (1: each leaf; 2: each pod, the leaves and spines joined without the
 * core), a component C of the switches of tiers <= k carries upward the
 * traffic that enters the network in C and leaves it elsewhere, over its
 * links to tier k + 1.  A rank's traffic enters through its usable NICs'
 * ports in proportion to their bandwidth (w_rC of it in C); on a fabric of
 * P planes, traffic that enters in C's plane lands in C with probability
 * P w_dC.  Without PXN, r -> d enters at r's ports, so per S / n
 *   up(C) = sum_g A_Cg (n - p_g) - P (A_C^2 - sum_g A_Cg^2),
 * A_Cg = sum over g's ranks of w_rC, A_C = sum_g A_Cg.  With PXN (NCCL's
 * default where a group has scale-up links) r -> d leaves through the
 * GPU of r's group on d's rail j, so per p S / n
 *   up(C) = sum_j N_Cj (G_j - 1) - P (N_Cj^2 - sum_g w_gjC^2),
 * w_gjC the weight in C of group g's member on rail j, N_Cj its sum, G_j
 * the groups with such a member.  The busiest component bounds the time;
 * R_cut = S (n - p) p / n / max_C up(C) S_unit / cap_up(C), comparable
 * with R_fab (the bisection's). */
/* ccs_comm_net_cut's work arrays, per device: the switch component (uf),
 * the bytes leaving it (up, at) and its capacity out (cap), one pass's
 * per-component sums (acc, sq, mark, touched); ranks per rail (gj, PXN). */
struct cut_work {
	uint32_t *uf, *touched;
	double *up, *acc, *sq, *cap, *at;
	uint8_t *mark;
	int32_t *gj;
	double P;                   /* planes */
	int pxn;
};

/* Components of the switches of tiers <= k; their sums reset. */
static void tier_components(const struct ccs_topo *t, int k, struct cut_work *cw)
{
	for (uint32_t d = 0; d < t->ndev; d++)
		cw->uf[d] = d;
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (t->dev[l->a].kind != CCS_DEV_NETSW || t->dev[l->b].kind != CCS_DEV_NETSW ||
		    t->dev[l->a].tier > k || t->dev[l->b].tier > k)
			continue;
		uint32_t a = l->a, b = l->b;
		while (cw->uf[a] != a)
			a = cw->uf[a] = cw->uf[cw->uf[a]];
		while (cw->uf[b] != b)
			b = cw->uf[b] = cw->uf[cw->uf[b]];
		if (a != b)
			cw->uf[a > b ? a : b] = a > b ? b : a;
	}
	for (uint32_t d = 0; d < t->ndev; d++) {
		uint32_t x = d;
		while (cw->uf[x] != x)
			x = cw->uf[x];
		cw->uf[d] = x;
		cw->up[d] = cw->cap[d] = cw->at[d] = 0;
	}
}

/* Capacity out of each component, one way. */
static void tier_caps(const struct ccs_comm *c, int k, struct cut_work *cw)
{
	const struct ccs_topo *t = c->t;
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (t->dev[l->a].kind != CCS_DEV_NETSW || t->dev[l->b].kind != CCS_DEV_NETSW || !ccs_link_live(l))
			continue;
		int ta = t->dev[l->a].tier, tb = t->dev[l->b].tier;
		if (ta == k && tb == k + 1)
			cw->cap[cw->uf[l->a]] += l->bw_Bps * c->prm.eff[l->type];
		else if (tb == k && ta == k + 1)
			cw->cap[cw->uf[l->b]] += l->bw_Bps * c->prm.eff[l->type];
	}
}

/* A rank's ports: its usable NICs' live links to switches, summed per
 * component (its own: up to 16 of them) into the pass's sums. */
static void rank_ports(const struct ccs_topo *t, const struct ccs_gpu *gp, struct cut_work *cw, uint32_t *nt_)
{
	uint32_t nt = *nt_;
	uint32_t mc[16];
	double mw[16];
	int nm = 0;
	double tot = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t e = 0, me = ccs_topo_best_nics(t, gp); e < me; e++) {
			const struct ccs_gpu_nic *ge = &t->gnic[gp->nic_first + e];
			for (uint32_t a = t->adj_off[ge->nic]; a < t->adj_off[ge->nic + 1]; a++) {
				const struct ccs_link *l = &t->link[t->adj[a]];
				uint32_t sw = t->adj_nbr[a];
				if (!ccs_link_is_network(l->type) || t->dev[sw].kind != CCS_DEV_NETSW || !ccs_link_live(l))
					continue;
				if (!pass) {
					tot += l->bw_Bps;
					continue;
				}
				uint32_t C = cw->uf[sw];
				double w = l->bw_Bps / tot;
				if (!cw->mark[C]) {
					cw->mark[C] = 1;
					cw->touched[nt++] = C;
				}
				cw->acc[C] += w;
				int m = 0;
				while (m < nm && mc[m] != C)
					m++;
				if (m == nm && nm < 16) {
					mc[nm] = C;
					mw[nm++] = 0;
				}
				if (m < nm)
					mw[m] += w;
			}
		}
	for (int m = 0; m < nm; m++)
		cw->sq[mc[m]] += mw[m] * mw[m];
	*nt_ = nt;
}

/* The pass's sums (pass q: a rail with PXN, else a group) into the bytes
 * leaving each component. */
static void pass_flush(const struct ccs_comm *c, const int32_t *gstart, int q, uint32_t nt, struct cut_work *cw)
{
	for (uint32_t x = 0; x < nt; x++) {
		uint32_t C = cw->touched[x];
		double a = cw->acc[C];
		if (cw->pxn)
			cw->up[C] += a * (cw->gj[q] - 1) - cw->P * (a * a - cw->sq[C]);
		else {
			cw->up[C] += a * (c->n - (gstart[q + 1] - gstart[q])) + cw->P * a * a;
			cw->at[C] += a;
		}
		cw->acc[C] = cw->sq[C] = 0;
		cw->mark[C] = 0;
	}
}

/* The slowest component of tier k: its bytes out over its capacity. */
static void tier_worst(const struct ccs_comm *c, int k, const struct cut_work *cw, double *worst, int *bound)
{
	const struct ccs_topo *t = c->t;
	double unit = cw->pxn ? (double)c->p / c->n : 1.0 / c->n;
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (cw->uf[d] != d || !(cw->cap[d] > 0))
			continue;
		double u = cw->up[d] - (cw->pxn ? 0 : cw->P * cw->at[d] * cw->at[d]);
		double T = u * unit / cw->cap[d];
		if (T > *worst) {
			*worst = T;
			*bound = k == 1 ? CCS_BOUND_LEAF : k == 2 ? CCS_BOUND_SPINE : CCS_BOUND_CORE;
		}
	}
}

int ccs_comm_net_cut(struct ccs_comm *c, const int32_t *gstart, const int32_t *members, double *R, int *bound)
{
	const struct ccs_topo *t = c->t;
	*R = HUGE_VAL;
	*bound = CCS_BOUND_NIC;
	int top = 0;
	for (uint32_t d = 0; d < t->ndev; d++)
		if (t->dev[d].kind == CCS_DEV_NETSW && t->dev[d].tier > top)
			top = t->dev[d].tier;
	if (c->G < 2 || top < 2)
		return CCS_OK;
	struct cut_work w;
	w.P = t->fab.planes > 1 ? t->fab.planes : 1;
	w.pxn = c->intra_nvl && c->p > 1;
	int pxn = w.pxn;
	size_t nd = (size_t)t->ndev + 1;
	w.uf = ccs_malloc(nd * sizeof *w.uf);
	w.touched = ccs_malloc(nd * sizeof *w.touched);
	w.up = ccs_malloc(nd * sizeof *w.up);
	w.acc = ccs_calloc(nd, sizeof *w.acc);
	w.sq = ccs_calloc(nd, sizeof *w.sq);
	w.cap = ccs_malloc(nd * sizeof *w.cap);
	w.at = ccs_malloc(nd * sizeof *w.at);
	w.mark = ccs_calloc(nd, 1);
	w.gj = NULL;
	int32_t L = 0;
	int rc = CCS_ENOMEM;
	if (!w.uf || !w.touched || !w.up || !w.acc || !w.sq || !w.cap || !w.at || !w.mark)
		goto out;
	for (int r = 0; r < c->n; r++)
		if (t->gpu[c->rank_gpu[r]].local + 1 > L)
			L = t->gpu[c->rank_gpu[r]].local + 1;
	if (pxn) {
		if (!(w.gj = ccs_calloc((size_t)L + 1, sizeof *w.gj)))
			goto out;
		for (int r = 0; r < c->n; r++)
			if (t->gpu[c->rank_gpu[r]].local >= 0)
				w.gj[t->gpu[c->rank_gpu[r]].local]++;
	}
	double worst = 0;
	for (int k = 1; k < top; k++) {
		tier_components(t, k, &w);
		tier_caps(c, k, &w);
		/* one pass per rail (PXN) or per group (without) */
		int passes = pxn ? L : c->G;
		for (int q = 0; q < passes; q++) {
			uint32_t nt = 0;
			int lo = pxn ? 0 : gstart[q], hi = pxn ? c->n : gstart[q + 1];
			for (int i = lo; i < hi; i++) {
				int r = pxn ? i : members[i];
				const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
				if (pxn && gp->local != q)
					continue;
				rank_ports(t, gp, &w, &nt);
			}
			pass_flush(c, gstart, q, nt, &w);
		}
		tier_worst(c, k, &w, &worst, bound);
	}
	if (worst > 0)
		*R = (double)(c->n - c->p) * c->p / c->n / worst;
	rc = CCS_OK;
out:
	ccs_free(w.uf);
	ccs_free(w.touched);
	ccs_free(w.up);
	ccs_free(w.acc);
	ccs_free(w.sq);
	ccs_free(w.cap);
	ccs_free(w.at);
	ccs_free(w.mark);
	ccs_free(w.gj);
	return rc;
}
