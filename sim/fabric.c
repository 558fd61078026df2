/* sim/fabric.c: capacities and routes (fabric.h). */
#include "fabric_int.h"
#include "sched/sched.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

void ccs_fabric_free(struct ccs_fabric *f)
{
	if (!f)
		return;
	ccs_free(f->cap);
	ccs_free(f->cap0);
	ccs_free(f->changed);
	ccs_free(f->has_ports);
	ccs_free(f->slow_mem);
	ccs_free(f->planes);
	ccs_free(f->gpu_at);
	ccs_free(f->up_has);
	ccs_free(f->dist);
	ccs_free(f->nic_idx);
	ccs_free(f->parent);
	ccs_free(f->queue);
	ccs_free(f->rc);
	fab_dist_free(f);
	ccs_free(f);
}

/* GPUs by (node, local index), for PXN. */
static int pxn_index(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	for (uint32_t g = 0; g < t->ngpu; g++)
		if (t->gpu[g].local + 1 > f->L)
			f->L = t->gpu[g].local + 1;
	f->gpu_at = ccs_malloc(((size_t)(t->nnodes > 0 ? t->nnodes : 1) * (size_t)(f->L > 0 ? f->L : 1) + 1) *
	                       sizeof *f->gpu_at);
	if (!f->gpu_at)
		return CCS_ENOMEM;
	for (size_t i = 0; i < (size_t)(t->nnodes > 0 ? t->nnodes : 1) * (size_t)(f->L > 0 ? f->L : 1); i++)
		f->gpu_at[i] = UINT32_MAX;
	for (uint32_t g = 0; g < t->ngpu; g++)
		if (t->gpu[g].node >= 0 && t->gpu[g].local >= 0)
			f->gpu_at[(size_t)t->gpu[g].node * (size_t)f->L + (size_t)t->gpu[g].local] = g;
	return CCS_OK;
}

/* The copy ports: the scale-up port rate, else half the memory bandwidth,
 * at most cap (0: no cap). */
static void copy_caps(struct ccs_fabric *f, double cap_Bps)
{
	const struct ccs_topo *t = f->t;
	for (uint32_t g = 0; g < t->ngpu; g++) {
		double cap = f->has_ports[g] ? f->cap[fab_port(f, g, FAB_OUT)] : t->dev[t->gpu[g].dev].bw_Bps / 2;
		if (!(cap > 0))
			cap = 1e15;
		if (cap_Bps > 0 && cap_Bps < cap)
			cap = cap_Bps;
		f->cap[fab_copy(f, g, FAB_OUT)] = f->cap[fab_copy(f, g, FAB_IN)] = cap;
		if (f->cap0)
			f->cap0[fab_copy(f, g, FAB_OUT)] = f->cap0[fab_copy(f, g, FAB_IN)] = cap;
	}
}

void ccs_fabric_cap_copy(struct ccs_fabric *f, double Bps)
{
	f->copy_cap = Bps;
	copy_caps(f, Bps);
}

int ccs_fabric_copy_capped(const struct ccs_fabric *f, uint32_t res)
{
	return ccs_fabric_is_copy(f, res) && f->copy_cap > 0 && fabs(f->cap[res] - f->copy_cap) <= 1e-9 * f->copy_cap;
}

/* Capacities of the scale-up ports (GPUs with scale-up peers only), the
 * links, and the copy ports (the scale-up port rate, else half the memory
 * bandwidth). */
static int port_caps(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	const struct ccs_comm *c = f->c;
	int32_t *dom = ccs_calloc((size_t)t->ndomains + 1, sizeof *dom);
	if (!dom)
		return CCS_ENOMEM;
	for (uint32_t g = 0; g < t->ngpu; g++)
		dom[t->gpu[g].domain]++;
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		if (dom[gp->domain] < 2 || gp->su_bw_Bps <= 0)
			continue;
		double cap = 0;
		for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (ccs_link_is_scaleup(l->type))
				cap += l->bw_Bps * c->prm.eff[l->type];
		}
		f->has_ports[g] = 1;
		f->cap[fab_port(f, g, FAB_OUT)] = f->cap[fab_port(f, g, FAB_IN)] = cap;
	}
	ccs_free(dom);
	for (uint32_t l = 0; l < t->nlink; l++) {
		double cap = t->link[l].bw_Bps * c->prm.eff[t->link[l].type];
		f->cap[fab_link(f, l, 0)] = f->cap[fab_link(f, l, 1)] = cap;
	}
	copy_caps(f, 0);
	return CCS_OK;
}

