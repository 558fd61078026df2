/* model/comm.c: the communicator from the graph: ranks on GPUs, groups,
** bandwidths inside them, NCCL's view of the graph, the NICs each rank may
** use (cost.h). */
#include "comm_int.h"
#include "ring_nic.h"
#include "maxflow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static int bound_of_link(int type)
{
	switch (type) {
	case CCS_LINK_NVLINK: return CCS_BOUND_NVLINK;
	case CCS_LINK_C2C: return CCS_BOUND_C2C;
	case CCS_LINK_PCIE: return CCS_BOUND_PCIE;
	case CCS_LINK_SMP: return CCS_BOUND_SMP;
	case CCS_LINK_UB: return CCS_BOUND_UB;
	case CCS_LINK_HCCS: return CCS_BOUND_HCCS;
	case CCS_LINK_XGMI: return CCS_BOUND_XGMI;
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

/* Group key: the scale-up domain when it holds more than one GPU and is not
 * a part of one node (NVLink-bridged pairs in a PCIe server: NCCL rings the
 * node's GPUs over NVLink where it has it and PCIe between, never the
 * network), else the node.  Groups are numbered in order of first
 * appearance. */
static int make_groups(const struct ccs_topo *t, struct ccs_comm *c)
{
	int32_t *domsize = ccs_calloc((size_t)t->ndomains + 1, sizeof *domsize);
	int32_t *map = ccs_malloc(((size_t)t->ndomains + (size_t)t->nnodes + 2) * sizeof *map);
	int32_t *cnt = ccs_calloc((size_t)c->n + 1, sizeof *cnt);
	int32_t *nodeseen = ccs_calloc((size_t)t->nnodes + 1, sizeof *nodeseen);
	int32_t *domnode = ccs_malloc(((size_t)t->ndomains + 1) * sizeof *domnode);
	int rc = CCS_ENOMEM;
	if (!domsize || !map || !cnt || !nodeseen || !domnode)
		goto out;
	for (int32_t i = 0; i < t->ndomains + t->nnodes + 1; i++)
		map[i] = -1;
	memset(domnode, 0xff, ((size_t)t->ndomains + 1) * sizeof *domnode);   /* -1 */
	/* a domain inside one node with fewer GPUs than the node is taken as
	 * the node's (domnode: its node, -2 when it spans nodes; map's node
	 * slots count the node's GPUs until groups are numbered) */
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		int32_t *dn = &domnode[gp->domain];
		domsize[gp->domain]++;
		*dn = *dn == -1 || *dn == gp->node ? gp->node : -2;
		if (gp->node >= 0)
			map[t->ndomains + gp->node]--;
	}
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		if (gp->node >= 0 && domnode[gp->domain] == gp->node && domsize[gp->domain] > 1 &&
		    domsize[gp->domain] < -1 - map[t->ndomains + gp->node])
			domsize[gp->domain] = 1;
	}
	for (int32_t i = 0; i < t->ndomains + t->nnodes + 1; i++)
		map[i] = -1;
	c->G = 0;
	c->nnodes = 0;
	/* P2P off (NCCL_P2P_DISABLE) takes NCCL's P2P transport, and with it
	 * NVLink between hosts (MNNVL): GPUs of other nodes are reached over
	 * the network, so the groups are the nodes */
	int nodes_only = 0;
	for (int r = 0; r < c->n; r++)
		nodes_only |= t->gpu[c->rank_gpu[r]].no_p2p;
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
		int32_t key = domsize[gp->domain] > 1 && !nodes_only ? gp->domain : t->ndomains + (gp->node < 0 ? 0 : gp->node);
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
	ccs_free(domnode);
	return rc;
}

/* ---- intra-group bandwidth ---- */

/* Which links a group's max-flow crosses: its scale-up links (a domain), its
 * node's host links (a node without scale-up), or both (a node whose GPUs
 * are in several domains: NVLink-bridged pairs joined over PCIe). */
