/* model/topo.c: the topology graph: building, checking, deriving (topo.h). */
#include "topo.h"
#include "params.h"

#include <stdlib.h>
#include <string.h>

const char *const ccs_dev_kind_name[CCS_DEV_NKINDS] = {
	"gpu", "scaleup_switch", "pcie_switch", "cpu", "nic", "switch",
};
const char *const ccs_link_type_name[CCS_LINK_NTYPES] = {
	"nvlink", "c2c", "pcie", "smp", "ib", "roce", "ethernet", "ub", "hccs", "xgmi",
};
const char *const ccs_tier_name[CCS_TIER_N] = { "none", "leaf", "spine", "core" };
const char *const ccs_path_name[CCS_PATH_N] = { "PIX", "PXB", "P2C", "PHB", "SYS" };
const char *const ccs_arch_name[CCS_ARCH_N] = { "volta", "ampere", "hopper", "blackwell" };

void ccs_model_params_default(struct ccs_model_params *p)
{
	memset(p, 0, sizeof *p);
	/* every figure from the parameter table (model/params.c), with its
	 * source there; NVLink's is Hopper's until ccs_topo_finish knows the
	 * GPUs (ccs_topo_finish: their generation's row) */
	static const struct { int type; const char *key; } eff[] = {
		{ CCS_LINK_NVLINK, "efficiency.nvlink.hopper" }, { CCS_LINK_UB, "efficiency.ub" },
		{ CCS_LINK_HCCS, "efficiency.hccs" }, { CCS_LINK_XGMI, "efficiency.xgmi" },
		{ CCS_LINK_C2C, "efficiency.c2c" }, { CCS_LINK_PCIE, "efficiency.pcie" },
		{ CCS_LINK_SMP, "efficiency.smp" }, { CCS_LINK_IB, "efficiency.ib" },
		{ CCS_LINK_ROCE, "efficiency.roce" }, { CCS_LINK_ETHERNET, "efficiency.ethernet" },
	};
	for (size_t i = 0; i < sizeof eff / sizeof eff[0]; i++)
		p->eff[eff[i].type] = ccs_param(eff[i].key);
	p->step_s[0] = ccs_param("step_overhead.LL") * 1e-6;
	p->step_s[1] = ccs_param("step_overhead.LL128") * 1e-6;
	p->step_s[2] = ccs_param("step_overhead.Simple") * 1e-6;
	p->ep_overhead_s = ccs_param("ep_overhead") * 1e-6;
	p->shot_overhead_s[0] = ccs_param("oneshot_overhead") * 1e-6;
	p->shot_overhead_s[1] = ccs_param("twoshot_overhead") * 1e-6;
	p->twoshot_eff = ccs_param("twoshot_efficiency");
	p->mem_traffic[0] = ccs_param("memory.copy_traffic");
	p->mem_traffic[1] = ccs_param("memory.reduce_traffic");
	p->transport = -1;
	p->nvlink_arch = -1;
}

/* NVLink's efficiency from the generation of the oldest GPU with NVLink
 * links, unless the topology (or --set, or a calibration) gave one. */
static void resolve_nvlink(struct ccs_topo *t)
{
	if (t->params.eff_set >> CCS_LINK_NVLINK & 1)
		return;
	int arch = CCS_ARCH_N;
	for (uint32_t l = 0; l < t->nlink; l++) {
		if (t->link[l].type != CCS_LINK_NVLINK)
			continue;
		uint32_t ends[2] = { t->link[l].a, t->link[l].b };
		for (int e = 0; e < 2; e++)
			if (t->dev[ends[e]].kind == CCS_DEV_GPU && t->dev[ends[e]].arch < arch)
				arch = t->dev[ends[e]].arch;
	}
	if (arch == CCS_ARCH_N)
		return;
	t->params.eff[CCS_LINK_NVLINK] = ccs_params_nvlink_eff(ccs_arch_name[arch], NULL);
	t->params.nvlink_arch = arch;
}

int ccs_link_is_scaleup(int type)
{
	return type == CCS_LINK_NVLINK || type == CCS_LINK_UB || type == CCS_LINK_HCCS || type == CCS_LINK_XGMI;
}

int ccs_link_is_host(int type)
{
	return type == CCS_LINK_PCIE || type == CCS_LINK_C2C || type == CCS_LINK_SMP;
}

int ccs_link_is_network(int type)
{
	return type == CCS_LINK_IB || type == CCS_LINK_ROCE || type == CCS_LINK_ETHERNET;
}

