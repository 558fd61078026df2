/* model/cost.c: communicator geometry from the graph, and our cost model (cost.h). */
#include "cost.h"
#include "maxflow.h"
#include "nccl_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const ccs_bound_name[CCS_BOUND_N] = {
	"latency", "nvlink", "pcie", "c2c", "ub", "hccs", "smp", "nic", "leaf", "spine", "core",
	"reduce", "protocol",
};

static int bound_of_link(int type)
{
	switch (type) {
	case CCS_LINK_NVLINK: return CCS_BOUND_NVLINK;
	case CCS_LINK_C2C: return CCS_BOUND_C2C;
	case CCS_LINK_PCIE: return CCS_BOUND_PCIE;
	case CCS_LINK_SMP: return CCS_BOUND_SMP;
	case CCS_LINK_UB: return CCS_BOUND_UB;
	case CCS_LINK_HCCS: return CCS_BOUND_HCCS;
	default: return CCS_BOUND_NIC;
	}
}

void ccs_comm_release(struct ccs_comm *c)
{
	ccs_free(c->rank_gpu);
	ccs_free(c->rank_group);
	memset(c, 0, sizeof *c);
}

/* ---- ranks and groups ---- */

/* Ranks on the GPUs of gpus[0..nranks) when gpus is given (a job's
 * placement), else the first nranks GPUs (at most ppn per node). */
static int pick_ranks(const struct ccs_topo *t, int nranks, int ppn, const uint32_t *place_gpus,
                      struct ccs_comm *c, char *err, size_t errn)
{
	int place_n = nranks;
	if (place_gpus) {
		c->rank_gpu = ccs_malloc((size_t)place_n * sizeof *c->rank_gpu);
		c->rank_group = ccs_malloc((size_t)place_n * sizeof *c->rank_group);
		if (!c->rank_gpu || !c->rank_group)
			return CCS_ENOMEM;
		for (int i = 0; i < place_n; i++) {
			if (place_gpus[i] >= t->ngpu) {
				snprintf(err, errn, "gpu %u is not one of the %u gpus of %s", place_gpus[i], t->ngpu, t->name);
				return CCS_EINPUT;
			}
			for (int j = 0; j < i; j++)
				if (place_gpus[j] == place_gpus[i]) {
					snprintf(err, errn, "gpu %u is placed twice", place_gpus[i]);
					return CCS_EINPUT;
				}
			c->rank_gpu[i] = place_gpus[i];
		}
		c->n = place_n;
		return CCS_OK;
	}
	uint32_t avail = 0;
	for (uint32_t g = 0; g < t->ngpu; g++)
		avail += ppn <= 0 || t->gpu[g].local < ppn;
	if (nranks <= 0)
		nranks = (int)avail;
	if ((uint32_t)nranks > avail) {
		if (ppn > 0)
			snprintf(err, errn, "%d ranks requested, but %s has %u gpus at %d per node", nranks, t->name, avail, ppn);
		else
			snprintf(err, errn, "%d ranks requested, but %s has %u gpus", nranks, t->name, avail);
		return CCS_EINPUT;
	}
	if (nranks < 1) {
		snprintf(err, errn, "a communicator needs at least 1 rank");
		return CCS_EINPUT;
	}
	c->rank_gpu = ccs_malloc((size_t)nranks * sizeof *c->rank_gpu);
	c->rank_group = ccs_malloc((size_t)nranks * sizeof *c->rank_group);
	if (!c->rank_gpu || !c->rank_group)
		return CCS_ENOMEM;
	int k = 0;
	for (uint32_t g = 0; g < t->ngpu && k < nranks; g++)
		if (ppn <= 0 || t->gpu[g].local < ppn)
			c->rank_gpu[k++] = g;
	c->n = nranks;
	return CCS_OK;
}

/* Group key: the scale-up domain when it holds more than one GPU, else the
 * node.  Groups are numbered in order of first appearance. */
static int make_groups(const struct ccs_topo *t, struct ccs_comm *c)
{
	int32_t *domsize = ccs_calloc((size_t)t->ndomains + 1, sizeof *domsize);
	int32_t *map = ccs_malloc(((size_t)t->ndomains + (size_t)t->nnodes + 2) * sizeof *map);
	int32_t *cnt = ccs_calloc((size_t)c->n + 1, sizeof *cnt);
	int32_t *nodeseen = ccs_calloc((size_t)t->nnodes + 1, sizeof *nodeseen);
	int rc = CCS_ENOMEM;
	if (!domsize || !map || !cnt || !nodeseen)
		goto out;
	for (uint32_t g = 0; g < t->ngpu; g++)
		domsize[t->gpu[g].domain]++;
	for (int32_t i = 0; i < t->ndomains + t->nnodes + 1; i++)
		map[i] = -1;
	c->G = 0;
	c->nnodes = 0;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
		int32_t key = domsize[gp->domain] > 1 ? gp->domain : t->ndomains + (gp->node < 0 ? 0 : gp->node);
		if (map[key] < 0)
			map[key] = c->G++;
		c->rank_group[r] = map[key];
		cnt[map[key]]++;
		int32_t nd = gp->node < 0 ? 0 : gp->node;
		if (!nodeseen[nd]) {
			nodeseen[nd] = 1;
			c->nnodes++;
		}
	}
	c->p = 0;
	c->p_min = c->n;
	for (int i = 0; i < c->G; i++) {
		if (cnt[i] > c->p) c->p = cnt[i];
		if (cnt[i] < c->p_min) c->p_min = cnt[i];
	}
	rc = CCS_OK;
out:
	ccs_free(domsize);
	ccs_free(map);
	ccs_free(cnt);
	ccs_free(nodeseen);
	return rc;
}

/* ---- intra-group bandwidth ---- */

static int link_allowed(const struct ccs_link *l, int scaleup)
{
	return scaleup ? ccs_link_is_scaleup(l->type) : ccs_link_is_host(l->type);
}

/* Min over members v of the max-flow from the first member to v, inside the
 * group's scale-up (or host) subgraph.  vx, queue: scratch of ndev entries,
 * vx all -1 on entry and on return. */
static int group_bw(const struct ccs_comm *c, const int32_t *members, int m, int scaleup,
                    int32_t *vx, uint32_t *queue, double *out, int *bound)
{
	const struct ccs_topo *t = c->t;
	struct ccs_flownet f;
	memset(&f, 0, sizeof f);
	uint32_t nv = 0, qh = 0, qt = 0;
	int rc = CCS_OK;
	/* Devices reachable from the members over allowed links; through
	 * switches and CPUs, and other GPUs of the same node or domain. */
	for (int i = 0; i < m; i++) {
		uint32_t d = t->gpu[c->rank_gpu[members[i]]].dev;
		if (vx[d] < 0) {
			vx[d] = (int32_t)nv++;
			queue[qt++] = d;
		}
	}
	int32_t node0 = t->dev[queue[0]].node;
	while (qh < qt) {
		uint32_t u = queue[qh++];
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			uint32_t v = t->adj_nbr[k];
			if (!link_allowed(l, scaleup) || vx[v] >= 0)
				continue;
			if (!scaleup && t->dev[v].node != node0)
				continue;
			vx[v] = (int32_t)nv++;
			queue[qt++] = v;
		}
	}
	f.nv = nv;
	int btype = -1;
	double bmin = HUGE_VAL;
	for (uint32_t i = 0; i < qt; i++) {
		uint32_t u = queue[i];
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			uint32_t v = t->adj_nbr[k];
			if (!link_allowed(l, scaleup) || vx[v] < 0 || u > v)
				continue;
			double cap = l->bw_Bps * c->prm.eff[l->type];
			if ((rc = ccs_flownet_add(&f, (uint32_t)vx[u], (uint32_t)vx[v], cap, cap)))
				goto out;
			if (cap < bmin) {
				bmin = cap;
				btype = l->type;
			}
		}
	}
	double best = HUGE_VAL;
	for (int i = 1; i < m; i++) {
		double v = 0;
		ccs_flownet_reset(&f);
		uint32_t dv = t->gpu[c->rank_gpu[members[i]]].dev;
		if ((rc = ccs_maxflow(&f, (uint32_t)vx[queue[0]], (uint32_t)vx[dv], &v)))
			goto out;
		if (v < best)
			best = v;
	}
	*out = best;
	*bound = btype >= 0 ? bound_of_link(btype) : (scaleup ? CCS_BOUND_NVLINK : CCS_BOUND_PCIE);