enum { GROUP_HOST, GROUP_SCALEUP, GROUP_BOTH };

static int link_allowed(const struct ccs_link *l, int mode)
{
	return (mode != GROUP_HOST && ccs_link_is_scaleup(l->type)) || (mode != GROUP_SCALEUP && ccs_link_is_host(l->type));
}

/* Min over members v of the max-flow from the first member to v, inside the
 * group's scale-up (or host) subgraph.  vx, queue: scratch of ndev entries,
 * vx all -1 on entry and on return. */
static int group_bw(const struct ccs_comm *c, const int32_t *members, int m, int scaleup,
                    int32_t *vx, uint32_t *queue, double *out, int *bound)
{
	const struct ccs_topo *t = c->t;
	struct ccs_maxflow f;
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
			if (scaleup != GROUP_SCALEUP && t->dev[v].node != node0)
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
			if ((rc = ccs_maxflow_add(&f, (uint32_t)vx[u], (uint32_t)vx[v], cap, cap)))
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
		ccs_maxflow_reset(&f);
		uint32_t dv = t->gpu[c->rank_gpu[members[i]]].dev;
		if ((rc = ccs_maxflow_run(&f, (uint32_t)vx[queue[0]], (uint32_t)vx[dv], &v)))
			goto out;
		if (v < best)
			best = v;
	}
	*out = best;
	*bound = btype >= 0 ? bound_of_link(btype) : (scaleup == GROUP_SCALEUP ? CCS_BOUND_NVLINK : CCS_BOUND_PCIE);
out:
	for (uint32_t i = 0; i < qt; i++)
		vx[queue[i]] = -1;
	ccs_maxflow_release(&f);
	return rc;
}

static int comm_build(const struct ccs_topo *t, int nranks, int ppn, const uint32_t *gpus, struct ccs_comm *c,
                      char *err, size_t errn);

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

/* comm_build's working arrays: per device (vx, queue, parent, nic_users),
 * per rank (nic_of_rank), per group (gnet, gnics, gmin, hmin, hcnt) and the
 * groups' members. */
struct scratch {
	int32_t *vx;
	uint32_t *queue, *parent;
	int32_t *members, *gstart;
	uint32_t *nic_of_rank, *nic_users;
	double *gnet;
	int32_t *gnics;
	double *gmin;               /* slowest NIC of each group */
	double *hmin;               /* slowest rank's PCIe link */
	int32_t *hcnt;
};

static void scratch_free(struct scratch *w)
{
	ccs_free(w->vx);
	ccs_free(w->queue);
	ccs_free(w->parent);
	ccs_free(w->members);
	ccs_free(w->gstart);
	ccs_free(w->nic_of_rank);
	ccs_free(w->nic_users);
	ccs_free(w->gnet);
	ccs_free(w->hmin);
	ccs_free(w->gnics);
	ccs_free(w->hcnt);
	ccs_free(w->gmin);
}

static int scratch_new(const struct ccs_topo *t, const struct ccs_comm *c, struct scratch *w)
{
	memset(w, 0, sizeof *w);
	w->vx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *w->vx);
	w->queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *w->queue);
	w->parent = ccs_malloc(((size_t)t->ndev + 1) * sizeof *w->parent);
	w->nic_of_rank = ccs_malloc(((size_t)c->n + 1) * sizeof *w->nic_of_rank);
	w->nic_users = ccs_calloc((size_t)t->ndev + 1, sizeof *w->nic_users);
	w->gnet = ccs_calloc((size_t)c->G + 1, sizeof *w->gnet);
	w->gnics = ccs_calloc((size_t)c->G + 1, sizeof *w->gnics);
	w->gmin = ccs_calloc((size_t)c->G + 1, sizeof *w->gmin);
	w->hmin = ccs_calloc((size_t)c->G + 1, sizeof *w->hmin);
	w->hcnt = ccs_calloc((size_t)c->G + 1, sizeof *w->hcnt);
	if (!w->vx || !w->queue || !w->parent || !w->nic_of_rank || !w->nic_users || !w->gnet || !w->gnics || !w->gmin ||
	    !w->hmin || !w->hcnt || ccs_comm_members(c, &w->gstart, &w->members))
		return CCS_ENOMEM;
	for (uint32_t d = 0; d < t->ndev; d++)
		w->vx[d] = -1;
	return CCS_OK;
}