/* Which nodes have two-tier scale-up uplinks; their resources follow the
 * memory ones. */
static int up_index(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	size_t nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	double *up = ccs_calloc(nn, sizeof *up);
	if (!up)
		return CCS_ENOMEM;
	if (ccs_topo_su_uplinks(t, up)) {
		f->up_has = ccs_calloc(nn, 1);
		if (!f->up_has) {
			ccs_free(up);
			return CCS_ENOMEM;
		}
		for (size_t n = 0; n < nn; n++)
			f->up_has[n] = up[n] > 0;
		f->nup = (uint32_t)t->nnodes;
		f->up0 = f->nres;
		f->nres += 2 * f->nup;
	}
	ccs_free(up);
	return CCS_OK;
}

/* A two-tier scale-up plane: each node's uplinks to the second tier, one
 * resource each way, the sum of its uplink links' capacities (the L2 chips
 * spray a node's traffic over all of them). */
static void uplink_caps(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	for (uint32_t n = 0; n < f->nup; n++)
		f->cap[fab_up(f, n, FAB_OUT)] = f->cap[fab_up(f, n, FAB_IN)] = 0;
	for (uint32_t l = 0; l < t->nlink; l++) {
		int32_t n = ccs_topo_su_uplink_node(t, l);
		if (n < 0 || (uint32_t)n >= f->nup)
			continue;
		f->cap[fab_up(f, (uint32_t)n, FAB_OUT)] += f->cap[fab_link(f, l, 0)];
		f->cap[fab_up(f, (uint32_t)n, FAB_IN)] += f->cap[fab_link(f, l, 1)];
	}
	/* a node without uplinks never routes through them: not a dead resource */
	for (uint32_t n = 0; n < f->nup; n++)
		if (!f->up_has[n])
			f->cap[fab_up(f, n, FAB_OUT)] = f->cap[fab_up(f, n, FAB_IN)] = 1e18;
}

/* Memory: a resource only for GPUs slower than the fastest rank's, or whose
 * memory slows during the run. */
static void mem_caps(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	const struct ccs_comm *c = f->c;
	double fast = 0;
	for (int r = 0; r < c->n; r++) {
		double b = t->dev[t->gpu[c->rank_gpu[r]].dev].bw_Bps;
		if (b > fast)
			fast = b;
	}
	for (uint32_t g = 0; g < t->ngpu; g++) {
		double b = t->dev[t->gpu[g].dev].bw_Bps;
		f->cap[fab_mem(f, g)] = b > 0 ? b : 1e18;
		f->slow_mem[g] = b > 0 && b < fast;
	}
	/* a GPU whose memory slows during the run has the resource from the start */
	for (uint32_t i = 0; i < t->ntimed; i++)
		if (t->timed[i].gpu_mem >= 0 && t->dev[t->gpu[t->timed[i].gpu_mem].dev].bw_Bps > 0)
			f->slow_mem[t->timed[i].gpu_mem] = 1;
}

/* For timed faults: the healthy capacities, and room for what a strike
 * changes (at most its links both ways and the ports at their ends). */
static int timed_state(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	size_t most = 0;
	for (uint32_t i = 0; i < t->ntimed; i++)
		most += 6 * (size_t)t->timed[i].nlink + 1;   /* its links both ways, their GPUs' ports, a node's uplinks */
	f->cap0 = ccs_malloc(((size_t)f->nres + 1) * sizeof *f->cap0);
	f->changed = ccs_malloc((most + 1) * sizeof *f->changed);
	if (!f->cap0 || !f->changed)
		return CCS_ENOMEM;
	memcpy(f->cap0, f->cap, (size_t)f->nres * sizeof *f->cap);
	return CCS_OK;
}

/* dmodk's destination numbers: the NICs leaf by leaf, in each leaf's port
 * order (an InfiniBand subnet manager numbers hosts by their place under the
 * leaves, so that the hosts of one leaf differ in the low digits and spread
 * over every uplink); a NIC on no switch comes after them. */
static void number_nics(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	uint32_t next = 0;
	for (uint32_t d = 0; d < t->ndev; d++)
		f->nic_idx[d] = UINT32_MAX;
	for (uint32_t s = 0; s < t->ndev; s++) {
		if (t->dev[s].kind != CCS_DEV_NETSW)
			continue;
		for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
			uint32_t v = t->adj_nbr[k];
			if (t->dev[v].kind == CCS_DEV_NIC && f->nic_idx[v] == UINT32_MAX)
				f->nic_idx[v] = next++;
		}
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		if (t->dev[d].kind == CCS_DEV_NIC && f->nic_idx[d] == UINT32_MAX)
			f->nic_idx[d] = next++;
}