out:
	for (uint32_t i = 0; i < qt; i++)
		vx[queue[i]] = -1;
	ccs_flownet_release(&f);
	return rc;
}

/* ---- NICs and the fabric ---- */

static int nic_type(const struct ccs_topo *t, uint32_t nic)
{
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++)
		if (ccs_link_is_network(t->link[t->adj[k]].type))
			return t->link[t->adj[k]].type;
	return CCS_LINK_IB;
}

static double nic_speed(const struct ccs_topo *t, uint32_t nic)
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
static double path_latency(const struct ccs_topo *t, uint32_t a, uint32_t b, int net, int32_t *dist,
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

static int fabric_share(struct ccs_comm *c, const uint32_t *nic_of_rank)
{
	const struct ccs_topo *t = c->t;
	if (c->G < 2)
		return CCS_OK;
	int32_t *vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *vx);
	int8_t *side = NULL;
	struct ccs_flownet f;
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
		if ((rc = ccs_flownet_add(&f, (uint32_t)vx[l->a], (uint32_t)vx[l->b], cap, cap)))
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
		rc = a ? ccs_flownet_add(&f, 0, (uint32_t)vx[d], big, 0) : ccs_flownet_add(&f, (uint32_t)vx[d], 1, big, 0);
		if (rc)
			goto out;
	}
	double bis = 0;
	if ((rc = ccs_maxflow(&f, 0, 1, &bis)))
		goto out;
	(void)first_edge;
	double G = c->G;
	c->R_fab = 4.0 * bis * (G - 1) / (G * G);
	/* Which tier limits: the highest tier among saturated network links. */
	c->fab_bound = CCS_BOUND_NIC;
	if (c->R_fab < c->B_net * 0.999) {
		int tier = 0;
		for (uint32_t e = 0; e < first_edge; e++) {
			double fl = fabs(ccs_flownet_flow(&f, e));
			double cap = f.c0[2 * e];
			if (cap <= 0 || fl < cap * 0.999)
				continue;
			/* the lower end's tier: NIC-leaf 0, leaf-spine 1, spine-core 2 */
			const struct ccs_link *l = NULL;
			uint32_t u = f.eu[e], v = f.ev[e];
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
		c->fab_bound = tier >= 2 ? CCS_BOUND_SPINE : tier == 1 ? CCS_BOUND_LEAF : CCS_BOUND_NIC;
		if (tier >= 3)
			c->fab_bound = CCS_BOUND_CORE;
	}
	rc = CCS_OK;
out:
	ccs_free(vx);
	ccs_free(side);
	ccs_flownet_release(&f);
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
static int cut_share(struct ccs_comm *c, const int32_t *gstart, const int32_t *members, double *R, int *bound)
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
	double P = t->fab.planes > 1 ? t->fab.planes : 1;
	int pxn = c->intra_nvl && c->p > 1;
	size_t nd = (size_t)t->ndev + 1;
	uint32_t *uf = ccs_malloc(nd * sizeof *uf), *touched = ccs_malloc(nd * sizeof *touched);
	double *up = ccs_malloc(nd * sizeof *up), *acc = ccs_calloc(nd, sizeof *acc), *sq = ccs_calloc(nd, sizeof *sq);
	double *cap = ccs_malloc(nd * sizeof *cap), *at = ccs_malloc(nd * sizeof *at);
	uint8_t *mark = ccs_calloc(nd, 1);
	int32_t *gj = NULL;
	int32_t L = 0;
	int rc = CCS_ENOMEM;
	if (!uf || !touched || !up || !acc || !sq || !cap || !at || !mark)
		goto out;
	for (int r = 0; r < c->n; r++)
		if (t->gpu[c->rank_gpu[r]].local + 1 > L)
			L = t->gpu[c->rank_gpu[r]].local + 1;
	if (pxn) {
		if (!(gj = ccs_calloc((size_t)L + 1, sizeof *gj)))
			goto out;
		for (int r = 0; r < c->n; r++)
			if (t->gpu[c->rank_gpu[r]].local >= 0)
				gj[t->gpu[c->rank_gpu[r]].local]++;
	}
	double worst = 0;
	for (int k = 1; k < top; k++) {
		/* components of the switches of tiers <= k */
		for (uint32_t d = 0; d < t->ndev; d++)
			uf[d] = d;
		for (uint32_t i = 0; i < t->nlink; i++) {
			const struct ccs_link *l = &t->link[i];
			if (t->dev[l->a].kind != CCS_DEV_NETSW || t->dev[l->b].kind != CCS_DEV_NETSW ||
			    t->dev[l->a].tier > k || t->dev[l->b].tier > k)
				continue;
			uint32_t a = l->a, b = l->b;
			while (uf[a] != a)
				a = uf[a] = uf[uf[a]];
			while (uf[b] != b)
				b = uf[b] = uf[uf[b]];
			if (a != b)
				uf[a > b ? a : b] = a > b ? b : a;
		}
		for (uint32_t d = 0; d < t->ndev; d++) {
			uint32_t x = d;
			while (uf[x] != x)
				x = uf[x];
			uf[d] = x;
			up[d] = cap[d] = at[d] = 0;
		}
		/* capacity out of each component, one way */
		for (uint32_t i = 0; i < t->nlink; i++) {
			const struct ccs_link *l = &t->link[i];
			if (t->dev[l->a].kind != CCS_DEV_NETSW || t->dev[l->b].kind != CCS_DEV_NETSW || !ccs_link_live(l))
				continue;
			int ta = t->dev[l->a].tier, tb = t->dev[l->b].tier;
			if (ta == k && tb == k + 1)
				cap[uf[l->a]] += l->bw_Bps * c->prm.eff[l->type];
			else if (tb == k && ta == k + 1)
				cap[uf[l->b]] += l->bw_Bps * c->prm.eff[l->type];
		}
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
				/* the rank's ports: its usable NICs' live links to switches,
				 * summed per component (mine: up to 16 of them) */
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
							uint32_t C = uf[sw];
							double w = l->bw_Bps / tot;
							if (!mark[C]) {
								mark[C] = 1;
								touched[nt++] = C;
							}
							acc[C] += w;
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
					sq[mc[m]] += mw[m] * mw[m];
			}
			for (uint32_t x = 0; x < nt; x++) {
				uint32_t C = touched[x];
				double a = acc[C];
				if (pxn)
					up[C] += a * (gj[q] - 1) - P * (a * a - sq[C]);
				else {
					up[C] += a * (c->n - (gstart[q + 1] - gstart[q])) + P * a * a;
					at[C] += a;
				}
				acc[C] = sq[C] = 0;
				mark[C] = 0;
			}
		}
		double unit = pxn ? (double)c->p / c->n : 1.0 / c->n;
		for (uint32_t d = 0; d < t->ndev; d++) {
			if (uf[d] != d || !(cap[d] > 0))
				continue;
			double u = up[d] - (pxn ? 0 : P * at[d] * at[d]);
			double T = u * unit / cap[d];
			if (T > worst) {
				worst = T;
				*bound = k == 1 ? CCS_BOUND_LEAF : k == 2 ? CCS_BOUND_SPINE : CCS_BOUND_CORE;
			}
		}
	}
	if (worst > 0)
		*R = (double)(c->n - c->p) * c->p / c->n / worst;
	rc = CCS_OK;
out:
	ccs_free(uf);
	ccs_free(touched);
	ccs_free(up);
	ccs_free(acc);
	ccs_free(sq);
	ccs_free(cap);
	ccs_free(at);
	ccs_free(mark);
	ccs_free(gj);
	return rc;
}

/* ---- NCCL's view of the graph (its search, approximated) ---- */