struct ccs_topo *ccs_topo_new(void)
{
	struct ccs_topo *t = ccs_calloc(1, sizeof *t);
	if (t) {
		ccs_arena_init(&t->arena);
		ccs_model_params_default(&t->params);
	}
	return t;
}

void ccs_topo_free(struct ccs_topo *t)
{
	if (!t)
		return;
	ccs_free(t->dev);
	ccs_free(t->link);
	ccs_free(t->adj_off);
	ccs_free(t->adj);
	ccs_free(t->adj_nbr);
	ccs_free(t->gpu);
	ccs_free(t->gpu_of_dev);
	ccs_free(t->gnic);
	ccs_arena_release(&t->arena);
	ccs_free(t);
}

int ccs_topo_add_dev(struct ccs_topo *t, const struct ccs_dev *d, uint32_t *idx)
{
	if (t->ndev == UINT32_MAX - 1)
		return CCS_ENOMEM;
	CCS_TRY(ccs_grow(&t->dev, &t->dev_cap, (size_t)t->ndev + 1, sizeof *t->dev));
	t->dev[t->ndev] = *d;
	if (idx)
		*idx = t->ndev;
	t->ndev++;
	return CCS_OK;
}

int ccs_topo_reserve(struct ccs_topo *t, size_t ndev, size_t nlink)
{
	CCS_TRY(ccs_grow(&t->dev, &t->dev_cap, ndev, sizeof *t->dev));
	return ccs_grow(&t->link, &t->link_cap, nlink, sizeof *t->link);
}

int ccs_topo_add_link(struct ccs_topo *t, const struct ccs_link *l)
{
	if (t->nlink >= UINT32_MAX / 2 - 1)
		return CCS_ENOMEM;
	CCS_TRY(ccs_grow(&t->link, &t->link_cap, (size_t)t->nlink + 1, sizeof *t->link));
	t->link[t->nlink++] = *l;
	return CCS_OK;
}

int64_t ccs_topo_find(const struct ccs_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->ndev; i++)
		if (!strcmp(t->dev[i].name, name))
			return i;
	return -1;
}

static int build_adjacency(struct ccs_topo *t)
{
	t->adj_off = ccs_calloc((size_t)t->ndev + 1, sizeof *t->adj_off);
	t->adj = ccs_malloc(((size_t)t->nlink * 2 + 1) * sizeof *t->adj);
	t->adj_nbr = ccs_malloc(((size_t)t->nlink * 2 + 1) * sizeof *t->adj_nbr);
	if (!t->adj_off || !t->adj || !t->adj_nbr)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < t->nlink; i++) {
		t->adj_off[t->link[i].a + 1]++;
		t->adj_off[t->link[i].b + 1]++;
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		t->adj_off[d + 1] += t->adj_off[d];
	uint32_t *fill = ccs_malloc(((size_t)t->ndev + 1) * sizeof *fill);
	if (!fill)
		return CCS_ENOMEM;
	memcpy(fill, t->adj_off, (size_t)t->ndev * sizeof *fill);
	for (uint32_t i = 0; i < t->nlink; i++) {
		uint32_t a = t->link[i].a, b = t->link[i].b;
		t->adj_nbr[fill[a]] = b;
		t->adj[fill[a]++] = i;
		t->adj_nbr[fill[b]] = a;
		t->adj[fill[b]++] = i;
	}
	ccs_free(fill);
	return CCS_OK;
}

static int check_links(const struct ccs_topo *t, struct ccs_diag *diag)
{
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		if (l->a >= t->ndev || l->b >= t->ndev)
			CCS_BUG("link endpoint out of range");
		if (l->a == l->b)
			return ccs_diag_at(diag, l->mark, "link joins '%s' to itself", t->dev[l->a].name);
	}
	for (uint32_t d = 0; d < t->ndev; d++)
		if (t->adj_off[d] == t->adj_off[d + 1])
			return ccs_diag_at(diag, t->dev[d].mark, "%s '%s' has no links",
			                   ccs_dev_kind_name[t->dev[d].kind], t->dev[d].name);
	return CCS_OK;
}

/* Breadth-first search from src over links accepted by ok(); dist gets hop
 * counts (-1 unreached) and, if parent is non-NULL, the link used to arrive.
 * pass(d) tells whether the search may continue through device d. */