int ccs_fabric_new(const struct ccs_comm *c, struct ccs_fabric **out)
{
	const struct ccs_topo *t = c->t;
	struct ccs_fabric *f = ccs_calloc(1, sizeof *f);
	if (!f)
		return CCS_ENOMEM;
	f->c = c;
	f->t = t;
	f->classes = CCS_CLASSES_EXACT;
	f->ngpu = t->ngpu;
	f->nres = fab_mem(f, t->ngpu);   /* up_index adds the uplinks */
	if (up_index(f)) {
		ccs_fabric_free(f);
		return CCS_ENOMEM;
	}
	f->cap = ccs_calloc((size_t)f->nres + 1, sizeof *f->cap);
	f->has_ports = ccs_calloc((size_t)t->ngpu + 1, 1);
	f->slow_mem = ccs_calloc((size_t)t->ngpu + 1, 1);
	f->dist = ccs_malloc(((size_t)t->ndev + 1) * sizeof *f->dist);
	f->nic_idx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *f->nic_idx);
	f->parent = ccs_malloc(((size_t)t->ndev + 1) * sizeof *f->parent);
	f->queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *f->queue);
	f->rc_cap = 1024;
	f->rc = ccs_calloc(f->rc_cap, sizeof *f->rc);
	if (!f->cap || !f->has_ports || !f->slow_mem || !f->dist || !f->nic_idx || !f->parent || !f->queue || !f->rc) {
		ccs_fabric_free(f);
		return CCS_ENOMEM;
	}
	int rc = pxn_index(f);
	if (!rc)
		rc = port_caps(f);
	if (rc) {
		ccs_fabric_free(f);
		return rc;
	}
	mem_caps(f);
	uplink_caps(f);
	for (uint32_t d = 0; d < t->ndev; d++)
		f->dist[d] = -1;
	number_nics(f);
	if (fab_dist_new(f)) {
		ccs_fabric_free(f);
		return CCS_ENOMEM;
	}
	f->routing = ccs_topo_routing(t);
	for (uint32_t r = 0; r < f->nres && !f->any_dead; r++)
		f->any_dead = !(f->cap[r] > 0);
	f->spray = t->fab.spray > 1 ? (uint32_t)t->fab.spray : 1;   /* the fabric's routing; --spray overrides */
	if (t->ntimed && timed_state(f)) {
		ccs_fabric_free(f);
		return CCS_ENOMEM;
	}
	*out = f;
	return CCS_OK;
}

/* The routes cached; with the distance tables too where links changed
 * (a plane setting leaves the tables, which no planed route reads). */
static void cache_clear(struct ccs_fabric *f, int links)
{
	memset(f->rc, 0, (size_t)f->rc_cap * sizeof *f->rc);
	f->rc_n = 0;
	if (links)
		fab_dist_clear(f);
}

int ccs_fabric_set_planes(struct ccs_fabric *f, uint32_t g, uint32_t mask)
{
	if (!f->planes && !(f->planes = ccs_calloc((size_t)f->ngpu + 1, sizeof *f->planes)))
		return CCS_ENOMEM;
	f->planes[g] = mask;
	cache_clear(f, 0);
	return CCS_OK;
}

void ccs_fabric_rewind(struct ccs_fabric *f)
{
	if (!f->cap0 || !f->next_timed)
		return;
	memcpy(f->cap, f->cap0, (size_t)f->nres * sizeof *f->cap);
	f->any_dead = 0;
	for (uint32_t r = 0; r < f->nres && !f->any_dead; r++)
		f->any_dead = !(f->cap[r] > 0);
	f->next_timed = 0;
	cache_clear(f, 1);
}

uint32_t ccs_fabric_epochs(const struct ccs_fabric *f)
{
	/* the faults are in time order; a strike takes every one of its tick */
	uint32_t n = 1;
	for (uint32_t i = 0; i < f->t->ntimed; i++)
		n += !i || ccs_time_from_s(f->t->timed[i].at_s) != ccs_time_from_s(f->t->timed[i - 1].at_s);
	return n;
}