static void nccl_graph(struct ccs_comm *c)
{
	const double *spd = ccs_nccl_speed_intra(c->arch);
	int nspd = ccs_nccl_speed_intra_n(c->arch);
	double total = c->intra_nvl ? c->nccl_nvl_bw : c->nccl_pci_bw;
	if (c->p <= 1)
		total = c->nccl_net_bw > 0 ? c->nccl_net_bw : total;
	/* The fastest per-channel speed at which at least 4 channels fit (or the
	 * most that fit), up to 16 search channels. */
	double s = spd[nspd - 1];
	int nch = 1;
	for (int i = 0; i < nspd; i++) {
		int k = (int)floor(total / spd[i] + 1e-9);
		if (k >= 4 || (i == nspd - 1 && k >= 1)) {
			s = spd[i];
			nch = k > 16 ? 16 : k;
			break;
		}
	}
	if (total < s) {
		s = total > 0 ? total : 1;
		nch = 1;
	}
	c->nch_ring = nch;
	c->bw_intra = s;
	c->bw_inter = s;
	if (c->G > 1 && c->nccl_net_bw > 0) {
		/* Inter-node rings: one channel per NIC, each as fast as its NIC and
		 * the GPUs' links allow. */
		const double *si = ccs_nccl_speed_inter(c->arch);
		int nsi = ccs_nccl_speed_inter_n(c->arch);
		int k = c->nics > 0 ? c->nics : 1;
		if (k > 16)
			k = 16;
		double per = c->nccl_net_bw / k;
		double cap = (c->p > 1 ? total : per * k) / k;
		double lim = per < cap ? per : cap;
		double v = si[nsi - 1];
		for (int i = 0; i < nsi; i++)
			if (si[i] <= lim + 1e-9) {
				v = si[i];
				break;
			}
		c->nch_ring = k;
		c->bw_inter = v;
		c->bw_intra = v;
	}
	c->nvls_channels = c->prm.nvls_channels ? c->prm.nvls_channels
	                 : c->arch >= CCS_ARCH_BLACKWELL ? (c->G > 1 ? 32 : 24) : 16;
}

static int comm_build(const struct ccs_topo *t, int nranks, int ppn, const uint32_t *gpus, struct ccs_comm *c,
                      char *err, size_t errn);

/* A rank without GPUDirect RDMA stages its network traffic in host memory:
 * out of the GPU to its CPU, then to the NIC (and back the same way).
 * Behind a PCIe switch, the switch's link to the CPU carries, each way,
 * two streams per such rank under it (the GPU's and its NIC's): the rank
 * gets that link over twice those ranks, at most its own link (host). */
static double staged_cap(const struct ccs_topo *t, const struct ccs_comm *c, const struct ccs_gpu *gp, double host)
{
	for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++) {
		const struct ccs_link *l = &t->link[t->adj[k]];
		uint32_t sw = t->adj_nbr[k];
		if (l->type != CCS_LINK_PCIE || t->dev[sw].kind != CCS_DEV_PCISW)
			continue;
		double up = 0;
		for (uint32_t j = t->adj_off[sw]; j < t->adj_off[sw + 1]; j++)
			if (t->dev[t->adj_nbr[j]].kind == CCS_DEV_CPU && ccs_link_live(&t->link[t->adj[j]]))
				up += t->link[t->adj[j]].bw_Bps * c->prm.eff[CCS_LINK_PCIE];
		int users = 0;
		for (int r = 0; r < c->n; r++) {
			const struct ccs_gpu *o = &t->gpu[c->rank_gpu[r]];
			if (!o->no_gdr)
				continue;
			for (uint32_t j = t->adj_off[o->dev]; j < t->adj_off[o->dev + 1]; j++)
				users += t->adj_nbr[j] == sw;
		}
		if (up > 0 && users > 0 && up / (2.0 * users) < host)
			host = up / (2.0 * users);
		break;
	}
	return host;
}

int ccs_comm_build(const struct ccs_topo *t, int nranks, int ppn, struct ccs_comm *c, char *err, size_t errn)
{
	return comm_build(t, nranks, ppn, NULL, c, err, errn);
}

int ccs_comm_build_gpus(const struct ccs_topo *t, const uint32_t *gpus, int n, struct ccs_comm *c, char *err,
                        size_t errn)
{
	if (n < 1) {
		memset(c, 0, sizeof *c);
		snprintf(err, errn, "a communicator needs at least 1 rank");
		return CCS_EINPUT;
	}
	return comm_build(t, n, 0, gpus, c, err, errn);
}