/* Faults: a group cut off from the others (every NIC of a rank down)
 * hangs the communicator (CCS_EINPUT, err says which rank and NICs); a
 * straggler delays every collective (late_s). */
static int check_reach(const struct ccs_topo *t, struct ccs_comm *c, char *err, size_t errn)
{
	for (int r = 0; r < c->n; r++) {
		const struct ccs_gpu *g = &t->gpu[c->rank_gpu[r]];
		if (g->delay_s > c->late_s)
			c->late_s = g->delay_s;
		int live = 0;
		for (uint32_t k = t->adj_off[g->dev]; k < t->adj_off[g->dev + 1] && !live; k++)
			live = t->link[t->adj[k]].bw_Bps > 0;
		if (c->n > 1 && !live) {
			snprintf(err, errn, "hang: rank %d (%s) has no live link (every link of it is down); the collective "
			         "cannot complete", r, t->dev[g->dev].name);
			return CCS_EINPUT;
		}
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
			return CCS_EINPUT;
		}
	}
	return CCS_OK;
}

/* Architecture, memory bandwidth, NCCL's per-GPU link figures. */
static int gpu_figures(const struct ccs_topo *t, struct ccs_comm *c)
{
	c->arch = CCS_ARCH_BLACKWELL;
	c->mem_bw = HUGE_VAL;
	c->nccl.nvl_GBps = HUGE_VAL;
	c->nccl.pci_GBps = HUGE_VAL;
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
				pci = l->bw_Bps / 1e9;
		}
		c->nccl.nvl_GBps = nvl + lanes * ccs_nccl_nvlink_bw(c->arch);
		c->nccl.pci_GBps = ccs_nccl_pci_bw(pci);
	}
	return CCS_OK;
}

/* Intra-group bandwidth: the scale-up subgraph when the group is a
 * domain, else the node's host links. */
static int intra_bw(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w)
{
	int32_t *vx = w->vx;
	uint32_t *queue = w->queue;
	int32_t *members = w->members;
	int32_t *gstart = w->gstart;
	int rc = CCS_OK;
	c->b_su = HUGE_VAL;
	c->su_bound = CCS_BOUND_NVLINK;
	c->intra_nvl = 0;
	for (int g = 0; g < c->G; g++) {
		int m = gstart[g + 1] - gstart[g];
		if (m < 2)
			continue;
		const struct ccs_gpu *g0 = &t->gpu[c->rank_gpu[members[gstart[g]]]];
		/* all in one domain: scale-up; several domains of one node: both;
		 * else host links */
		int scaleup = g0->su_bw_Bps > 0 ? GROUP_SCALEUP : GROUP_HOST;
		for (int i = 1; i < m; i++)
			if (t->gpu[c->rank_gpu[members[gstart[g] + i]]].domain != g0->domain)
				scaleup = scaleup == GROUP_HOST ? GROUP_HOST : GROUP_BOTH;
		double bw = 0;
		int bound = CCS_BOUND_NVLINK;
		int staged = 0;
		for (int i = 0; i < m; i++)
			staged |= t->gpu[c->rank_gpu[members[gstart[g] + i]]].no_p2p;
		if (staged) {
			/* P2P off: through host memory, the slowest rank's rate */
			bw = HUGE_VAL;
			for (int i = 0; i < m; i++) {
				double r = ccs_comm_host_staged_p2p(t, c, members + gstart[g], m, &t->gpu[c->rank_gpu[members[gstart[g] + i]]]);
				if (r < bw)
					bw = r;
			}
			bound = CCS_BOUND_PCIE;
			scaleup = GROUP_HOST;
		} else if ((rc = group_bw(c, members + gstart[g], m, scaleup, vx, queue, &bw, &bound))) {
			return rc;
		}
		if (bw < c->b_su) {
			c->b_su = bw;
			c->su_bound = bound;
		}
		if (g == 0)
			c->intra_nvl = scaleup == GROUP_SCALEUP;
	}
	if (isinf(c->b_su))
		c->b_su = 0;
	return rc;
}