typedef int link_ok_fn(const struct ccs_topo *t, const struct ccs_link *l);
typedef int dev_pass_fn(const struct ccs_topo *t, uint32_t d);

static void bfs(const struct ccs_topo *t, uint32_t src, link_ok_fn *ok, dev_pass_fn *pass,
                int32_t *dist, uint32_t *parent, uint32_t *queue, uint32_t *touched, uint32_t *ntouched)
{
	uint32_t qh = 0, qt = 0;
	dist[src] = 0;
	queue[qt++] = src;
	if (touched)
		touched[(*ntouched)++] = src;
	while (qh < qt) {
		uint32_t u = queue[qh++];
		if (u != src && pass && !pass(t, u))
			continue;
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			if (ok && !ok(t, &t->link[t->adj[k]]))
				continue;
			uint32_t v = t->adj_nbr[k];
			if (dist[v] >= 0)
				continue;
			dist[v] = dist[u] + 1;
			if (parent)
				parent[v] = t->adj[k];
			queue[qt++] = v;
			if (touched)
				touched[(*ntouched)++] = v;
		}
	}
}

static int check_connected(const struct ccs_topo *t, int32_t *dist, uint32_t *queue,
                           struct ccs_diag *diag)
{
	for (uint32_t d = 0; d < t->ndev; d++)
		dist[d] = -1;
	uint32_t g0 = t->gpu[0].dev;
	bfs(t, g0, NULL, NULL, dist, NULL, queue, NULL, NULL);
	for (uint32_t g = 0; g < t->ngpu; g++)
		if (dist[t->gpu[g].dev] < 0)
			return ccs_diag_at(diag, t->dev[t->gpu[g].dev].mark,
			                   "gpu '%s' is not connected to gpu '%s'",
			                   t->dev[t->gpu[g].dev].name, t->dev[g0].name);
	for (uint32_t d = 0; d < t->ndev; d++)
		if (dist[d] < 0)
			return ccs_diag_at(diag, t->dev[d].mark, "%s '%s' is not connected to any gpu",
			                   ccs_dev_kind_name[t->dev[d].kind], t->dev[d].name);
	return CCS_OK;
}

static int check_nics(const struct ccs_topo *t, struct ccs_diag *diag)
{
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_NIC)
			continue;
		int host = 0, net = 0;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
			int ty = t->link[t->adj[k]].type;
			host |= ccs_link_is_host(ty);
			net |= ccs_link_is_network(ty);
		}
		if (!host)
			return ccs_diag_at(diag, t->dev[d].mark,
			                   "nic '%s' has no pcie or c2c link to its host", t->dev[d].name);
		if (!net)
			return ccs_diag_at(diag, t->dev[d].mark,
			                   "nic '%s' has no path to the fabric (no ib, roce or ethernet link)",
			                   t->dev[d].name);
	}
	return CCS_OK;
}

static int scaleup_ok(const struct ccs_topo *t, const struct ccs_link *l)
{
	(void)t;
	return ccs_link_is_scaleup(l->type);
}

static int scaleup_pass(const struct ccs_topo *t, uint32_t d)
{
	return t->dev[d].kind == CCS_DEV_GPU || t->dev[d].kind == CCS_DEV_SUSW;
}

static int host_ok(const struct ccs_topo *t, const struct ccs_link *l)
{
	(void)t;
	return ccs_link_is_host(l->type) && ccs_link_live(l);
}

uint32_t ccs_gpu_cpu(const struct ccs_topo *t, uint32_t g)
{
	uint32_t gd = t->gpu[g].dev;
	for (uint32_t d = 0; d < t->ndev; d++)
		if (t->dev[d].kind == CCS_DEV_CPU && t->dev[d].node == t->dev[gd].node && t->dev[d].numa == t->dev[gd].numa)
			return d;
	return UINT32_MAX;
}

int ccs_nic_live(const struct ccs_topo *t, uint32_t nic)
{
	if (t->dev[nic].kind != CCS_DEV_NIC || t->dev[nic].bw_Bps < 0)
		return 0;
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++) {
		const struct ccs_link *l = &t->link[t->adj[k]];
		if (ccs_link_is_network(l->type) && ccs_link_live(l))
			return 1;
	}
	return 0;
}

/* Host paths go through PCIe switches and CPUs only, never through another
 * GPU or NIC. */
static int host_pass(const struct ccs_topo *t, uint32_t d)
{
	return t->dev[d].kind == CCS_DEV_PCISW || t->dev[d].kind == CCS_DEV_CPU;
}