static int comm_build(const struct ccs_topo *t, int nranks, int ppn, const uint32_t *gpus, struct ccs_comm *c,
                      char *err, size_t errn)
{
	memset(c, 0, sizeof *c);
	c->t = t;
	c->prm = t->params;
	int rc = pick_ranks(t, nranks, ppn, gpus, c, err, errn);
	if (!rc)
		rc = make_groups(t, c);
	if (rc) {
		if (rc == CCS_ENOMEM)
			snprintf(err, errn, "out of memory");
		ccs_comm_release(c);
		return rc;
	}
	/* faults: a group cut off from the others (every NIC of a rank down)
	 * hangs the communicator; a straggler delays every collective */
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *g = &t->gpu[c->rank_gpu[r]];
		if (g->delay_s > c->late_s)
			c->late_s = g->delay_s;
		if (c->G > 1 && !g->nic_count) {
			/* name the node's dead NICs: two, then how many more */
			char fl[200] = "";
			int nd = 0;
			for (uint32_t d = 0; d < t->ndev; d++) {
				if (t->dev[d].kind != CCS_DEV_NIC || t->dev[d].node != g->node)
					continue;
				if (nd < 2) {
					size_t l = strlen(fl);
					snprintf(fl + l, sizeof fl - l, "%s%s", nd ? ", " : "", t->dev[d].name);
				}
				nd++;
			}
			if (nd > 2) {
				size_t l = strlen(fl);
				snprintf(fl + l, sizeof fl - l, " and %d more", nd - 2);
			}
			snprintf(err, errn, "hang: rank %d (%s) has no working nic to reach the other %s (down: %s); the collective cannot complete",
			         r, t->dev[g->dev].name, c->G == 2 ? "group" : "groups", nd ? fl : "its node has none");
			ccs_comm_release(c);
			return CCS_EINPUT;
		}
	}
	int32_t *vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *vx);
	uint32_t *queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *queue);
	uint32_t *parent = ccs_malloc(((size_t)t->ndev + 1) * sizeof *parent);
	int32_t *members = NULL, *gstart = NULL;
	uint32_t *nic_of_rank = ccs_malloc(((size_t)c->n + 1) * sizeof *nic_of_rank);
	uint32_t *nic_users = ccs_calloc((size_t)t->ndev + 1, sizeof *nic_users);
	double *gnet = ccs_calloc((size_t)c->G + 1, sizeof *gnet);
	int32_t *gnics = ccs_calloc((size_t)c->G + 1, sizeof *gnics);
	double *gmin = ccs_calloc((size_t)c->G + 1, sizeof *gmin);      /* slowest NIC of each group */
	double *hmin = ccs_calloc((size_t)c->G + 1, sizeof *hmin);      /* slowest rank's PCIe link */
	int32_t *hcnt = ccs_calloc((size_t)c->G + 1, sizeof *hcnt);
	rc = CCS_ENOMEM;
	if (!vx || !queue || !parent || !nic_of_rank || !nic_users || !gnet || !gnics || !gmin || !hmin || !hcnt ||
	    ccs_comm_members(c, &gstart, &members))
		goto out;
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;

	/* Architecture, memory bandwidth, NCCL's per-GPU link figures. */
	c->arch = CCS_ARCH_BLACKWELL;
	c->mem_bw = HUGE_VAL;
	c->nccl_nvl_bw = HUGE_VAL;
	c->nccl_pci_bw = HUGE_VAL;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_dev *d = &t->dev[t->gpu[c->rank_gpu[r]].dev];
		if (d->arch < c->arch)
			c->arch = d->arch;
		if (d->bw_Bps < c->mem_bw)
			c->mem_bw = d->bw_Bps;
	}
	if (!(c->mem_bw > 0) || isinf(c->mem_bw))
		c->mem_bw = 0;
	{
		uint32_t d0 = t->gpu[c->rank_gpu[0]].dev;
		double nvl = 0, pci = 0;
		int lanes = 0;
		for (uint32_t k = t->adj_off[d0]; k < t->adj_off[d0 + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (l->type == CCS_LINK_NVLINK)
				lanes += l->lanes;
			else if (ccs_link_is_scaleup(l->type))
				nvl += l->bw_Bps / 1e9;
			if (l->type == CCS_LINK_PCIE && pci == 0)
				pci = l->bw_Bps / 1e9 * (24.0 / 31.5);   /* NCCL: width x speed / 80 */
		}
		c->nccl_nvl_bw = nvl + lanes * ccs_nccl_nvlink_bw(c->arch);
		c->nccl_pci_bw = pci > 0 ? pci : 12.0;
	}

	/* Intra-group bandwidth: the scale-up subgraph when the group is a
	 * domain, else the node's host links. */
	c->b_su = HUGE_VAL;
	c->su_bound = CCS_BOUND_NVLINK;
	c->intra_nvl = 0;
	for (int g = 0; g < c->G; g++) {
		int m = gstart[g + 1] - gstart[g];
		if (m < 2)
			continue;
		const struct ccs_gpu *g0 = &t->gpu[c->rank_gpu[members[gstart[g]]]];
		int scaleup = g0->su_bw_Bps > 0;
		/* both ends in one domain: scale-up; else host links */
		const struct ccs_gpu *g1 = &t->gpu[c->rank_gpu[members[gstart[g] + 1]]];
		if (g1->domain != g0->domain)
			scaleup = 0;
		double bw = 0;
		int bound = CCS_BOUND_NVLINK;
		if ((rc = group_bw(c, members + gstart[g], m, scaleup, vx, queue, &bw, &bound)))
			goto out;
		if (bw < c->b_su) {
			c->b_su = bw;
			c->su_bound = bound;
		}
		if (g == 0)
			c->intra_nvl = scaleup;
	}
	if (isinf(c->b_su))
		c->b_su = 0;

	/* NICs: each rank may use every NIC of its node that is as close as its
	 * best one (NCCL spreads channels over them); a group's NIC bandwidth
	 * is the union of its ranks' sets, a rank's share divides each NIC by
	 * the ranks that may use it.  As NCCL spreads channels evenly over a
	 * group's NICs and ranks, the group moves at most at its slowest NIC
	 * times their number and its slowest rank's PCIe link times its ranks:
	 * one NIC at half rate, or one GPU whose PCIe link trained at x8, slows
	 * every channel's step (the same as the sums when all are alike). */
	c->b_nic = c->b_nic1 = HUGE_VAL;
	c->net_type = CCS_LINK_IB;
	for (int pass = 0; pass < 2; pass++) {
		for (int r = 0; r < c->n; r++) {
			const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
			int g = c->rank_group[r];
			nic_of_rank[r] = gp->nic_count ? t->gnic[gp->nic_first].nic : UINT32_MAX;
			if (!gp->nic_count) {
				if (pass)
					c->b_nic = c->b_nic1 = 0;
				continue;
			}
			uint32_t nbest = ccs_topo_best_nics(t, gp);
			double share = 0, alone = 0;
			for (uint32_t i = 0; i < nbest; i++) {
				const struct ccs_gpu_nic *e = &t->gnic[gp->nic_first + i];
				if (!pass) {
					nic_users[e->nic]++;
					continue;
				}
				c->net_type = nic_type(t, e->nic);
				double bw = nic_speed(t, e->nic) * c->prm.eff[c->net_type];
				share += bw / (nic_users[e->nic] & 0x7fffffffu);
				alone += bw;
				/* count each NIC once per group: mark it with the group */
				if (vx[e->nic] != g) {
					gnet[g] += bw;
					if (!gnics[g] || bw < gmin[g])
						gmin[g] = bw;
					gnics[g]++;
					vx[e->nic] = g;
				}
			}
			if (!pass)
				continue;
			/* GPUDirect traffic crosses the GPU's own PCIe link: it caps
			 * what the rank can drive; staged through host memory (GPUDirect
			 * off) it shares its switch's link to the CPU as well.  Where
			 * the GPU has a link straight to one of its NICs (Ascend 910B's
			 * integrated RoCE port), those links alone carry its traffic. */
			double host = 0, direct = 0;
			for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++) {
				const struct ccs_link *l = &t->link[t->adj[k]];
				if (l->type != CCS_LINK_PCIE)
					continue;
				host += l->bw_Bps * c->prm.eff[l->type];
				uint32_t other = l->a == gp->dev ? l->b : l->a;
				for (uint32_t i = 0; i < nbest; i++) {
					const struct ccs_gpu_nic *e = &t->gnic[gp->nic_first + i];
					if (e->nic == other) {
						direct += l->bw_Bps * c->prm.eff[l->type];
						break;
					}
				}
			}
			if (direct > 0)
				host = direct;
			if (host > 0 && host < share)
				share = host;
			if (share < c->b_nic)
				c->b_nic = share;
			if (host > 0 && host < alone)
				alone = host;
			if (alone < c->b_nic1)
				c->b_nic1 = alone;
			double hcap = gp->no_gdr ? staged_cap(t, c, gp, host) : host;
			if (hcap > 0) {
				if (!hcnt[g] || hcap < hmin[g])
					hmin[g] = hcap;
				hcnt[g]++;
			}
		}
	}
	for (int g = 0; g < c->G; g++) {
		if (hcnt[g] && hcnt[g] * hmin[g] < gnet[g])
			gnet[g] = hcnt[g] * hmin[g];
		if (gnics[g] && gnics[g] * gmin[g] < gnet[g])
			gnet[g] = gnics[g] * gmin[g];
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;
	c->B_net = HUGE_VAL;
	c->nics = 1 << 30;
	for (int g = 0; g < c->G; g++) {
		if (gnet[g] < c->B_net)
			c->B_net = gnet[g];
		if (gnics[g] < c->nics)
			c->nics = gnics[g];
	}
	if (isinf(c->B_net))
		c->B_net = 0;
	if (isinf(c->b_nic))
		c->b_nic = 0;
	if (isinf(c->b_nic1))
		c->b_nic1 = 0;
	if (c->G > 1 && (c->B_net <= 0 || c->b_nic <= 0)) {
		snprintf(err, errn, "ranks span %d groups but some rank has no nic to reach the others", c->G);
		rc = CCS_EINPUT;
		goto out;
	}
	c->nccl_net_bw = c->B_net / c->prm.eff[c->net_type] / 1e9;
	c->R_fab = c->B_net;
	c->fab_bound = CCS_BOUND_NIC;
	if ((rc = fabric_share(c, nic_of_rank)))
		goto out;
	{
		double Rc;
		int bc;
		if ((rc = cut_share(c, gstart, members, &Rc, &bc)))
			goto out;
		if (Rc < c->R_fab) {
			c->R_fab = Rc;
			c->fab_bound = Rc < c->B_net * 0.999 ? bc : c->fab_bound;
		}
	}

	/* Capabilities: NVLS when every group's GPUs reach only multicast and
	 * reducing scale-up switches; SHARP when every NIC's switch reduces. */
	c->nvls = c->p > 1;
	for (int r = 0; r < c->n && c->nvls; r++) {
		uint32_t d = t->gpu[c->rank_gpu[r]].dev;
		int sw = 0;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
			uint32_t v = t->adj_nbr[k];
			if (t->dev[v].kind != CCS_DEV_SUSW)
				continue;
			sw = 1;
			unsigned need = CCS_DEVF_MULTICAST | CCS_DEVF_REDUCE;
			if ((t->dev[v].flags & need) != need)
				c->nvls = 0;
		}
		if (!sw)
			c->nvls = 0;
	}
	c->sharp = c->G > 1;
	for (int r = 0; r < c->n && c->sharp; r++) {
		uint32_t nic = nic_of_rank[r];
		if (nic == UINT32_MAX)
			continue;
		for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++) {
			uint32_t v = t->adj_nbr[k];
			if (t->dev[v].kind == CCS_DEV_NETSW && !(t->dev[v].flags & CCS_DEVF_REDUCE))
				c->sharp = 0;
		}
	}

	/* Graph latencies of one intra hop and one network traversal. */
	if (c->n > 1 && c->rank_group[1] == c->rank_group[0] && c->intra_nvl)
		c->lat_intra = path_latency(t, t->gpu[c->rank_gpu[0]].dev, t->gpu[c->rank_gpu[1]].dev, 0,
		                            vx, parent, queue);
	if (c->G > 1) {
		int r1 = gstart[1] < c->n ? members[gstart[1]] : 0;
		uint32_t a = nic_of_rank[0], b = nic_of_rank[r1];
		if (a != UINT32_MAX && b != UINT32_MAX)
			c->lat_net = path_latency(t, a, b, 1, vx, parent, queue) + t->dev[a].lat_s + t->dev[b].lat_s;
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;
	nccl_graph(c);
	/* Network bytes of the busiest group in the double binary tree, per
	 * byte of the operation: each tree carries half, and a group sends and
	 * receives that half once per tree edge it has (gnics is free by now). */
	c->tree_net = 0;
	if (c->G > 1) {
		memset(gnics, 0, ((size_t)c->G + 1) * sizeof *gnics);
		for (int tr = 0; tr < 2; tr++)
			for (int k = 1; k < c->G; k++) {
				/* tree 0's edges count 1, tree 1's 16 */
				gnics[ccs_btree_place(tr, k, c->G)] += tr ? 16 : 1;
				gnics[ccs_btree_place(tr, ccs_btree_parent(k, c->G), c->G)] += tr ? 16 : 1;
			}
		/* the slowest leaf-root path of the tree's shape (both trees have
		 * it): a parent with n children takes their n chunks through one
		 * NIC port, so each edge counts its parent's children */
		{
			int32_t *nch = ccs_calloc((size_t)c->G + 1, sizeof *nch);
			if (!nch)
				goto out;
			for (int k = 1; k < c->G; k++)
				nch[ccs_btree_parent(k, c->G)]++;
			c->tree_path = 0;
			for (int k = 1; k < c->G; k++) {
				if (nch[k])
					continue;           /* not a leaf */
				int len = 0;
				for (int v = k; v > 0; v = ccs_btree_parent(v, c->G))
					len += nch[ccs_btree_parent(v, c->G)];
				if (len > c->tree_path)
					c->tree_path = len;
			}
			ccs_free(nch);
		}
		for (int g = 0; g < c->G; g++) {
			int d0 = gnics[g] & 15, d1 = gnics[g] >> 4;
			if ((d0 + d1) / 2.0 > c->tree_net)
				c->tree_net = (d0 + d1) / 2.0;
			if (d0 < 4 && d1 < 4)
				c->tree_degs |= (uint16_t)(1u << (4 * d0 + d1));
		}
	}
	rc = CCS_OK;
out:
	ccs_free(vx);
	ccs_free(queue);
	ccs_free(parent);
	ccs_free(members);
	ccs_free(gstart);
	ccs_free(nic_of_rank);
	ccs_free(nic_users);
	ccs_free(gnet);
	ccs_free(hmin);
	ccs_free(gnics);
	ccs_free(hcnt);
	ccs_free(gmin);
	if (rc) {
		if (rc == CCS_ENOMEM)
			snprintf(err, errn, "out of memory");
		ccs_comm_release(c);
	}
	return rc;
}