ccs_time ccs_fabric_next_fault(const struct ccs_fabric *f)
{
	return f->next_timed < f->t->ntimed ? ccs_time_from_s(f->t->timed[f->next_timed].at_s) : CCS_TIME_MAX;
}

int ccs_fabric_live(const struct ccs_fabric *f, uint32_t res)
{
	return !f->any_dead || f->cap[res] > 0;
}

/* Note res as changed once. */
static void changed(struct ccs_fabric *f, uint32_t res)
{
	for (uint32_t i = 0; i < f->nchanged; i++)
		if (f->changed[i] == res)
			return;
	f->changed[f->nchanged++] = res;
}

int ccs_fabric_strike(struct ccs_fabric *f, const uint32_t **res, uint32_t *n, const char **spec)
{
	const struct ccs_topo *t = f->t;
	f->nchanged = 0;
	*spec = NULL;
	if (f->next_timed >= t->ntimed) {
		*res = f->changed;
		*n = 0;
		return CCS_OK;
	}
	ccs_time at = ccs_fabric_next_fault(f);
	*spec = t->timed[f->next_timed].spec;
	while (f->next_timed < t->ntimed && ccs_fabric_next_fault(f) == at) {
		const struct ccs_timed_fault *x = &t->timed[f->next_timed++];
		if (x->gpu_mem >= 0 && f->slow_mem[x->gpu_mem]) {
			uint32_t r = fab_mem(f, (uint32_t)x->gpu_mem);
			f->cap[r] *= x->share;
			changed(f, r);
		}
		for (uint32_t i = 0; i < x->nlink; i++) {
			uint32_t l = x->link[i];
			for (int dir = 0; dir < 2; dir++) {
				f->cap[fab_link(f, l, dir)] *= x->share;
				changed(f, fab_link(f, l, dir));
			}
			/* a GPU's scale-up ports are the sum of its scale-up links,
			 * a node's uplinks the sum of its uplink links */
			if (!ccs_link_is_scaleup(t->link[l].type))
				continue;
			int32_t un = f->nup ? ccs_topo_su_uplink_node(t, l) : -1;
			if (un >= 0 && (uint32_t)un < f->nup) {
				uplink_caps(f);
				changed(f, fab_up(f, (uint32_t)un, FAB_OUT));
				changed(f, fab_up(f, (uint32_t)un, FAB_IN));
			}
			uint32_t ends[2] = { t->link[l].a, t->link[l].b };
			for (int e = 0; e < 2; e++) {
				int32_t g = t->gpu_of_dev[ends[e]];
				if (g < 0 || !f->has_ports[g])
					continue;
				double cap = 0;
				for (uint32_t k = t->adj_off[ends[e]]; k < t->adj_off[ends[e] + 1]; k++)
					if (ccs_link_is_scaleup(t->link[t->adj[k]].type))
						cap += f->cap[fab_link(f, t->adj[k], 0)];
				f->cap[fab_port(f, (uint32_t)g, FAB_OUT)] = f->cap[fab_port(f, (uint32_t)g, FAB_IN)] = cap;
				changed(f, fab_port(f, (uint32_t)g, FAB_OUT));
				changed(f, fab_port(f, (uint32_t)g, FAB_IN));
			}
		}
	}
	cache_clear(f, 1);
	for (uint32_t i = 0; i < f->nchanged; i++)
		if (!(f->cap[f->changed[i]] > 0))
			f->any_dead = 1;
	*res = f->changed;
	*n = f->nchanged;
	return CCS_OK;
}

uint32_t ccs_fabric_nres(const struct ccs_fabric *f) { return f->nres; }
int ccs_fabric_ranks(const struct ccs_fabric *f) { return f->c->n; }

void ccs_fabric_faults(const struct ccs_fabric *f, char *buf, size_t n)
{
	buf[0] = 0;
	for (uint32_t i = 0; i < f->t->nfault; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "%s%s", i ? ", " : "", f->t->fault[i]);
	}
}

double ccs_fabric_start_s(const struct ccs_fabric *f, int rank)
{
	return f->t->gpu[f->c->rank_gpu[rank]].delay_s;
}
const double *ccs_fabric_caps(const struct ccs_fabric *f) { return f->cap; }

