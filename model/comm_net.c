/* model/comm_net.c: the communicator's network side: NIC types and
** speeds, graph latencies, the fabric's share of each group for all-to-all
** traffic and the tightest cut (comm_int.h). */
#include "comm_int.h"
#include "ring_nic.h"
#include "maxflow.h"
#include "p2p.h"
#include "nccl_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- NICs and the fabric ---- */

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
		int k_ = t->dev[u].kind;
		int through = net == CCS_LAT_HOST ? k_ == CCS_DEV_PCISW || k_ == CCS_DEV_CPU
		                                  : k_ == CCS_DEV_NETSW || k_ == CCS_DEV_SUSW;
		if (u != a && !through)
			continue;
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (net == CCS_LAT_HOST ? !ccs_link_is_host(l->type)
			    : net ? !ccs_link_is_network(l->type) : !ccs_link_is_scaleup(l->type))
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
 * default where a group has scale-up links) r -> d leaves through the GPU
 * of r's node on d's rail (pxn_up below).  The busiest component bounds
 * the time; R_cut = S (n - p) p / n / max_C (up(C) S / n / cap_up(C)),
 * comparable with R_fab (the bisection's). */
/* ccs_comm_net_cut's work arrays, per device: the switch component (uf),
 * the bytes leaving it (up, at) and its capacity out (cap), one pass's
 * per-component sums (acc, sq, mark, touched). */
struct cut_work {
	uint32_t *uf, *touched;
	double *up, *acc, *sq, *cap, *at;
	uint8_t *mark;
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

/* Group q's sums (without PXN) into the bytes leaving each component. */
static void pass_flush(const struct ccs_comm *c, const int32_t *gstart, int q, uint32_t nt, struct cut_work *cw)
{
	for (uint32_t x = 0; x < nt; x++) {
		uint32_t C = cw->touched[x];
		double a = cw->acc[C];
		cw->up[C] += a * (c->n - (gstart[q + 1] - gstart[q])) + cw->P * a * a;
		cw->at[C] += a;
		cw->acc[C] = cw->sq[C] = 0;
		cw->mark[C] = 0;
	}
}

/* The slowest component of tier k: its bytes out over its capacity. */
static void tier_worst(const struct ccs_comm *c, int k, const struct cut_work *cw, double *worst, int *bound)
{
	const struct ccs_topo *t = c->t;
	double unit = 1.0 / c->n;
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

/* With PXN, r -> d (another group) leaves r's node through the GPU on d's
 * rail j and enters at d's NICs: per rail j and group g, with w_xC the
 * weight in C of the ports of the rail-j GPU of node x, p_x the ranks on
 * node x, M_j the ranks on rail j and m_gj those of g,
 *   A_Cjg = sum_{x in g} p_x w_xC   (pairs' sources in C, per S/n)
 *   D_Cjg = sum_{x in g} w_xC       (destinations in C)
 *   up(C) = sum_jg A_Cjg (M_j - m_gj) - P sum_j (A_Cj D_Cj - sum_g A_Cjg D_Cjg)
 * (one rank per node and rail, as on an HGX board, gives the rail-per-group
 * form; an NVL72 domain has 18 trays on each rail). */
static int pxn_up(const struct ccs_comm *c, const int32_t *gstart, const int32_t *members, int L, struct cut_work *cw)
{
	const struct ccs_topo *t = c->t;
	size_t nd = (size_t)t->ndev + 1;
	int nn = t->nnodes > 0 ? t->nnodes : 1;
	int rc = CCS_ENOMEM;
	double *A = ccs_calloc(nd, sizeof *A), *D = ccs_calloc(nd, sizeof *D);
	double *SA = ccs_calloc(nd, sizeof *SA), *SD = ccs_calloc(nd, sizeof *SD), *SAD = ccs_calloc(nd, sizeof *SAD);
	uint32_t *rt = ccs_malloc(nd * sizeof *rt);
	uint8_t *rm = ccs_calloc(nd, 1);
	int32_t *px = ccs_calloc((size_t)nn + 1, sizeof *px), *M = ccs_calloc((size_t)L + 1, sizeof *M);
	if (!A || !D || !SA || !SD || !SAD || !rt || !rm || !px || !M)
		goto out;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
		if (gp->node >= 0 && gp->node < nn)
			px[gp->node]++;
		if (gp->local >= 0 && gp->local < L)
			M[gp->local]++;
	}
	for (int j = 0; j < L; j++) {
		uint32_t nrt = 0;
		for (int g = 0; g < c->G; g++) {
			uint32_t nt = 0;
			int mgj = 0;
			for (int i = gstart[g]; i < gstart[g + 1]; i++) {
				const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[members[i]]];
				if (gp->local != j)
					continue;
				mgj++;
				rank_ports(t, gp, cw, &nt);
				double p = gp->node >= 0 && gp->node < nn ? px[gp->node] : 1;
				/* rank_ports summed this GPU's weights into acc[]: take them
				 * per component for this group's sums */
				for (uint32_t x = 0; x < nt; x++) {
					uint32_t C = cw->touched[x];
					A[C] += p * cw->acc[C];
					D[C] += cw->acc[C];
					cw->acc[C] = 0;
				}
			}
			for (uint32_t x = 0; x < nt; x++) {
				uint32_t C = cw->touched[x];
				cw->up[C] += A[C] * (M[j] - mgj);
				SA[C] += A[C];
				SD[C] += D[C];
				SAD[C] += A[C] * D[C];
				A[C] = D[C] = 0;
				cw->sq[C] = 0;
				cw->mark[C] = 0;
				if (!rm[C]) {
					rm[C] = 1;
					rt[nrt++] = C;
				}
			}
		}
		for (uint32_t x = 0; x < nrt; x++) {
			uint32_t C = rt[x];
			cw->up[C] -= cw->P * (SA[C] * SD[C] - SAD[C]);
			SA[C] = SD[C] = SAD[C] = 0;
			rm[C] = 0;
		}
	}
	rc = CCS_OK;
out:
	ccs_free(A);
	ccs_free(D);
	ccs_free(SA);
	ccs_free(SD);
	ccs_free(SAD);
	ccs_free(rt);
	ccs_free(rm);
	ccs_free(px);
	ccs_free(M);
	return rc;
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
	int32_t L = 0;
	int rc = CCS_ENOMEM;
	if (!w.uf || !w.touched || !w.up || !w.acc || !w.sq || !w.cap || !w.at || !w.mark)
		goto out;
	for (int r = 0; r < c->n; r++)
		if (t->gpu[c->rank_gpu[r]].local + 1 > L)
			L = t->gpu[c->rank_gpu[r]].local + 1;
	double worst = 0;
	for (int k = 1; k < top; k++) {
		tier_components(t, k, &w);
		tier_caps(c, k, &w);
		if (pxn) {
			if ((rc = pxn_up(c, gstart, members, L, &w)))
				goto out;
		} else
			for (int q = 0; q < c->G; q++) {
				uint32_t nt = 0;
				for (int i = gstart[q]; i < gstart[q + 1]; i++)
					rank_ports(t, &t->gpu[c->rank_gpu[members[i]]], &w, &nt);
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
	return rc;
}

/* Each position's node uplinks (a two-tier scale-up plane; up NULL: none),
 * its NICs (its best ones, as ordinals into rate[] with their
 * rates, efficiency applied), its rail and its node's rail table (proxy)
 * for PXN; *nnics the distinct NICs. */
static void p2p_ranks(const struct ccs_comm *c, const int32_t *members, int L, const double *up, int32_t *nic_ord,
                      struct ccs_p2p_rank *pr, int32_t *proxy, uint32_t *ids, double *rate, uint32_t *nnics)
{
	const struct ccs_topo *t = c->t;
	size_t nid = 0, nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	for (uint32_t d = 0; d < t->ndev; d++)
		nic_ord[d] = -1;
	*nnics = 0;
	for (int i = 0; i < c->n; i++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[members[i]]];
		pr[i].group = c->rank_group[members[i]];
		pr[i].up = up && gp->node >= 0 && up[gp->node] > 0 ? gp->node : -1;
		pr[i].rail = gp->local;
		pr[i].proxy0 = gp->node >= 0 && gp->node < (int32_t)nn ? gp->node * L : -1;
		if (pr[i].proxy0 >= 0 && gp->local >= 0)
			proxy[pr[i].proxy0 + gp->local] = i;
		pr[i].nic0 = (uint32_t)nid;
		pr[i].nnic = ccs_topo_best_nics(t, gp);
		for (uint32_t k = 0; k < pr[i].nnic; k++) {
			uint32_t x = t->gnic[gp->nic_first + k].nic;
			if (nic_ord[x] < 0) {
				nic_ord[x] = (int32_t)*nnics;
				double r = ccs_topo_nic_speed(t, x) * c->prm.eff[ccs_topo_nic_net_type(t, x)];
				/* a dead NIC: the ranks on it are refused earlier */
				rate[(*nnics)++] = r > 0 ? r : 1;
			}
			ids[nid++] = (uint32_t)nic_ord[x];
		}
	}
}

int ccs_comm_su_uplinks(const struct ccs_comm *c, double *up)
{
	const struct ccs_topo *t = c->t;
	if (!ccs_topo_su_uplinks(t, up))
		return 0;
	for (int32_t n = 0; n < t->nnodes; n++)
		up[n] = 0;
	for (uint32_t l = 0; l < t->nlink; l++) {
		int32_t n = ccs_topo_su_uplink_node(t, l);
		if (n >= 0 && n < t->nnodes)
			up[n] += t->link[l].bw_Bps * c->prm.eff[t->link[l].type];
	}
	return 1;
}

/* b_up and up_q (comm.h) from the node uplinks up[0 .. nup). */
static void uplink_share(struct ccs_comm *c, const double *up, uint32_t nup)
{
	const struct ccs_topo *t = c->t;
	int32_t *q = nup ? ccs_calloc(nup, sizeof *q) : NULL;
	if (!q)
		return;
	for (int r = 0; r < c->n; r++) {
		int32_t k = t->gpu[c->rank_gpu[r]].node;
		if (k >= 0 && (uint32_t)k < nup)
			q[k]++;
	}
	for (uint32_t k = 0; k < nup; k++)
		if (q[k] && up[k] > 0 && (c->b_up == 0 || up[k] / q[k] < c->b_up)) {
			c->b_up = up[k] / q[k];
			c->up_q = q[k];
		}
	ccs_free(q);
}

/* NCCL's AllToAll rounds on c (p2p.h): ranks in group order (positions),
 * NCCL's nodes the groups. */
int ccs_comm_net_p2p(struct ccs_comm *c, const int32_t *gstart, const int32_t *members, const double *gnet)
{
	const struct ccs_topo *t = c->t;
	c->a2a_K = c->a2a_K_up = c->b_up = 0;
	c->up_q = 0;
	c->a2a_wave = 1;
	/* the group whose own ranks' bytes to the others take its NICs longest
	 * (groups of unequal size: a part-filled rack) */
	c->a2a_grp = 0;
	for (int g = 0; g < c->G && c->G > 1; g++) {
		double pg = gstart[g + 1] - gstart[g];
		double tg = gnet[g] > 0 ? pg * (c->n - pg) / c->n / gnet[g] : 0;
		if (tg > c->a2a_grp)
			c->a2a_grp = tg;
	}
	if (c->n < 2)
		return CCS_OK;
	int L = 1, rc = CCS_ENOMEM;
	size_t nid = 0;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
		if (gp->local + 1 > L)
			L = gp->local + 1;
		nid += ccs_topo_best_nics(t, gp);
	}
	size_t nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	struct ccs_p2p_order o;
	memset(&o, 0, sizeof o);
	int32_t *sizes = ccs_malloc(((size_t)c->G + 1) * sizeof *sizes);
	int32_t *proxy = ccs_malloc(nn * (size_t)L * sizeof *proxy);
	int32_t *nic_ord = ccs_malloc(((size_t)t->ndev + 1) * sizeof *nic_ord);
	struct ccs_p2p_rank *pr = ccs_calloc((size_t)c->n, sizeof *pr);
	uint32_t *ids = ccs_malloc((nid + 1) * sizeof *ids);
	double *rate = ccs_malloc(((size_t)t->ndev + 1) * sizeof *rate);
	double *up = ccs_calloc(nn, sizeof *up);
	if (!sizes || !proxy || !nic_ord || !pr || !ids || !rate || !up)
		goto out;
	uint32_t nup = ccs_comm_su_uplinks(c, up) ? (uint32_t)nn : 0;
	uplink_share(c, up, nup);
	for (int g = 0; g < c->G; g++)
		sizes[g] = gstart[g + 1] - gstart[g];
	if ((rc = ccs_p2p_order_init(&o, c->n, sizes, c->G)))
		goto out;
	for (size_t i = 0; i < nn * (size_t)L; i++)
		proxy[i] = -1;
	uint32_t nnics;
	p2p_ranks(c, members, L, nup ? up : NULL, nic_ord, pr, proxy, ids, rate, &nnics);
	c->a2a_wave = ccs_p2p_wave(o.m, c->ring_C, c->G > 1);
	struct ccs_p2p_in in = { &o, pr, proxy, L, ids, rate, nnics, c->b_su, up, nup, c->intra_nvl && c->p > 1,
	                         c->a2a_wave };
	struct ccs_p2p_out res;
	if ((rc = ccs_p2p_batches(&in, &res)))
		goto out;
	c->a2a_K = res.K;
	c->a2a_K_up = res.K_up;
out:
	ccs_p2p_order_release(&o);
	ccs_free(sizes);
	ccs_free(proxy);
	ccs_free(nic_ord);
	ccs_free(pr);
	ccs_free(ids);
	ccs_free(rate);
	ccs_free(up);
	return rc;
}

int ccs_comm_net_rings(struct ccs_comm *c, const int32_t *gstart, const int32_t *members)
{
	const struct ccs_topo *t = c->t;
	struct ccs_comm_ch *x = &c->ch[c->ring_C];   /* ring_C <= 64: params_yaml.c, nccl_tune.c */
	memset(c->ch_done, 0, sizeof c->ch_done);
	CCS_TRY(ccs_ring_nic_rate(t, c->rank_gpu, c->n, gstart, members, c->G, c->ring_C, c->prm.eff, &x->B_ring));
	CCS_TRY(ccs_ring_nic_tree(t, c->rank_gpu, gstart, members, c->G, c->ring_C, c->nccl.nics, &x->tg, &x->tph));
	c->ch_done[c->ring_C] = 1;
	return CCS_OK;
}