/* ---- our model ---- */

static const double proto_eff[CCS_PROTO_N] = { 0.5, 120.0 / 128.0, 1.0 };

static int ilog2_ceil(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return k;
}

/* Chunk each channel moves per pipeline step [bytes] (NCCL's defaults:
 * buffers of 512 KiB (LL), 4.6875 MiB (LL128), 4 MiB (Simple) in 8 steps;
 * ring Simple moves 2-step slices; NVLS 128 KiB chunks that shrink for
 * small operations, src/enqueue.cc calcCollChunking). */
double ccs_cost_chunk(const struct ccs_comm *c, int coll, int algo, int proto, int channels, double bytes)
{
	if (proto == CCS_PROTO_LL)
		return 32768.0;
	if (proto == CCS_PROTO_LL128 && algo == CCS_ALGO_TREE) {
		/* NCCL halves the tree's LL128 chunk for operations that would
		 * not fill the pipeline: while S / (C chunk) < steps x 64 / ppn
		 * (down to 128 KiB), then x 16 / ppn (down to 32 KiB), with
		 * steps = 1 + log2(nodes) + 0.1 ppn (calcCollChunking) */
		double ppn = c->G > 0 ? (double)c->n / c->G : 1;
		int lg = 0;
		while ((2 << lg) <= c->G)
			lg++;
		double steps = 1 + lg + 0.1 * ppn, chunk = 576000.0;
		double C = channels > 0 ? channels : 1;
		while (bytes / (C * chunk) < steps * 64 / ppn && chunk > 131072)
			chunk /= 2;
		while (bytes / (C * chunk) < steps * 16 / ppn && chunk > 32768)
			chunk /= 2;
		return chunk;
	}
	if (proto == CCS_PROTO_LL128)
		return 576000.0;
	if (algo == CCS_ALGO_TREE) {
		/* NCCL shrinks the Simple tree's 512 KiB chunk so that each
		 * channel's pipeline holds enough chunks for the tree's depth
		 * (ranks per node - 1 + floor log2 nodes): to 128 KiB while
		 * fewer than 8 x depth, 64 KiB while fewer than 4 x depth, 32 KiB
		 * while fewer than depth (src/enqueue.cc, the chunking of
		 * ncclPatternTreeUpDown) */
		double ppn = c->G > 0 ? (double)c->n / c->G : 1;
		int lg = 0;
		while ((2 << lg) <= c->G)
			lg++;
		double depth = ppn - 1 + lg, chunk = 524288.0;
		double C = channels > 0 ? channels : 1;
		while (bytes / (C * chunk) < depth * 8 && chunk > 131072)
			chunk /= 2;
		while (bytes / (C * chunk) < depth * 4 && chunk > 65536)
			chunk /= 2;
		while (bytes / (C * chunk) < depth && chunk > 32768)
			chunk /= 2;
		return chunk;
	}
	if (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) {
		/* NCCL halves the 128 KiB NVLS chunk below 64, 8 and 2 x (channels
		 * x heads x chunk) bytes: 32 KiB at 64 KiB x ops, 64 KiB at 512 KiB
		 * x ops, 128 KiB from 8 MiB x ops.  A power law through those
		 * points, c = 32 KiB (S / (64 KiB ops))^(2/7), keeps the steps (and
		 * time) growing smoothly with S instead of jumping at each halving. */
		double ops = (double)channels * (c->p > 0 ? c->p : 1);
		double chunk = 32768.0 * pow(bytes / (65536.0 * ops), 2.0 / 7.0);
		double top = (c->G > 1 && algo == CCS_ALGO_NVLS) ? 32768.0 : 131072.0;
		return chunk < 16384.0 ? 16384.0 : chunk > top ? top : chunk;
	}
	if (algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN)
		return 131072.0;
	if (algo == CCS_ALGO_RING && (coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_ALLGATHER ||
	                              coll == CCS_COLL_REDUCESCATTER))
		return 1048576.0;
	return 524288.0;
}

/* NCCL's per-protocol throughput caps [B/s] for the algorithm's B. */
double ccs_cost_proto_cap(const struct ccs_comm *c, int algo, int proto)
{
	int nodes_idx = c->G <= 2 ? c->G - 1 : 2;
	if (proto == CCS_PROTO_LL) {
		double cap = ccs_nccl_ll_max_bw(c->arch, c->G) * 1e9;
		return algo == CCS_ALGO_TREE ? cap : cap;
	}
	if (proto == CCS_PROTO_LL128) {
		double per = algo == CCS_ALGO_TREE ? ccs_nccl_tree_ll128_max(c->arch, nodes_idx)
		                                   : ccs_nccl_ring_ll128_max(c->arch, nodes_idx);
		return per * 1e9 * c->nch_ring;
	}
	return HUGE_VAL;
}

struct term {
	double W;                       /* bytes per rank on the bottleneck */
	double Bi, Bn;                  /* GPU-side (scale-up, PCIe) and network rates */
	int bi_bound, bn_bound;
	double ti, tn;                  /* or times set directly (multi-phase) */
	int steps_intra, steps_inter;   /* hop counts for the latency */
	int lat_algo;                   /* NCCL latency row to use */
	/* one kernel without chunk steps (one-shot, two-shot): its own latency
	 * and GPU memory bytes; 0 for NCCL's pipelined algorithms */
	int kernel;
	double kernel_lat, kernel_mem;
	/* the busiest rank's sent bytes per W where it exceeds W (the tree's
	 * chain share), for the memory bound; 0: 1 */
	double mem_scale;
	double tree_tg;             /* the tree's network bytes per byte (tree_net_share) */
};

static void set_rate(struct term *x, double B, int bound)
{
	if (B < x->Bi) {
		x->Bi = B;
		x->bi_bound = bound;
	}
}

static void set_net(struct term *x, double B, int bound)
{
	if (B < x->Bn) {
		x->Bn = B;
		x->bn_bound = bound;
	}
}

/* Network bytes per byte of a tree AllReduce through the busiest NIC of
 * the busiest group, relative to all the channels' NICs sharing it evenly
 * (the B_net x min(C, nics) / nics that the caller divides by it).
 * Channel v runs tree 0 in the first half of the C channels and tree 1 in
 * the second (tree 0 alone when C = 1) and leaves its group through NIC
 * slot v mod nics; a group with d_t edges in tree t moves S/C once per
 * edge and direction for each of its channels, so slot s of that group
 * carries (a_s d0 + b_s d1) S / C, a_s and b_s its channels on each tree.
 * With an even split over the NICs (C a multiple of 2 x nics) this is
 * tree_net, (d0 + d1) / 2 of the busiest group. */
