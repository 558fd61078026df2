/* model/topo_stats.c: figures for `topo show` (see topo_stats.h). */
#include "topo_stats.h"

#include <math.h>
#include <string.h>

#include "maxflow.h"

/* ---- bisections ---- */

static double inf_cap(const struct ccs_topo *t)
{
	double s = 1;
	for (uint32_t i = 0; i < t->nlink; i++)
		s += t->link[i].bw_Bps;
	return s * 2;
}

static int scaleout_bisection(const struct ccs_topo *t, struct ccs_topo_stats *st)
{
	if (t->nnodes < 2)
		return CCS_OK;
	int32_t half = t->nnodes / 2;
	int32_t *vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *vx);
	struct ccs_maxflow f;
	memset(&f, 0, sizeof f);
	int rc = CCS_ENOMEM;
	if (!vx)
		goto out;
	uint32_t nv = 2;            /* 0 = source, 1 = sink */
	for (uint32_t d = 0; d < t->ndev; d++) {
		int k = t->dev[d].kind;
		vx[d] = (k == CCS_DEV_NIC || k == CCS_DEV_NETSW) ? (int32_t)nv++ : -1;
	}
	f.nv = nv;
	double big = inf_cap(t);
	int any_a = 0, any_b = 0;
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (!ccs_link_is_network(l->type) || vx[l->a] < 0 || vx[l->b] < 0)
			continue;
		if ((rc = ccs_maxflow_add(&f, (uint32_t)vx[l->a], (uint32_t)vx[l->b], l->bw_Bps, l->bw_Bps)))
			goto out;
	}
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_NIC || t->dev[d].node < 0)
			continue;
		int a = t->dev[d].node < half;
		any_a |= a;
		any_b |= !a;
		rc = a ? ccs_maxflow_add(&f, 0, (uint32_t)vx[d], big, 0) : ccs_maxflow_add(&f, (uint32_t)vx[d], 1, big, 0);
		if (rc)
			goto out;
	}
	rc = CCS_OK;
	if (any_a && any_b) {
		if ((rc = ccs_maxflow_run(&f, 0, 1, &st->so_bisect_Bps)))
			goto out;
		st->so_bisect_nodes = (uint32_t)half;
	}
out:
	ccs_free(vx);
	ccs_maxflow_release(&f);
	return rc;
}

static int scaleup_bisection(const struct ccs_topo *t, struct ccs_topo_stats *st)
{
	int32_t dom = t->gpu[0].domain;
	uint32_t n = 0;
	for (uint32_t g = 0; g < t->ngpu; g++)
		n += t->gpu[g].domain == dom;
	st->su_bisect_gpus = n;
	if (n < 2)
		return CCS_OK;
	int32_t *vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *vx);
	struct ccs_maxflow f;
	memset(&f, 0, sizeof f);
	int rc = CCS_ENOMEM;
	if (!vx)
		goto out;
	uint32_t nv = 2, seen = 0;
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;
	double big = inf_cap(t);
	for (uint32_t g = 0; g < t->ngpu; g++) {
		if (t->gpu[g].domain != dom)
			continue;
		uint32_t d = t->gpu[g].dev;
		vx[d] = (int32_t)nv++;
		rc = seen++ < n / 2 ? ccs_maxflow_add(&f, 0, (uint32_t)vx[d], big, 0) : ccs_maxflow_add(&f, (uint32_t)vx[d], 1, big, 0);
		if (rc)
			goto out;
	}
	/* Scale-up switches reached from the domain's GPUs, through switches
	 * (a two-tier plane's L2 chips too). */
	for (int grew = 1; grew;) {
		grew = 0;
		for (uint32_t i = 0; i < t->nlink; i++) {
			const struct ccs_link *l = &t->link[i];
			if (!ccs_link_is_scaleup(l->type))
				continue;
			uint32_t ends[2] = { l->a, l->b };
			for (int e = 0; e < 2; e++) {
				uint32_t d = ends[e], o = ends[!e];
				int from = vx[o] >= 0 && (t->dev[o].kind == CCS_DEV_SUSW ||
				                          (t->dev[o].kind == CCS_DEV_GPU && t->dev[o].domain == dom));
				if (vx[d] < 0 && t->dev[d].kind == CCS_DEV_SUSW && from) {
					vx[d] = (int32_t)nv++;
					grew = 1;
				}
			}
		}
	}
	f.nv = nv;
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (!ccs_link_is_scaleup(l->type) || vx[l->a] < 0 || vx[l->b] < 0)
			continue;
		if ((rc = ccs_maxflow_add(&f, (uint32_t)vx[l->a], (uint32_t)vx[l->b], l->bw_Bps, l->bw_Bps)))
			goto out;
	}
	rc = ccs_maxflow_run(&f, 0, 1, &st->su_bisect_Bps);