/* Rank r's NICs: on pass 0 count the ranks that may use each; on pass 1
 * add each NIC once to its group, the rank's shares to b_nic and b_nic1
 * (capped by its GPU's PCIe links) and its host cap to its group's. */
static void rank_nics(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w, int r, int pass)
{
	int32_t *vx = w->vx;
	uint32_t *nic_of_rank = w->nic_of_rank;
	uint32_t *nic_users = w->nic_users;
	double *gnet = w->gnet;
	int32_t *gnics = w->gnics;
	double *gmin = w->gmin;
	double *hmin = w->hmin;
	int32_t *hcnt = w->hcnt;
	const struct ccs_gpu *gp = &t->gpu[c->rank_gpu[r]];
	int g = c->rank_group[r];
	nic_of_rank[r] = gp->nic_count ? t->gnic[gp->nic_first].nic : UINT32_MAX;
	if (!gp->nic_count) {
		if (pass)
			c->b_nic = c->b_nic1 = 0;
		return;
	}
	uint32_t nbest = ccs_topo_best_nics(t, gp);
	double share = 0, alone = 0;
	for (uint32_t i = 0; i < nbest; i++) {
		const struct ccs_gpu_nic *e = &t->gnic[gp->nic_first + i];
		if (!pass) {
			nic_users[e->nic]++;
			continue;
		}
		c->net_type = ccs_topo_nic_net_type(t, e->nic);
		double bw = ccs_topo_nic_speed(t, e->nic) * c->prm.eff[c->net_type];
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
		return;
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
	double hcap = gp->no_gdr ? ccs_comm_host_staged_net(t, c, gp, host) : host;
	if (hcap > 0) {
		if (!hcnt[g] || hcap < hmin[g])
			hmin[g] = hcap;
		hcnt[g]++;
	}
}

/* NICs: each rank may use every NIC of its node that is as close as its
 * best one (NCCL spreads channels over them); a group's NIC bandwidth
 * is the union of its ranks' sets, a rank's share divides each NIC by
 * the ranks that may use it.  As NCCL spreads channels evenly over a
 * group's NICs and ranks, the group moves at most at its slowest NIC
 * times their number and its slowest rank's PCIe link times its ranks:
 * one NIC at half rate, or one GPU whose PCIe link trained at x8, slows
 * every channel's step (the same as the sums when all are alike). */
static int nic_rates(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w)
{
	c->b_nic = c->b_nic1 = HUGE_VAL;
	c->net_type = CCS_LINK_IB;
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < c->n; r++)
			rank_nics(t, c, w, r, pass);
	return CCS_OK;
}

/* Each group's NIC bandwidth capped by its slowest NIC and PCIe link times
 * their count; B_net the smallest; CCS_EINPUT (err) when a group cannot
 * reach the others. */