static double tree_net_share(const struct ccs_comm *c, int C)
{
	if (C < 1)
		C = 1;
	int slots = c->nics > 0 && c->nics < C ? c->nics : C;
	if (C % (2 * slots) == 0 || !c->tree_degs)
		return c->tree_net;
	double worst = 0;
	for (int s = 0; s < slots; s++) {
		int a = 0, b = 0;
		for (int v = s; v < C; v += slots) {
			if (2 * v >= C && C > 1)
				b++;
			else
				a++;
		}
		for (int bit = 0; bit < 16; bit++)
			if (c->tree_degs >> bit & 1) {
				double l = a * (bit >> 2) + b * (bit & 3);
				if (l > worst)
					worst = l;
			}
	}
	return worst * slots / C;
}

/* Time of moving 'bytes' between two ranks of the given relation. */
static double rate_of(const struct ccs_comm *c, int same_group)
{
	return same_group ? c->b_su : c->b_nic;
}

int ccs_cost_eval(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t ubytes,
                  struct ccs_cost *out, const char **why)
{
	double S = (double)ubytes;
	int n = c->n, G = c->G, p = c->p;
	double f = ccs_busbw_factor(coll, n);
	struct term x = { 0, HUGE_VAL, HUGE_VAL, CCS_BOUND_LATENCY, CCS_BOUND_NIC, -1, -1, 0, 0, CCS_ALGO_RING, 0, 0, 0, 0, 0 };
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof *out);
	if (n == 1) {
		out->time_s = 0;
		out->channels = 0;
		out->bound = CCS_BOUND_LATENCY;
		return 0;
	}
	int intra_only = G == 1;
	double su = c->b_su, net = c->B_net;
	/* Each channel leaves a group through one NIC: fewer channels than NICs
	 * leave some NICs idle. */
	{
		int C0 = channels > 0 ? channels
		       : (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) ? c->nvls_channels
		       : ccs_nccl_channels(c, CCS_ALGO_RING);
		if (c->nics > 0 && C0 < c->nics && algo != CCS_ALGO_DIRECT && algo != CCS_ALGO_PAIRWISE)
			net = net * C0 / c->nics;
	}
	int su_b = c->su_bound;

	switch (algo) {
	case CCS_ALGO_RING:
		if (coll == CCS_COLL_ALLTOALL || coll == CCS_COLL_SENDRECV) {
			*why = "ring applies to AllReduce, AllGather, ReduceScatter, Broadcast and Reduce";
			return -1;
		}
		x.W = (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) ? S : f * S;
		if (p > 1)
			set_rate(&x, su, su_b);
		if (!intra_only)
			set_net(&x, net, CCS_BOUND_NIC);
		x.steps_inter = intra_only ? 0 : (coll == CCS_COLL_ALLREDUCE ? 2 * (G - 1) : G - 1);
		{
			int steps = coll == CCS_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
			if (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE)
				steps = n - 1;
			x.steps_intra = steps - x.steps_inter;
		}
		break;
	case CCS_ALGO_TREE:
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "tree applies to AllReduce";
			return -1;
		}
		x.W = S;
		x.tree_tg = tree_net_share(c, channels > 0 ? channels : ccs_nccl_channels(c, CCS_ALGO_RING));
		if (p > 1) {
			/* Inside a group each rank sends its S up the chain and S
			 * down, except where it heads the chain (its up leaves by the
			 * network, or it is the root) or ends it (nothing below).
			 * Channel c's chain starts at member c mod p, so with C
			 * channels the busiest rank sends S (2C - m) / C, m the
			 * fewest head-or-tail roles any member has. */
			int C0 = channels > 0 ? channels : ccs_nccl_channels(c, CCS_ALGO_RING);
			x.mem_scale = ccs_cost_tree_share(p, C0);
			set_rate(&x, su / x.mem_scale, su_b);
		}
		if (!intra_only)
			set_net(&x, net / x.tree_tg, CCS_BOUND_NIC);
		x.steps_intra = 2 * (p - 1);
		x.steps_inter = 2 * ilog2_ceil(G);
		x.lat_algo = CCS_ALGO_TREE;
		/* NCCL's measured shortfall of its trees at medium sizes */
		{
			double corr = ccs_nccl_tree_correction(proto, S);
			x.Bi *= corr;
			x.Bn *= corr;
		}
		break;
	case CCS_ALGO_NVLS:
	case CCS_ALGO_NVLS_TREE:
		if (!c->nvls) {
			*why = "nvls needs scale-up switches with multicast and in-switch reduction";
			return -1;
		}
		if (proto != CCS_PROTO_SIMPLE) {
			*why = "nvls runs the Simple protocol only";
			return -1;
		}
		if (algo == CCS_ALGO_NVLS && G > 1 && !c->sharp) {
			*why = "nvls across scale-up domains needs SHARP switches (or use nvls_tree)";
			return -1;
		}
		if (algo == CCS_ALGO_NVLS_TREE && (G == 1 || coll != CCS_COLL_ALLREDUCE)) {
			*why = "nvls_tree is AllReduce across several scale-up domains";
			return -1;
		}
		if (coll == CCS_COLL_ALLREDUCE) {
			x.W = S;
			set_rate(&x, su * p / (p + 1.0), su_b);
		} else if ((coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER) && G == 1) {
			x.W = f * S;
			set_rate(&x, su, su_b);
		} else {
			*why = "nvls applies to AllReduce, and to AllGather and ReduceScatter inside one domain";
			return -1;
		}
		if (G > 1)
			set_net(&x, algo == CCS_ALGO_NVLS ? net : net / c->tree_net, CCS_BOUND_NIC);
		x.steps_intra = 1;
		x.steps_inter = G > 1 ? (algo == CCS_ALGO_NVLS_TREE ? 2 * ilog2_ceil(G) : 1) : 0;
		x.lat_algo = algo;
		break;
	case CCS_ALGO_COLLNET_DIRECT:
	case CCS_ALGO_COLLNET_CHAIN:
		if (!c->sharp) {
			*why = "collnet needs in-network reduction (SHARP) on the switches of every nic, and more than one group";
			return -1;
		}
		if (proto != CCS_PROTO_SIMPLE) {
			*why = "collnet runs the Simple protocol only";
			return -1;
		}
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "collnet applies to AllReduce";
			return -1;
		}
		x.W = S;
		if (p > 1) {
			/* chain: as the tree's chains, heads and tails rotating over
			 * the channels */
			int C0 = channels > 0 ? channels : ccs_nccl_channels(c, CCS_ALGO_RING);
			set_rate(&x, algo == CCS_ALGO_COLLNET_DIRECT ? su * p / (p + 1.0) : su / ccs_cost_tree_share(p, C0), su_b);
		}
		set_net(&x, net, CCS_BOUND_NIC);
		x.steps_intra = algo == CCS_ALGO_COLLNET_DIRECT ? 2 : 2 * (p - 1);
		x.steps_inter = 1;
		x.lat_algo = algo;
		break;
	case CCS_ALGO_PAT:
		if (coll != CCS_COLL_ALLGATHER && coll != CCS_COLL_REDUCESCATTER) {
			*why = "pat applies to AllGather and ReduceScatter";
			return -1;
		}
		if (proto != CCS_PROTO_SIMPLE) {
			*why = "pat runs the Simple protocol only";
			return -1;
		}
		x.W = f * S;
		if (p > 1)
			set_rate(&x, su, su_b);
		if (!intra_only)
			set_net(&x, net, CCS_BOUND_NIC);
		x.steps_intra = ilog2_ceil(p);
		x.steps_inter = ilog2_ceil(G);
		x.lat_algo = CCS_ALGO_PAT;
		break;
	case CCS_ALGO_RHD:
	case CCS_ALGO_RD:
	case CCS_ALGO_BRUCK: {
		int ok = (algo == CCS_ALGO_RHD && (coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_ALLGATHER ||
		                                   coll == CCS_COLL_REDUCESCATTER)) ||
		         (algo == CCS_ALGO_RD && (coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_ALLGATHER)) ||
		         (algo == CCS_ALGO_BRUCK && (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_ALLTOALL));
		if (!ok) {
			*why = algo == CCS_ALGO_BRUCK ? "bruck applies to AllGather and AllToAll"
			     : algo == CCS_ALGO_RD ? "recursive doubling applies to AllReduce and AllGather"
			                           : "halving-doubling applies to AllReduce, AllGather and ReduceScatter";
			return -1;
		}
		/* Steps k = 0..log2(n)-1 with peers at distance 2^k (ranks are
		 * placed group by group, so small distances stay inside a group).
		 * Bytes per step: RHD halving S/2^(k+1) (largest first, so the far
		 * peers get the big halves), RD S, Bruck AllGather
		 * min(2^k, n - 2^k) S/n, Bruck AllToAll the blocks with bit k set
		 * (S/2 for n a power of two).  sim/sched/steps.c runs the same. */
		int L2 = ilog2_ceil(n);
		double t = 0, tnet = 0;
		int inter = 0;
		for (int k = 0; k < L2; k++) {
			int dist = 1 << k;
			/* xor peers at a distance below p stay in a group; Bruck's
			 * shifts cross a group boundary in every round */
			int same = algo == CCS_ALGO_BRUCK ? G == 1 : dist < p && p > 1 && c->p_min == p;
			double bytes;
			if (algo == CCS_ALGO_RD)
				bytes = coll == CCS_COLL_ALLGATHER ? S * (double)(1 << k) / n : S;
			else if (algo == CCS_ALGO_BRUCK)
				bytes = coll == CCS_COLL_ALLTOALL ? S * ccs_cost_bruck_blocks(n, k) / n
				      : S * (dist < n - dist ? dist : n - dist) / n;
			else
				bytes = S / (double)(2 << (L2 - 1 - k));
			double r = rate_of(c, same);
			if (r <= 0) {
				*why = "a step crosses groups but a rank has no nic";
				return -1;
			}
			/* steps run one after another: network steps add up too */
			if (same) {
				t += bytes / r;
			} else {
				tnet += bytes / r;
				inter++;
			}
		}
		if (algo == CCS_ALGO_RHD && coll == CCS_COLL_ALLREDUCE) {
			t *= 2;
			tnet *= 2;
			inter *= 2;
			L2 *= 2;
		}
		x.W = f * S;
		x.ti = t + tnet;
		x.tn = 0;
		x.bi_bound = tnet > t ? CCS_BOUND_NIC : su_b;
		x.steps_inter = inter;
		x.steps_intra = L2 - inter;
		break;
	}
	case CCS_ALGO_DIRECT:
	case CCS_ALGO_PAIRWISE:
		if (coll != CCS_COLL_ALLTOALL && coll != CCS_COLL_SENDRECV) {
			*why = "direct and pairwise apply to AllToAll and SendRecv";
			return -1;
		}
		if (coll == CCS_COLL_SENDRECV) {
			/* nccl-tests sendrecv: rank r sends S to r+1 and receives from
			 * r-1; one rank a group crosses, alone on its NICs (NCCL
			 * spreads a peer's channels over the GPU's nearest NICs) */
			int cross = G > 1;
			x.W = S;
			if (cross)
				set_net(&x, c->b_nic1, CCS_BOUND_NIC);
			else
				set_rate(&x, su, su_b);
			x.steps_intra = cross ? 0 : 1;
			x.steps_inter = cross ? 1 : 0;
			break;
		}
		{
			double intra_b = S * (p - 1) / n, inter_b = S * (double)(n - p) / n;
			double ti = p > 1 && su > 0 ? intra_b / su : 0;
			double rg = c->R_fab < net ? c->R_fab : net;
			double tn = G > 1 ? inter_b * p / rg : 0;
			/* and each rank through its own NICs' share: a rank whose NIC
			 * died shares its neighbour's, which then carries both */
			int per_rank = G > 1 && c->b_nic > 0 && inter_b / c->b_nic > tn;
			if (per_rank)
				tn = inter_b / c->b_nic;
			x.W = f * S;
			x.ti = ti;
			x.tn = tn;
			x.bi_bound = su_b;
			x.bn_bound = c->R_fab < net && !per_rank ? c->fab_bound : CCS_BOUND_NIC;
			if (algo == CCS_ALGO_PAIRWISE) {
				/* n - 1 rounds, one peer each, one after another; with
				 * ranks placed group by group every round has a rank whose
				 * peer is in another group once there are several */
				double rr = G > 1 ? (c->R_fab / p < c->b_nic ? c->R_fab / p : c->b_nic) : su;
				x.ti = rr > 0 ? (n - 1) * (S / n) / rr : 0;
				x.tn = 0;
				x.bi_bound = G > 1 ? x.bn_bound : su_b;
				x.steps_intra = G > 1 ? 0 : n - 1;
				x.steps_inter = G > 1 ? n - 1 : 0;
			} else {
				/* NCCL posts up to 8 peers per round */
				x.steps_intra = (p - 1 + 7) / 8;
				x.steps_inter = (n - p + 7) / 8;
			}
		}
		break;
	case CCS_ALGO_HIER:
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "hierarchical applies to AllReduce";
			return -1;
		}
		if (G == 1) {
			*why = "hierarchical needs more than one group";
			return -1;
		}
		{
			double t_rs = p > 1 ? S * (p - 1.0) / p / su : 0;
			double t_ar = 2.0 * (G - 1) / G * (S / p) / c->b_nic;
			/* phases run one after another */
			x.W = f * S;
			x.ti = 2 * t_rs + t_ar;
			x.tn = 0;
			x.bi_bound = t_ar > 2 * t_rs ? CCS_BOUND_NIC : su_b;
			x.steps_intra = 2 * (p - 1);
			x.steps_inter = 2 * (G - 1);
		}
		break;
	case CCS_ALGO_ONESHOT:
	case CCS_ALGO_TWOSHOT:
		if (coll != CCS_COLL_ALLREDUCE) {
			*why = "oneshot and twoshot apply to AllReduce";
			return -1;
		}
		if (G > 1 || !c->intra_nvl) {
			*why = "oneshot and twoshot need every rank on one scale-up domain (peer loads and stores over NVLink)";
			return -1;
		}
		if (proto != CCS_PROTO_SIMPLE) {
			*why = "oneshot and twoshot carry their own flags; they run as Simple";
			return -1;
		}
		if (n > 256) {
			*why = "oneshot and twoshot are for at most 256 ranks";
			return -1;
		}
		/* one-shot: every rank reads (or is sent) all p - 1 peers' S and
		 * reduces locally; two-shot: a reduce-scatter then an all-gather,
		 * each rank moving (p - 1) S / p each way in each.  No chunk steps:
		 * one kernel, barriers between phases (ccs_cost_shot_lat). */
		x.W = algo == CCS_ALGO_ONESHOT ? (p - 1.0) * S : 2.0 * (p - 1) / p * S;
		set_rate(&x, algo == CCS_ALGO_ONESHOT ? su : su * c->prm.twoshot_eff, su_b);
		/* memory: the one-shot GPU serves p - 1 peers' reads of its S,
		 * reads its own S and writes the sum, (p + 1) S; the two-shot one
		 * 3 S (serves (p-1)/p S twice, reads and writes its S/p share,
		 * writes the whole result) */
		x.kernel = 1;
		x.kernel_mem = (algo == CCS_ALGO_ONESHOT ? p + 1.0 : 3.0) * S;
		{
			double start, stage;
			ccs_cost_shot_lat(c, algo, &start, &stage);
			x.kernel_lat = start + (algo == CCS_ALGO_ONESHOT ? 1 : 2) * stage;
		}
		break;
	default:
		*why = "unknown algorithm";
		return -1;
	}

	/* Protocol: wire efficiency, and NCCL's throughput caps on the GPU side.
	 * NCCL's trees reach less of it (its tuning model: x0.92, and LL /3.8,
	 * LL128 7/9 on one node). */
	double e = proto_eff[proto];
	if (algo == CCS_ALGO_TREE)
		e = 0.92 * (proto == CCS_PROTO_LL ? 1 / 3.8 : proto == CCS_PROTO_LL128 ? (G == 1 ? 7.0 / 9.0 : 120.0 / 128.0) : 1.0);
	double ti, tn;
	int bi_bound = x.bi_bound;
	if (x.ti >= 0) {
		ti = x.ti / e;
		tn = x.tn / e;
	} else {
		if (isinf(x.Bi) && isinf(x.Bn)) {
			*why = "no bandwidth between the ranks";
			return -1;
		}
		double Bi = x.Bi * e;
		double cap = ccs_cost_proto_cap(c, algo, proto);
		if (cap < Bi) {
			Bi = cap;
			bi_bound = CCS_BOUND_PROTOCOL;
		}
		ti = isinf(Bi) ? 0 : x.W / Bi;
		tn = isinf(x.Bn) ? 0 : x.W / (x.Bn * e);
	}
	/* Memory bandwidth of the reduction or copy, on the GPU side. */
	if (c->mem_bw > 0 && algo != CCS_ALGO_NVLS && algo != CCS_ALGO_NVLS_TREE) {
		double m = ccs_cost_mem_per_byte(coll);
		double tm = (x.kernel ? x.kernel_mem : m * x.W * (x.mem_scale > 1 ? x.mem_scale : 1)) / c->mem_bw;
		if (tm > ti) {
			ti = tm;
			bi_bound = CCS_BOUND_REDUCE;
		}
	}

	int C = channels > 0 ? channels
	      : (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) ? c->nvls_channels
	      : ccs_nccl_channels(c, CCS_ALGO_RING);
	if (C < 1)
		C = 1;
	double lat = x.kernel ? x.kernel_lat : ccs_nccl_latency(c, x.lat_algo, proto, x.steps_intra, x.steps_inter);
	double chunk = ccs_cost_chunk(c, coll, algo, proto, C, S);
	double K = ceil(x.W / ((double)C * chunk));
	if (K < 1)
		K = 1;
	double step = x.kernel ? 0 : K * c->prm.step_s[proto];
	/* A tree across groups is a pipeline: the first chunk climbs log2 G
	 * network levels before the root can send the result down, and each
	 * level holds the network for a chunk's time, tn / Kc with Kc the
	 * chunks per channel (at least one).  A lone chunk (Kc = 1) meets the
	 * network lightly loaded and crosses it in about log2 G chunk times
	 * in all; K chunks take K + log2 G - 1/K.  NCCL's model leaves this
	 * out; it shows between 1 and 64 MiB (fitted to the simulated tree on
	 * 2-16 HGX H100 nodes, where it is within 1 chunk time of it). */
	double tn_raw = tn;
	if (algo == CCS_ALGO_TREE && G > 1) {
		double Kc = x.W / ((double)C * chunk);
		if (Kc < 1)
			Kc = 1;
		tn *= 1 + (ilog2_ceil(G) - 1 / Kc) / Kc;
	}
	/* The GPU side pays a synchronisation per chunk step; the network
	 * streams through the same steps from its own buffers, so the slower of
	 * the two sets the pace. */
	double gpu = ti + step;
	double bw_s = gpu > tn ? gpu : tn;
	/* Broadcast and Reduce with Simple: a chain of n - 1 hops that
	 * stores and forwards each chunk (NCCL's Simple passes a step on once
	 * it is whole; a channel moves full chunks and then what is left), so
	 * the pipeline also pays every hop but the slowest once for a full
	 * chunk: n - G GPU hops of a = ti fc + o and G - 1 network hops of
	 * b = tn fc, fc = min(1, C chunk / W) the share of a full chunk, less
	 * the slowest.  LL and LL128 forward each line as it arrives: no fill. */
	if (algo == CCS_ALGO_RING && (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) &&
	    proto == CCS_PROTO_SIMPLE && n > 2 && x.W > 0) {
		double fc = (double)C * chunk / x.W;
		if (fc > 1)
			fc = 1;
		double a = ti * fc + step / K, b = tn * fc, top = n - G > 0 ? a : 0;
		if (G > 1 && b > top)
			top = b;
		bw_s += (n - G) * a + (G - 1) * b - top;
	}
	/* At most one chunk per channel across groups: nothing pipelines, so
	 * the chunk's path is paid in series.  Each group's ports first do their
	 * chains' up work (half the GPU side); the chunk climbs the tree to the
	 * root, each edge taking X times its parent's children (their chunks
	 * share the parent's NIC port), X = tn / (2 t_G) the time of one edge
	 * (the network term counts both directions of the busiest group's t_G
	 * edges); the root's group sends it down its chains (a quarter) while
	 * it descends the same way, and the last leaf's chains take it down last
	 * (a quarter): gpu/2 + P + max(gpu/4, P) + gpu/4, P = X x the slowest
	 * leaf-root path.  Two groups: P = tn/2. */
	if (algo == CCS_ALGO_TREE && G > 1 && x.W <= (double)C * chunk && c->tree_path > 0) {
		double P = c->tree_path * tn_raw / (2 * x.tree_tg);
		double serial = gpu / 2 + P + (gpu / 4 > P ? gpu / 4 : P) + gpu / 4;
		if (serial > bw_s)
			bw_s = serial;
	}
	int bound = gpu >= tn ? bi_bound : x.bn_bound;
	double rate = bw_s > 0 ? x.W / (bw_s - (gpu >= tn ? step : 0)) : HUGE_VAL;

	lat += c->late_s;   /* everyone waits for a straggler */
	out->lat_s = lat;
	out->bw_s = bw_s - (gpu >= tn ? step : 0);
	out->step_s = gpu >= tn ? step : 0;
	out->time_s = lat + bw_s;
	out->rate_Bps = rate;
	out->wire_bytes = x.W;
	out->channels = x.kernel ? 1 : C;
	out->bound = lat + out->step_s > out->bw_s ? CCS_BOUND_LATENCY : bound;
	return 0;
}