static void derive_domains(struct ccs_topo *t, int32_t *dist, uint32_t *queue)
{
	for (uint32_t d = 0; d < t->ndev; d++)
		dist[d] = -1;
	int32_t ndom = 0;
	for (uint32_t g = 0; g < t->ngpu; g++) {
		uint32_t src = t->gpu[g].dev;
		if (dist[src] >= 0)
			continue;
		uint32_t n = 0;
		bfs(t, src, scaleup_ok, scaleup_pass, dist, NULL, queue, queue, &n);
		/* bfs used queue as both queue and touched list: entries are the
		 * reached devices in order. */
		for (uint32_t i = 0; i < n; i++)
			if (t->dev[queue[i]].kind == CCS_DEV_GPU)
				t->dev[queue[i]].domain = ndom;
		ndom++;
	}
	t->ndomains = ndom;
	for (uint32_t g = 0; g < t->ngpu; g++)
		t->gpu[g].domain = t->dev[t->gpu[g].dev].domain;
}

static int path_class(const struct ccs_topo *t, uint32_t src, uint32_t dst, const uint32_t *parent)
{
	int smp = 0, c2c = 0, cpu = 0, sw = 0;
	uint32_t v = dst;
	while (v != src) {
		const struct ccs_link *l = &t->link[parent[v]];
		smp |= l->type == CCS_LINK_SMP;
		c2c |= l->type == CCS_LINK_C2C;
		v = ccs_link_other(l, v);
		if (v != src) {
			cpu |= t->dev[v].kind == CCS_DEV_CPU;
			sw += t->dev[v].kind == CCS_DEV_PCISW;
		}
	}
	if (smp)
		return CCS_PATH_SYS;
	if (cpu)
		return c2c ? CCS_PATH_P2C : CCS_PATH_PHB;
	return sw <= 1 ? CCS_PATH_PIX : CCS_PATH_PXB;
}

/* Best first: path class, hops, then the rail that matches the GPU's local
 * index (GPU i of a node prefers NIC i among equals, as rails are cabled),
 * then the device index. */
static int gnic_cmp(const void *a, const void *b)
{
	const struct ccs_gpu_nic *x = a, *y = b;
	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	if (x->rail_dist != y->rail_dist)
		return x->rail_dist < y->rail_dist ? -1 : 1;
	return x->nic < y->nic ? -1 : x->nic > y->nic;
}

/* A GPU held to one NIC (a rail fault: NCCL_IB_HCA naming it) keeps that
 * NIC alone in its list, when the NIC is live and reached over host links;
 * else its nearest ones as usual. */
static void force_nic(struct ccs_topo *t, struct ccs_gpu *gp)
{
	for (uint32_t i = 0; gp->nic_force && i < gp->nic_count; i++)
		if (t->gnic[gp->nic_first + i].nic == gp->nic_force - 1) {
			t->gnic[gp->nic_first] = t->gnic[gp->nic_first + i];
			gp->nic_count = 1;
			t->ngnic = gp->nic_first + 1;
			return;
		}
}