void ccs_fabric_res_name(const struct ccs_fabric *f, uint32_t res, char *buf, size_t n)
{
	const struct ccs_topo *t = f->t;
	if (res < fab_link(f, 0, 0)) {
		snprintf(buf, n, "%s scale-up %s", t->dev[t->gpu[res / 2].dev].name, res % 2 ? "in" : "out");
		return;
	}
	if (f->nup && res >= f->up0) {
		snprintf(buf, n, "node%u scale-up uplinks %s", (res - f->up0) / 2, (res - f->up0) % 2 ? "in" : "out");
		return;
	}
	if (res >= fab_mem(f, 0)) {
		snprintf(buf, n, "%s memory", t->dev[t->gpu[res - fab_mem(f, 0)].dev].name);
		return;
	}
	if (res >= fab_copy(f, 0, FAB_OUT)) {
		uint32_t k = res - fab_copy(f, 0, FAB_OUT);
		snprintf(buf, n, "%s copy %s", t->dev[t->gpu[k / 2].dev].name, k % 2 ? "in" : "out");
		return;
	}
	uint32_t l = (res - fab_link(f, 0, 0)) / 2, dir = (res - fab_link(f, 0, 0)) % 2;
	const struct ccs_link *lk = &t->link[l];
	uint32_t a = dir ? lk->b : lk->a, b = dir ? lk->a : lk->b;
	snprintf(buf, n, "%s->%s (%s)", t->dev[a].name, t->dev[b].name, ccs_link_type_name[lk->type]);
}

int ccs_fabric_res_kind(const struct ccs_fabric *f, uint32_t res)
{
	const struct ccs_topo *t = f->t;
	if (res < fab_link(f, 0, 0) || res >= fab_copy(f, 0, FAB_OUT))
		return 0;
	const struct ccs_link *lk = &t->link[(res - fab_link(f, 0, 0)) / 2];
	int ta = t->dev[lk->a].kind == CCS_DEV_NETSW ? t->dev[lk->a].tier : 0;
	int tb = t->dev[lk->b].kind == CCS_DEV_NETSW ? t->dev[lk->b].tier : 0;
	if (!ta && !tb)
		return 0;
	int lo = ta < tb ? ta : tb;
	return lo + 1 > CCS_TIER_CORE ? CCS_TIER_CORE : lo + 1;   /* NIC-leaf 1, leaf-spine 2, spine-core 3 */
}

void ccs_fabric_copy(const struct ccs_fabric *f, int a, int b, uint32_t *res, int *n)
{
	res[(*n)++] = fab_copy(f, f->c->rank_gpu[a], FAB_OUT);
	res[(*n)++] = fab_copy(f, f->c->rank_gpu[b], FAB_IN);
}

int ccs_fabric_is_copy(const struct ccs_fabric *f, uint32_t res)
{
	return res >= fab_copy(f, 0, FAB_OUT) && res < fab_mem(f, 0);
}

int ccs_fabric_is_mem(const struct ccs_fabric *f, uint32_t res)
{
	return res >= fab_mem(f, 0) && res < fab_mem(f, f->ngpu);
}

uint32_t ccs_fabric_mem(const struct ccs_fabric *f, int a)
{
	uint32_t g = f->c->rank_gpu[a];
	return f->slow_mem[g] ? fab_mem(f, g) : UINT32_MAX;
}