static int group_nets(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w, char *err, size_t errn)
{
	int32_t *vx = w->vx;
	double *gnet = w->gnet;
	int32_t *gnics = w->gnics;
	double *gmin = w->gmin;
	double *hmin = w->hmin;
	int32_t *hcnt = w->hcnt;
	int rc = CCS_OK;
	c->B_net_nic = c->B_net_host = HUGE_VAL;
	for (int g = 0; g < c->G; g++) {
		if (gnics[g] && gnics[g] * gmin[g] < gnet[g])
			gnet[g] = gnics[g] * gmin[g];
		if (gnet[g] < c->B_net_nic)
			c->B_net_nic = gnet[g];
		if (hcnt[g] && hcnt[g] * hmin[g] < c->B_net_host)
			c->B_net_host = hcnt[g] * hmin[g];
		if (hcnt[g] && hcnt[g] * hmin[g] < gnet[g])
			gnet[g] = hcnt[g] * hmin[g];
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;
	c->B_net = HUGE_VAL;
	c->nccl.nics = 1 << 30;
	for (int g = 0; g < c->G; g++) {
		if (gnet[g] < c->B_net)
			c->B_net = gnet[g];
		if (gnics[g] < c->nccl.nics)
			c->nccl.nics = gnics[g];
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
		return rc;
	}
	return rc;
}

/* NCCL's NIC figure, and R_fab: the fabric's share of uniform all-to-all
 * traffic (comm_net.c). */
static int fabric_rate(struct ccs_comm *c, struct scratch *w)
{
	int32_t *members = w->members;
	int32_t *gstart = w->gstart;
	uint32_t *nic_of_rank = w->nic_of_rank;
	int rc = CCS_OK;
	c->nccl.net_GBps = c->B_net / c->prm.eff[c->net_type] / 1e9;
	c->R_fab = c->B_net;
	c->fab_bound = CCS_BOUND_NIC;
	if ((rc = ccs_comm_net_share(c, nic_of_rank)))
		return rc;
	{
		double Rc;
		int bc;
		if ((rc = ccs_comm_net_cut(c, gstart, members, &Rc, &bc)))
			return rc;
		if (Rc < c->R_fab) {
			c->R_fab = Rc;
			c->fab_bound = Rc < c->B_net * 0.999 ? bc : c->fab_bound;
		}
	}
	return rc;
}

/* Capabilities: NVLS when every group's GPUs reach only multicast and
 * reducing scale-up switches; SHARP when every NIC's switch reduces. */
static int capabilities(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w)
{
	uint32_t *nic_of_rank = w->nic_of_rank;
	c->nvls = c->p > 1;
	for (int r = 0; r < c->n && c->nvls; r++) {
		uint32_t d = t->gpu[c->rank_gpu[r]].dev;
		int sw = 0;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
			uint32_t v = t->adj_nbr[k];
			/* a downed NVLink (a fault) does not reach the switch */
			if (t->dev[v].kind != CCS_DEV_SUSW || !(t->link[t->adj[k]].bw_Bps > 0))
				continue;
			sw = 1;
			unsigned need = CCS_DEVF_MULTICAST | CCS_DEVF_REDUCE;
			if ((t->dev[v].flags & need) != need)
				c->nvls = 0;
		}
		/* NVLS is NVLink's (P2P off leaves the GPUs only host memory) */
		if (!sw || t->gpu[c->rank_gpu[r]].no_p2p)
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
	return CCS_OK;
}

/* Graph latencies of one intra hop and one network traversal. */
static int latencies(const struct ccs_topo *t, struct ccs_comm *c, struct scratch *w)
{
	int32_t *vx = w->vx;
	uint32_t *queue = w->queue;
	uint32_t *parent = w->parent;
	int32_t *members = w->members;
	int32_t *gstart = w->gstart;
	uint32_t *nic_of_rank = w->nic_of_rank;
	/* every link's latency: scale-up or host links in a group, GPU-NIC host legs across */
	if (c->n > 1 && c->rank_group[1] == c->rank_group[0])
		c->lat_intra = ccs_comm_net_latency(t, t->gpu[c->rank_gpu[0]].dev, t->gpu[c->rank_gpu[1]].dev,
		                                    c->intra_nvl ? 0 : CCS_LAT_HOST, vx, parent, queue);
	if (c->G > 1) {
		int r1 = gstart[1] < c->n ? members[gstart[1]] : 0;
		uint32_t a = nic_of_rank[0], b = nic_of_rank[r1];
		if (a != UINT32_MAX && b != UINT32_MAX)
			c->lat_net = ccs_comm_net_latency(t, a, b, 1, vx, parent, queue) + t->dev[a].lat_s + t->dev[b].lat_s +
			             ccs_comm_net_latency(t, t->gpu[c->rank_gpu[0]].dev, a, CCS_LAT_HOST, vx, parent, queue) +
			             ccs_comm_net_latency(t, t->gpu[c->rank_gpu[r1]].dev, b, CCS_LAT_HOST, vx, parent, queue);
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		vx[d] = -1;
	return CCS_OK;
}

/* Network bytes of the busiest group in the double binary tree, per
 * byte of the operation: each tree carries half, and a group sends and
 * receives that half once per tree edge it has; the slowest leaf-root path. */
static int tree_shape(struct ccs_comm *c, struct scratch *w)
{
	int32_t *gnics = w->gnics;
	int rc = CCS_OK;
	c->tree_net = 0;
	if (c->G > 1) {
		ccs_btree_degrees(c->G, gnics);
		/* the slowest leaf-root path of the tree's shape (both trees have
		 * it): a parent with n children takes their n chunks through one
		 * NIC port, so each edge counts its parent's children */
		{
			int32_t *nch = ccs_calloc((size_t)c->G + 1, sizeof *nch);
			if (!nch)
				return CCS_ENOMEM;
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
			int d0 = gnics[g] & 0xffff, d1 = gnics[g] >> 16;
			if ((d0 + d1) / 2.0 > c->tree_net)
				c->tree_net = (d0 + d1) / 2.0;
		}
	}
	return rc;
}

/* The transport (ccs_topo_transport); its efficiency scales the
 * network links' (both engines read prm.eff). */
static void pick_transport(const struct ccs_topo *t, struct ccs_comm *c)
{
	c->transport = ccs_topo_transport(t, c->prm.transport);
	ccs_transport_row_of(c->transport, &c->tr_row);
	ccs_transport_override(&c->tr_row, c->prm.tr_over, c->prm.tr_over_set);
	c->tr = &c->tr_row;
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++)
		if (ccs_link_is_network(ty))
			c->prm.eff[ty] *= c->tr->eff;
}

/* The communicator: ranks and groups, then each figure of the graph in
 * turn (struct ccs_comm, comm.h). */
static int comm_build(const struct ccs_topo *t, int nranks, int ppn, const uint32_t *gpus, struct ccs_comm *c,
                      char *err, size_t errn)
{
	memset(c, 0, sizeof *c);
	c->t = t;
	c->prm = t->params;
	pick_transport(t, c);
	int rc = pick_ranks(t, nranks, ppn, gpus, c, err, errn);
	if (!rc)
		rc = make_groups(t, c);
	if (rc) {
		if (rc == CCS_ENOMEM)
			snprintf(err, errn, "out of memory");
		ccs_comm_release(c);
		return rc;
	}
	if ((rc = check_reach(t, c, err, errn))) {
		ccs_comm_release(c);
		return rc;
	}
	struct scratch w;
	if (!(rc = scratch_new(t, c, &w)) && !(rc = gpu_figures(t, c)) && !(rc = intra_bw(t, c, &w)) &&
	    !(rc = nic_rates(t, c, &w)) && !(rc = group_nets(t, c, &w, err, errn)) && !(rc = fabric_rate(c, &w)) &&
	    !(rc = capabilities(t, c, &w)) && !(rc = latencies(t, c, &w))) {
		ccs_comm_nccl_view(c);
		c->nccl.nvls_chunk_max = ccs_nccl_nvls_chunk_max(&c->nccl);
		rc = tree_shape(c, &w);
		if (!rc) {
			c->ring_C = ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
			rc = ccs_comm_net_rings(c, w.gstart, w.members);
		}
		if (!rc)
			rc = ccs_comm_net_p2p(c, w.gstart, w.members, w.gnet);
	}
	scratch_free(&w);
	if (rc) {
		if (rc == CCS_ENOMEM)
			snprintf(err, errn, "out of memory");
		ccs_comm_release(c);
	}
	return rc;
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