/* For every GPU, the NICs of its node over host links, and its NUMA node. */
static int derive_nics(struct ccs_topo *t, int32_t *dist, uint32_t *queue)
{
	uint32_t *parent = ccs_malloc(((size_t)t->ndev + 1) * sizeof *parent);
	uint32_t *touched = ccs_malloc(((size_t)t->ndev + 1) * sizeof *touched);
	size_t cap = 0;
	int rc = CCS_ENOMEM;
	if (!parent || !touched)
		goto out;
	for (uint32_t d = 0; d < t->ndev; d++)
		dist[d] = -1;
	t->ngnic = 0;
	for (uint32_t g = 0; g < t->ngpu; g++) {
		uint32_t src = t->gpu[g].dev, n = 0;
		bfs(t, src, host_ok, host_pass, dist, parent, queue, touched, &n);
		t->gpu[g].nic_first = t->ngnic;
		int best_cpu_d = -1;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = touched[i];
			const struct ccs_dev *dv = &t->dev[v];
			if (dv->kind == CCS_DEV_CPU && best_cpu_d < 0) {
				best_cpu_d = dist[v];
				t->dev[src].numa = dv->numa;
			}
			if (dv->kind != CCS_DEV_NIC || dv->node != t->gpu[g].node || !ccs_nic_live(t, v))
				continue;
			if (ccs_grow(&t->gnic, &cap, (size_t)t->ngnic + 1, sizeof *t->gnic))
				goto out;
			struct ccs_gpu_nic *e = &t->gnic[t->ngnic++];
			e->nic = v;
			e->path = (uint8_t)path_class(t, src, v, parent);
			e->hops = (uint8_t)(dist[v] > 255 ? 255 : dist[v]);
			e->rail_dist = (uint32_t)(dv->rail - t->gpu[g].local) & 0xffffu;
		}
		t->gpu[g].nic_count = t->ngnic - t->gpu[g].nic_first;
		if (t->gpu[g].nic_count > 1)
			qsort(t->gnic + t->gpu[g].nic_first, t->gpu[g].nic_count, sizeof *t->gnic, gnic_cmp);
		force_nic(t, &t->gpu[g]);
		for (uint32_t i = 0; i < n; i++)
			dist[touched[i]] = -1;
	}
	/* NICs take the NUMA node of their nearest CPU too. */
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_NIC)
			continue;
		uint32_t n = 0;
		bfs(t, d, host_ok, host_pass, dist, NULL, queue, touched, &n);
		for (uint32_t i = 0; i < n; i++)
			if (t->dev[touched[i]].kind == CCS_DEV_CPU) {
				t->dev[d].numa = t->dev[touched[i]].numa;
				break;
			}
		for (uint32_t i = 0; i < n; i++)
			dist[touched[i]] = -1;
	}
	rc = CCS_OK;
out:
	ccs_free(parent);
	ccs_free(touched);
	return rc;
}

uint32_t ccs_topo_best_nics(const struct ccs_topo *t, const struct ccs_gpu *gp)
{
	uint32_t m = 0;
	while (m < gp->nic_count && t->gnic[gp->nic_first + m].path == t->gnic[gp->nic_first].path)
		m++;
	return m;
}

double ccs_topo_nic_speed(const struct ccs_topo *t, uint32_t nic)
{
	if (t->dev[nic].bw_Bps > 0)
		return t->dev[nic].bw_Bps;
	double s = 0;
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++)
		if (ccs_link_is_network(t->link[t->adj[k]].type))
			s += t->link[t->adj[k]].bw_Bps;
	return s;
}

int ccs_topo_nic_net_type(const struct ccs_topo *t, uint32_t nic)
{
	for (uint32_t k = t->adj_off[nic]; k < t->adj_off[nic + 1]; k++)
		if (ccs_link_is_network(t->link[t->adj[k]].type))
			return t->link[t->adj[k]].type;
	return CCS_LINK_IB;
}

int32_t ccs_topo_su_uplink_node(const struct ccs_topo *t, uint32_t l)
{
	const struct ccs_link *k = &t->link[l];
	const struct ccs_dev *a = &t->dev[k->a], *b = &t->dev[k->b];
	if (!ccs_link_is_scaleup(k->type) || a->kind != CCS_DEV_SUSW || b->kind != CCS_DEV_SUSW || a->node == b->node)
		return -1;
	return a->node >= 0 ? a->node : b->node;
}

int ccs_topo_su_uplinks(const struct ccs_topo *t, double *up)
{
	int any = 0;
	for (int32_t n = 0; n < t->nnodes; n++)
		up[n] = 0;
	for (uint32_t l = 0; l < t->nlink; l++) {
		int32_t n = ccs_topo_su_uplink_node(t, l);
		if (n >= 0 && n < t->nnodes) {
			up[n] += t->link[l].bw_Bps;
			any = 1;
		}
	}
	return any;
}

int ccs_topo_refresh(struct ccs_topo *t)
{
	for (uint32_t g = 0; g < t->ngpu; g++) {
		uint32_t d = t->gpu[g].dev;
		t->gpu[g].su_bw_Bps = 0;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (ccs_link_is_scaleup(l->type))
				t->gpu[g].su_bw_Bps += l->bw_Bps;
		}
	}
	int32_t *dist = ccs_malloc(((size_t)t->ndev + 1) * sizeof *dist);
	uint32_t *queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *queue);
	struct ccs_gpu_nic *old = t->gnic;
	uint32_t oldn = t->ngnic;
	int rc = CCS_ENOMEM;
	if (dist && queue) {
		t->gnic = NULL;
		rc = derive_nics(t, dist, queue);
		if (rc) {
			ccs_free(t->gnic);
			t->gnic = old;
			t->ngnic = oldn;
		} else {
			ccs_free(old);
		}
	}
	ccs_free(dist);
	ccs_free(queue);
	return rc;
}