out:
	ccs_free(vx);
	ccs_maxflow_release(&f);
	return rc;
}

/* ---- diameter ---- */

static int diameter(const struct ccs_topo *t, struct ccs_topo_stats *st)
{
	int32_t *dist = ccs_malloc(((size_t)t->ndev + 1) * sizeof *dist);
	uint32_t *queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *queue);
	if (!dist || !queue) {
		ccs_free(dist);
		ccs_free(queue);
		return CCS_ENOMEM;
	}
	double work = (double)t->ndev + 2.0 * t->nlink;
	uint32_t nsrc = t->ngpu;
	st->diameter_exact = 1;
	if ((double)t->ngpu * work > 2e8) {
		double k = 5e7 / work;
		nsrc = k < 16 ? 16 : k > 64 ? 64 : (uint32_t)k;
		if (nsrc >= t->ngpu)
			nsrc = t->ngpu;
		else
			st->diameter_exact = 0;
	}
	int best = 0;
	for (uint32_t i = 0; i < nsrc; i++) {
		uint32_t g = nsrc == t->ngpu ? i
		           : (i + 1 == nsrc ? t->ngpu - 1 : (uint32_t)((uint64_t)i * t->ngpu / nsrc));
		for (uint32_t d = 0; d < t->ndev; d++)
			dist[d] = -1;
		uint32_t qh = 0, qt = 0, src = t->gpu[g].dev;
		dist[src] = 0;
		queue[qt++] = src;
		while (qh < qt) {
			uint32_t u = queue[qh++];
			for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
				uint32_t v = t->adj_nbr[k];
				if (dist[v] < 0) {
					dist[v] = dist[u] + 1;
					queue[qt++] = v;
				}
			}
		}
		for (uint32_t h = 0; h < t->ngpu; h++)
			if (dist[t->gpu[h].dev] > best)
				best = dist[t->gpu[h].dev];
	}
	st->diameter = best;
	st->diameter_sources = nsrc;
	ccs_free(dist);
	ccs_free(queue);
	return CCS_OK;
}

/* ---- everything ---- */

static int level_of(const struct ccs_dev *d)
{
	if (d->kind == CCS_DEV_NETSW)
		return d->tier;
	return 0;                   /* NICs and anything else below the fabric */
}

/* Devices, switches by tier with their ports up and down, links. */
static void device_counts(const struct ccs_topo *t, struct ccs_topo_stats *s)
{
	for (uint32_t d = 0; d < t->ndev; d++) {
		const struct ccs_dev *dv = &t->dev[d];
		s->ndev[dv->kind]++;
		if (dv->kind == CCS_DEV_SUSW) {
			s->su_multicast |= !!(dv->flags & CCS_DEVF_MULTICAST);
			s->su_reduce |= !!(dv->flags & CCS_DEVF_REDUCE);
		}
		if (dv->kind == CCS_DEV_NETSW) {
			s->sharp |= !!(dv->flags & CCS_DEVF_REDUCE);
			struct ccs_tier_stats *ts = &s->tier[dv->tier];
			uint32_t ports = 0;
			ts->count++;
			for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
				const struct ccs_link *l = &t->link[t->adj[k]];
				int lo = level_of(&t->dev[ccs_link_other(l, d)]);
				ports += l->lanes;
				if (lo < dv->tier) {
					ts->down_ports += l->lanes;
					ts->down_Bps += l->bw_Bps;
				} else if (lo > dv->tier) {
					ts->up_ports += l->lanes;
					ts->up_Bps += l->bw_Bps;
				}
			}
			if (ports > ts->max_ports)
				ts->max_ports = ports;
		}
	}
	for (uint32_t i = 0; i < t->nlink; i++) {
		s->nlink[t->link[i].type]++;
		s->nlanes[t->link[i].type] += t->link[i].lanes;
	}
}

/* The ranges per node (GPUs, NICs, NIC bandwidth per GPU) and per domain,
 * per-GPU scale-up bandwidth and lanes, NIC paths. */