void ccs_cost_shot_lat(const struct ccs_comm *c, int algo, double *start, double *stage)
{
	/* a flag store seen across one NVLink hop: NCCL's LL hop latency over
	 * NVLink plus the graph's */
	double h = ccs_nccl_latency(c, CCS_ALGO_RING, CCS_PROTO_LL, 1, 0) -
	           ccs_nccl_latency(c, CCS_ALGO_RING, CCS_PROTO_LL, 0, 0);
	*start = c->prm.shot_overhead_s[algo == CCS_ALGO_TWOSHOT] + h;
	*stage = h;
}

double ccs_cost_bruck_blocks(int n, int k)
{
	/* j in [0, n) with bit k set: whole periods of 2^(k+1), then the tail */
	long per = 1L << (k + 1), half = 1L << k;
	long full = n / per, rest = n % per;
	return (double)(full * half + (rest > half ? rest - half : 0));
}

double ccs_cost_tree_share(int p, int C)
{
	if (p < 2 || C < 1)
		return 0;
	int m = 2 * C;
	for (int j = 0; j < p; j++) {
		int a = j, b = (j + 1) % p;
		int mj = C / p + (a < C % p) + C / p + (b < C % p);
		if (mj < m)
			m = mj;
	}
	return (2.0 * C - m) / C;
}