static uint32_t dir_res(const struct ccs_fabric *f, uint32_t link, uint32_t from)
{
	return fab_link(f, link, f->t->link[link].a == from ? 0 : 1);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The network search's state for a route's part way toward NIC nic_b. */
static void net_search(struct ccs_fabric *f, uint32_t way, uint32_t nic_b)
{
	f->cur_way = way;
	f->cur_dst = f->nic_idx[nic_b];
	f->cur_div = 1;
}

/* Shortest path from a to b over host links or network links
 * (fab_dist_search),
 * appended to res.  A network route on every plane reads its distances
 * from b's table where b has earned one (fabric_dist.c), the same ones the
 * search gives.
 * Among equal next hops a hash picks (ECMP, and a sprayed part's way),
 * or under destination-based routing in the network (dmodk, topo.h) the
 * destination's number: at the j-th hop with a choice, of k_j, the port
 * (d / (k_0 ... k_{j-1})) mod k_j. */
static int path(struct ccs_fabric *f, uint32_t a, uint32_t b, int net, uint64_t hash, uint32_t *res, int *n)
{
	const struct ccs_topo *t = f->t;
	if (a == b)
		return CCS_OK;
	const uint8_t *tab = net && !f->cur_planes ? fab_dist_have(f, b) : NULL;
	uint8_t want = net ? FAB_LNET : FAB_LHOST;
	uint32_t touched = tab ? 0 : fab_dist_search(f, a, b, net);
	f->cur_walked |= tab != NULL;
	int rc = CCS_OK, du = tab ? fab_dist_label(f, tab, b, a) : f->dist[a];
	if (du < 0) {
		rc = CCS_EINPUT;
		goto out;
	}
	for (uint32_t u = a; u != b; du--) {
		uint32_t cand[64], nc = 0;
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1] && nc < 64; k++) {
			if (!(f->lclass[t->adj[k]] & want) || !fab_link_up(f, t->adj[k]))
				continue;
			uint32_t v = t->adj_nbr[k];
			if (tab ? fab_dist_next(f, tab, b, v, du - 1) : f->dist[v] == du - 1)
				cand[nc++] = t->adj[k];
		}
		if (!nc || *n >= CCS_FLOW_MAXPATH) {
			rc = CCS_EINPUT;
			goto out;
		}
		uint32_t k = 0;
		if (nc > 1 && net && (f->routing == CCS_ROUTE_DMODK || f->cur_by_dst) && f->spray <= 1) {
			k = f->cur_dst / f->cur_div % nc;
			f->cur_div = f->cur_div > UINT32_MAX / nc ? 1 : f->cur_div * nc;
		} else if (nc > 1)
			k = (uint32_t)((mix(hash + (uint64_t)u) + (net ? f->cur_way : 0)) % nc);
		uint32_t pick = cand[k];
		res[(*n)++] = dir_res(f, pick, u);
		u = ccs_link_other(&t->link[pick], u);
	}
out:
	for (uint32_t i = 0; i < touched; i++)
		f->dist[f->queue[i]] = -1;
	if (!tab && net && !f->cur_planes)
		fab_dist_spent(f, b, touched);
	return rc;
}

/* The host part of a network transfer between GPU g (device gd) and a NIC,
 * either way: straight through the PCIe switches with
 * GPUDirect RDMA, through the GPU's CPU (staged in host memory) without. */
static int host_path(struct ccs_fabric *f, uint32_t g, uint32_t from, uint32_t to, uint64_t key, uint32_t *res,
                     int *n)
{
	const struct ccs_topo *t = f->t;
	uint32_t cpu = t->gpu[g].no_gdr ? ccs_gpu_cpu(t, g) : UINT32_MAX;
	if (cpu == UINT32_MAX)
		return path(f, from, to, 0, key, res, n);
	int rc = path(f, from, cpu, 0, key, res, n);
	return rc ? rc : path(f, cpu, to, 0, key, res, n);
}

/* Between GPUs ga and gb of one node over host links: straight, or with
 * P2P off through host memory at the sender's CPU (NCCL's SHM). */
static int node_path(struct ccs_fabric *f, uint32_t ga, uint32_t gb, uint64_t key, uint32_t *res, int *n)
{
	const struct ccs_topo *t = f->t;
	uint32_t da = t->gpu[ga].dev, db = t->gpu[gb].dev;
	uint32_t stage = t->gpu[ga].no_p2p || t->gpu[gb].no_p2p ? ccs_gpu_cpu(t, ga) : UINT32_MAX;
	if (stage == UINT32_MAX)
		return path(f, da, db, 0, key, res, n);
	int rc = path(f, da, stage, 0, key, res, n);
	return rc ? rc : path(f, stage, db, 0, key, res, n);
}

/* Between nodes of a two-tier scale-up domain: the sender's node uplinks
 * and the receiver's. */
static void up_hops(const struct ccs_fabric *f, uint32_t ga, uint32_t gb, uint32_t *res, int *n)
{
	int32_t na = f->t->gpu[ga].node, nb = f->t->gpu[gb].node;
	if (!f->nup || na == nb || na < 0 || nb < 0 || !f->up_has[na] || !f->up_has[nb])
		return;
	res[(*n)++] = fab_up(f, (uint32_t)na, FAB_OUT);
	res[(*n)++] = fab_up(f, (uint32_t)nb, FAB_IN);
}

static struct route_entry *cache_slot(struct ccs_fabric *f, uint64_t key)
{
	uint32_t i = (uint32_t)(mix(key) & (f->rc_cap - 1));
	while (f->rc[i].used && f->rc[i].key != key)
		i = (i + 1) & (f->rc_cap - 1);
	return &f->rc[i];
}