static int per_node(const struct ccs_topo *t, struct ccs_topo_stats *s)
{
	uint32_t nn = t->nnodes > 0 ? (uint32_t)t->nnodes : 1;
	uint32_t *gpn = ccs_calloc(nn, sizeof *gpn), *npn = ccs_calloc(nn, sizeof *npn);
	double *bwn = ccs_calloc(nn, sizeof *bwn);
	uint32_t *dom = ccs_calloc((size_t)t->ndomains + 1, sizeof *dom);
	if (!gpn || !npn || !bwn || !dom) {
		ccs_free(gpn);
		ccs_free(npn);
		ccs_free(bwn);
		ccs_free(dom);
		return CCS_ENOMEM;
	}
	s->nic_bw_min = INFINITY;
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_NIC)
			continue;
		double b = ccs_topo_nic_speed(t, d);
		s->injection_Bps += b;
		if (b < s->nic_bw_min) s->nic_bw_min = b;
		if (b > s->nic_bw_max) s->nic_bw_max = b;
		if (t->dev[d].node >= 0) {
			npn[t->dev[d].node]++;
			bwn[t->dev[d].node] += b;
		}
	}
	if (!s->ndev[CCS_DEV_NIC])
		s->nic_bw_min = 0;
	s->su_bw_min = INFINITY;
	s->su_links_min = UINT32_MAX;
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		if (gp->node >= 0)
			gpn[gp->node]++;
		dom[gp->domain]++;
		if (gp->su_bw_Bps < s->su_bw_min) s->su_bw_min = gp->su_bw_Bps;
		if (gp->su_bw_Bps > s->su_bw_max) s->su_bw_max = gp->su_bw_Bps;
		uint32_t lanes = 0;
		for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++)
			if (ccs_link_is_scaleup(t->link[t->adj[k]].type))
				lanes += t->link[t->adj[k]].lanes;
		if (lanes < s->su_links_min) s->su_links_min = lanes;
		if (lanes > s->su_links_max) s->su_links_max = lanes;
		s->path_hist[gp->nic_count ? t->gnic[gp->nic_first].path : CCS_PATH_N]++;
	}
	s->gpn_min = s->npn_min = UINT32_MAX;
	s->so_bw_min = INFINITY;
	for (uint32_t n = 0; n < nn; n++) {
		if (gpn[n] < s->gpn_min) s->gpn_min = gpn[n];
		if (gpn[n] > s->gpn_max) s->gpn_max = gpn[n];
		if (npn[n] < s->npn_min) s->npn_min = npn[n];
		if (npn[n] > s->npn_max) s->npn_max = npn[n];
		if (gpn[n]) {
			double b = bwn[n] / gpn[n];
			if (b < s->so_bw_min) s->so_bw_min = b;
			if (b > s->so_bw_max) s->so_bw_max = b;
		}
	}
	if (!isfinite(s->so_bw_min))
		s->so_bw_min = 0;
	s->dom_min = UINT32_MAX;
	for (int32_t d = 0; d < t->ndomains; d++) {
		if (dom[d] < s->dom_min) s->dom_min = dom[d];
		if (dom[d] > s->dom_max) s->dom_max = dom[d];
	}
	ccs_free(gpn);
	ccs_free(npn);
	ccs_free(bwn);
	ccs_free(dom);
	return CCS_OK;
}

/* A two-tier scale-up plane's node uplinks against the node's GPU lanes. */
static int su_uplinks(const struct ccs_topo *t, struct ccs_topo_stats *s)
{
	size_t nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	double *up = ccs_calloc(nn, sizeof *up), *down = ccs_calloc(nn, sizeof *down);
	if (!up || !down) {
		ccs_free(up);
		ccs_free(down);
		return CCS_ENOMEM;
	}
	if (ccs_topo_su_uplinks(t, up)) {
		for (uint32_t g = 0; g < t->ngpu; g++)
			if (t->gpu[g].node >= 0)
				down[t->gpu[g].node] += t->gpu[g].su_bw_Bps;
		s->su_up_min = INFINITY;
		for (size_t n = 0; n < nn; n++) {
			if (!(up[n] > 0))
				continue;
			if (up[n] < s->su_up_min) s->su_up_min = up[n];
			if (up[n] > s->su_up_max) s->su_up_max = up[n];
			if (down[n] / up[n] > s->su_up_oversub) s->su_up_oversub = down[n] / up[n];
		}
	}
	ccs_free(up);
	ccs_free(down);
	return CCS_OK;
}

int ccs_topo_stats(const struct ccs_topo *t, struct ccs_topo_stats *s)
{
	memset(s, 0, sizeof *s);
	s->ngpu = t->ngpu;
	s->nnodes = (uint32_t)t->nnodes;
	s->ndomains = (uint32_t)t->ndomains;
	device_counts(t, s);
	CCS_TRY(per_node(t, s));
	CCS_TRY(su_uplinks(t, s));
	CCS_TRY(scaleup_bisection(t, s));
	CCS_TRY(scaleout_bisection(t, s));
	CCS_TRY(diameter(t, s));
	return CCS_OK;
}