int ccs_topo_finish(struct ccs_topo *t, struct ccs_diag *diag)
{
	int rc;
	int32_t *dist = NULL;
	uint32_t *queue = NULL;

	CCS_TRY(build_adjacency(t));
	CCS_TRY(check_links(t, diag));

	t->gpu_of_dev = ccs_malloc(((size_t)t->ndev + 1) * sizeof *t->gpu_of_dev);
	if (!t->gpu_of_dev)
		return CCS_ENOMEM;
	uint32_t ngpu = 0;
	int32_t maxnode = -1;
	for (uint32_t d = 0; d < t->ndev; d++) {
		t->gpu_of_dev[d] = -1;
		if (t->dev[d].kind == CCS_DEV_GPU)
			ngpu++;
		if (t->dev[d].node > maxnode)
			maxnode = t->dev[d].node;
	}
	if (!ngpu)
		return ccs_diag_at(diag, t->ndev ? t->dev[0].mark : (struct ccs_mark){ 0, 1, 1 },
		                   "topology has no gpus");
	t->nnodes = maxnode + 1;
	t->gpu = ccs_calloc(ngpu, sizeof *t->gpu);
	if (!t->gpu)
		return CCS_ENOMEM;
	int32_t *local = ccs_calloc((size_t)t->nnodes + 1, sizeof *local);
	if (!local)
		return CCS_ENOMEM;
	for (uint32_t d = 0; d < t->ndev; d++) {
		if (t->dev[d].kind != CCS_DEV_GPU)
			continue;
		struct ccs_gpu *g = &t->gpu[t->ngpu];
		g->dev = d;
		g->node = t->dev[d].node;
		g->local = g->node >= 0 ? local[g->node]++ : 0;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++) {
			const struct ccs_link *l = &t->link[t->adj[k]];
			if (ccs_link_is_scaleup(l->type))
				g->su_bw_Bps += l->bw_Bps;
		}
		t->gpu_of_dev[d] = (int32_t)t->ngpu++;
	}
	ccs_free(local);

	dist = ccs_malloc(((size_t)t->ndev + 1) * sizeof *dist);
	queue = ccs_malloc(((size_t)t->ndev + 1) * sizeof *queue);
	rc = CCS_ENOMEM;
	if (!dist || !queue)
		goto out;
	rc = check_connected(t, dist, queue, diag);
	if (rc)
		goto out;
	rc = check_nics(t, diag);
	if (rc)
		goto out;
	derive_domains(t, dist, queue);
	rc = derive_nics(t, dist, queue);
	resolve_nvlink(t);
out:
	ccs_free(dist);
	ccs_free(queue);
	return rc;
}

const char *const ccs_routing_name[CCS_ROUTE_N] = { "dmodk", "ecmp", "spray", "adaptive" };

int ccs_topo_routing(const struct ccs_topo *t)
{
	if (t->fab.routing >= 0 && t->fab.routing < CCS_ROUTE_N)
		return t->fab.routing;
	if (t->fab.spray > 1)
		return CCS_ROUTE_SPRAY;
	for (uint32_t l = 0; l < t->nlink; l++)
		if (ccs_link_is_network(t->link[l].type))
			return t->link[l].type == CCS_LINK_IB ? CCS_ROUTE_DMODK : CCS_ROUTE_ECMP;
	return CCS_ROUTE_DMODK;
}

uint32_t ccs_topo_nic_leaf(const struct ccs_topo *t, uint32_t nic)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t x = t->adj_off[nic]; x < t->adj_off[nic + 1]; x++) {
		uint32_t d = t->adj_nbr[x];
		if (t->dev[d].kind == CCS_DEV_NETSW && d < best)
			best = d;
	}
	return best == UINT32_MAX ? nic : best;
}

int ccs_topo_transport_of_link(int link_type)
{
	return link_type == CCS_LINK_ROCE ? CCS_TR_ROCE : link_type == CCS_LINK_ETHERNET ? CCS_TR_SOCKET : CCS_TR_IB;
}

int ccs_topo_transport(const struct ccs_topo *t, int named)
{
	int tr = named;
	for (uint32_t l = 0; l < t->nlink && tr < 0; l++)
		if (ccs_link_is_network(t->link[l].type))
			tr = ccs_topo_transport_of_link(t->link[l].type);
	return tr < 0 ? CCS_TR_IB : tr;
}