static int cache_grow(struct ccs_fabric *f)
{
	uint32_t oc = f->rc_cap;
	struct route_entry *old = f->rc;
	f->rc = ccs_calloc((size_t)oc * 2, sizeof *f->rc);
	if (!f->rc) {
		f->rc = old;
		return CCS_ENOMEM;
	}
	f->rc_cap = oc * 2;
	for (uint32_t i = 0; i < oc; i++)
		if (old[i].used)
			*cache_slot(f, old[i].key) = old[i];
	ccs_free(old);
	return CCS_OK;
}

int ccs_fabric_ports(const struct ccs_fabric *f, int a, uint32_t *res, int *n)
{
	uint32_t g = f->c->rank_gpu[a];
	if (!f->has_ports[g])
		return CCS_EINPUT;
	res[0] = fab_port(f, g, FAB_OUT);
	res[1] = fab_port(f, g, FAB_IN);
	*n = 2;
	return CCS_OK;
}

void ccs_fabric_set_spray(struct ccs_fabric *f, uint32_t K) { f->spray = K; }
uint32_t ccs_fabric_spray(const struct ccs_fabric *f) { return f->spray > 1 ? f->spray : 1; }
void ccs_fabric_set_classes(struct ccs_fabric *f, int mode) { f->classes = (uint8_t)mode; }
int ccs_fabric_classes(const struct ccs_fabric *f) { return f->classes; }

int ccs_fabric_crosses(const struct ccs_fabric *f, int a, int b)
{
	return f->c->rank_group[a] != f->c->rank_group[b];
}

int ccs_fabric_route(struct ccs_fabric *f, int a, int b, uint32_t nic_a, uint32_t nic_b, uint32_t salt,
                     uint32_t *res, int *n)
{
	return ccs_fabric_route_way(f, a, b, nic_a, nic_b, salt, 0, res, n);
}

/* PXN: the GPU of ga's node at gb's place (its rail), which sends for ga
 * over the scale-up ports (UINT32_MAX: ga itself), and the NIC it sends
 * by (*nic_a), chosen by *salt as a rank spreads its channels; *salt
 * changes, so PXN routes cache apart from direct ones. */
static uint32_t pxn_proxy(struct ccs_fabric *f, uint32_t ga, uint32_t gb, uint32_t *nic_a, uint32_t *salt)
{
	const struct ccs_topo *t = f->t;
	const struct ccs_gpu *pa = &t->gpu[ga], *pb = &t->gpu[gb];
	uint32_t proxy = UINT32_MAX;
	uint32_t gp = pa->node >= 0 && pb->local >= 0 && pb->local < f->L
	            ? f->gpu_at[(size_t)pa->node * (size_t)f->L + (size_t)pb->local] : UINT32_MAX;
	if (gp != UINT32_MAX && gp != ga && f->has_ports[ga] && f->has_ports[gp] && t->gpu[gp].domain == pa->domain &&
	    t->gpu[gp].nic_count)
		proxy = gp;
	uint32_t via = proxy != UINT32_MAX ? proxy : ga;
	uint32_t nb = ccs_topo_best_nics(t, &t->gpu[via]);
	*nic_a = nb ? t->gnic[t->gpu[via].nic_first + *salt % nb].nic : UINT32_MAX;
	*salt ^= 0x5bd1e995u;
	return proxy;
}