/* ---- selection ---- */

int ccs_select(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned algo_mask, unsigned proto_mask,
               int nccl, int *algo, int *proto)
{
	double best = HUGE_VAL;
	int ba = -1, bp = -1;
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
				t = ccs_nccl_time(c, coll, a, q, bytes);
				if (t < 0)
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
					int want = bytes <= 16384u * (uint64_t)ccs_nccl_channels(c, CCS_ALGO_RING) ? CCS_PROTO_LL
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

int ccs_comm_best_nics(const struct ccs_comm *c, int r)
{
	return (int)ccs_topo_best_nics(c->t, &c->t->gpu[c->rank_gpu[r]]);
}

uint32_t ccs_comm_nic(const struct ccs_comm *c, int r, int i)
{
	const struct ccs_gpu *gp = &c->t->gpu[c->rank_gpu[r]];
	return c->t->gnic[gp->nic_first + (uint32_t)i].nic;
}

int ccs_comm_fewest_nics(const struct ccs_comm *c, int most)
{
	int M = most;
	for (int r = 0; r < c->n; r++) {
		int m = ccs_comm_best_nics(c, r);
		if (m < M)
			M = m;
	}
	return M;
}

int ccs_comm_members(const struct ccs_comm *c, int32_t **start, int32_t **members)
{
	int n = c->n, G = c->G;
	int32_t *gs = ccs_calloc((size_t)G + 2, sizeof *gs);
	int32_t *mem = ccs_malloc(((size_t)n + 1) * sizeof *mem);
	int32_t *fill = ccs_malloc(((size_t)G + 1) * sizeof *fill);
	if (!gs || !mem || !fill) {
		ccs_free(gs);
		ccs_free(mem);
		ccs_free(fill);
		return CCS_ENOMEM;
	}
	for (int k = 0; k < n; k++)
		gs[c->rank_group[k] + 1]++;
	for (int g = 0; g < G; g++)
		gs[g + 1] += gs[g];
	memcpy(fill, gs, (size_t)G * sizeof *fill);
	for (int k = 0; k < n; k++)
		mem[fill[c->rank_group[k]]++] = k;
	ccs_free(fill);
	*start = gs;
	*members = mem;
	return CCS_OK;
}