int ccs_fabric_route_way(struct ccs_fabric *f, int a, int b, uint32_t nic_a, uint32_t nic_b, uint32_t salt,
                         uint32_t way, uint32_t *res, int *n)
{
	const struct ccs_comm *c = f->c;
	const struct ccs_topo *t = f->t;
	uint32_t ga = c->rank_gpu[a], gb = c->rank_gpu[b];
	int by_dst = way == CCS_FABRIC_WAY_DST;
	if (by_dst)
		way = 0;
	*n = 0;
	if (a == b)
		return CCS_OK;
	if (c->rank_group[a] == c->rank_group[b] && !t->gpu[ga].no_p2p && !t->gpu[gb].no_p2p) {
		if (f->has_ports[ga] && f->has_ports[gb] && t->gpu[ga].domain == t->gpu[gb].domain) {
			res[0] = fab_port(f, ga, FAB_OUT);
			res[1] = fab_port(f, gb, FAB_IN);
			*n = 2;
			up_hops(f, ga, gb, res, n);
			return CCS_OK;
		}
	}
	uint32_t proxy = nic_a == CCS_NIC_PXN ? pxn_proxy(f, ga, gb, &nic_a, &salt) : UINT32_MAX;
	if (nic_a == UINT32_MAX)
		nic_a = t->gpu[ga].nic_count ? t->gnic[t->gpu[ga].nic_first].nic : UINT32_MAX;
	if (nic_b == UINT32_MAX)
		nic_b = t->gpu[gb].nic_count ? t->gnic[t->gpu[gb].nic_first].nic : UINT32_MAX;
	uint64_t key = ((uint64_t)ga * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)gb << 21) ^ ((uint64_t)nic_a << 42) ^
	               ((uint64_t)nic_b * 0xc2b2ae3d27d4eb4full) ^ ((uint64_t)salt << 7);
	/* the cache tells the parts apart; the hash of the path does not */
	uint64_t ckey = way ? key ^ mix((uint64_t)way * 0xd6e8feb86659fd93ull) : key;
	if (by_dst && f->routing != CCS_ROUTE_DMODK)
		ckey = mix(ckey ^ 0xb1d57u);   /* by destination: apart from the hashed route */
	struct route_entry *e = cache_slot(f, ckey);
	if (e->used) {
		memcpy(res, e->res, e->n * sizeof *res);
		*n = e->n;
		return CCS_OK;
	}
	uint32_t da = t->gpu[ga].dev, db = t->gpu[gb].dev;
	int rc, walked = 0;
	if (t->dev[da].node == t->dev[db].node && t->dev[da].node >= 0 && c->rank_group[a] == c->rank_group[b]) {
		rc = node_path(f, ga, gb, key, res, n);
	} else {
		if (nic_a == UINT32_MAX || nic_b == UINT32_MAX)
			return CCS_EINPUT;
		f->cur_planes = f->planes ? f->planes[ga] : 0;
		if (proxy != UINT32_MAX) {
			/* over the scale-up ports to the proxy, then its host path */
			res[(*n)++] = fab_port(f, ga, FAB_OUT);
			res[(*n)++] = fab_port(f, proxy, FAB_IN);
			da = t->gpu[proxy].dev;
		}
		rc = host_path(f, proxy != UINT32_MAX ? proxy : ga, da, nic_a, key, res, n);
		net_search(f, way, nic_b);
		f->cur_by_dst = by_dst;
		f->cur_walked = 0;
		if (!rc)
			rc = path(f, nic_a, nic_b, 1, key, res, n);
		walked = f->cur_walked;
		f->cur_planes = 0;
		f->cur_way = 0;
		f->cur_by_dst = 0;
		if (!rc)
			rc = host_path(f, gb, nic_b, db, key, res, n);
	}
	/* a route whose network part walked a table costs its hops again:
	 * an AllToAll's would fill the cache with routes asked once */
	if (rc || walked)
		return rc;
	if (f->rc_n * 2 >= f->rc_cap) {
		CCS_TRY(cache_grow(f));
		e = cache_slot(f, ckey);
	}
	e->used = 1;
	e->key = ckey;
	e->n = (uint8_t)*n;
	memcpy(e->res, res, *n * sizeof *res);
	f->rc_n++;
	return CCS_OK;
}

int ccs_fabric_uplink(struct ccs_fabric *f, int a, uint32_t nic, int down, uint32_t *res, int *n)
{
	const struct ccs_topo *t = f->t;
	uint32_t g = f->c->rank_gpu[a];
	*n = 0;
	if (nic == UINT32_MAX)
		nic = t->gpu[g].nic_count ? t->gnic[t->gpu[g].nic_first].nic : UINT32_MAX;
	if (nic == UINT32_MAX)
		return CCS_EINPUT;
	uint32_t port = UINT32_MAX;
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1] && port == UINT32_MAX; k++)
		if ((f->lclass[t->adj[k]] & FAB_LNET) && fab_link_up(f, t->adj[k]))
			port = t->adj[k];
	if (port == UINT32_MAX)
		return CCS_EINPUT;
	uint64_t key = ((uint64_t)g << 32) ^ nic;
	if (!down) {
		CCS_TRY(path(f, t->gpu[g].dev, nic, 0, key, res, n));
		if (*n >= CCS_FLOW_MAXPATH)
			return CCS_EINPUT;
		res[(*n)++] = dir_res(f, port, nic);
		return CCS_OK;
	}
	res[(*n)++] = dir_res(f, port, ccs_link_other(&t->link[port], nic));
	return path(f, nic, t->gpu[g].dev, 0, key, res, n);
}
