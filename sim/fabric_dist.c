/*
** sim/fabric_dist.c: distances toward a route's destination: the search
** every uncached route makes (host or network), and the network's
** distances kept per destination NIC (fabric_int.h).
**
** A network route (fabric.c's path) walks from the source NIC down the
** hop distances toward the destination b, picking among the equal next
** hops.  A search from b that stops at the source finds those distances
** again for every route, and in a large fat tree it touches most of the
** network first (an AllToAll routes every pair once, so the route cache
** never hits: at 8,192 ranks on a three-tier fabric the searches were 85%
** of a per-flow run).  Here a destination that has cost its searches as
** many devices as the network holds (switches and NICs: a search toward a
** neighbour under the same leaf touches a few dozen, one across a
** three-tier fabric most of it) gets a full search of its own, which gives
** every network switch its distance to b, kept as one byte a switch; any
** other device's distance is 1 + the least over its live network
** neighbours that a search expands (b itself and the switches), which is
** what the search from b labels it.  The walk then reads the same
** distances as the search gives every device it compares, so it picks the
** same hops, and what the searches cost stays within twice the cheaper of
** searching every route and keeping every table (a ring's routes, to
** neighbours, never earn one).
** The tables take nsw bytes a destination, one slot per NIC where
** FAB_DIST_BYTES (or what ccs_fabric_set_route_tables allows) holds them
** all, else that many bytes of direct-mapped slots (a destination replaces
** the one in its slot, which earns its table again); none: every route
** searches.  Routes restricted to some network planes search as before
** and read no table, so a plane setting leaves them; a fault clears them
** with the route cache.
*/
#include "fabric_int.h"

#include <string.h>

#define FAB_DIST_BYTES (64u << 20)

static void drop_tables(struct ccs_fabric *f)
{
	ccs_free(f->dslot_dst);
	ccs_free(f->dtab);
	ccs_free(f->dspent);
	f->dslot_dst = f->dspent = NULL;
	f->dtab = NULL;
	f->dslots = 0;
}

int fab_dist_new(struct ccs_fabric *f)
{
	const struct ccs_topo *t = f->t;
	uint32_t nsw = 0;
	f->sw_idx = ccs_malloc(((size_t)t->ndev + 1) * sizeof *f->sw_idx);
	f->lclass = ccs_malloc((size_t)t->nlink + 1);
	f->netdeg = ccs_calloc((size_t)t->ndev + 1, 1);
	if (!f->sw_idx || !f->lclass || !f->netdeg)
		return CCS_ENOMEM;
	for (uint32_t l = 0; l < t->nlink; l++) {
		int ty = t->link[l].type;
		f->lclass[l] = (uint8_t)((ccs_link_is_network(ty) ? FAB_LNET : 0) | (ccs_link_is_host(ty) ? FAB_LHOST : 0));
	}
	f->nnic = 0;
	for (uint32_t d = 0; d < t->ndev; d++) {
		f->sw_idx[d] = t->dev[d].kind == CCS_DEV_NETSW ? nsw++ : UINT32_MAX;
		f->nnic += t->dev[d].kind == CCS_DEV_NIC;
		for (uint32_t k = t->adj_off[d]; k < t->adj_off[d + 1]; k++)
			f->netdeg[d] += (f->lclass[t->adj[k]] & FAB_LNET) && f->netdeg[d] < 255;
	}
	f->nsw = nsw;
	/* the tables only save time: without room for them every route searches */
	(void)ccs_fabric_set_route_tables(f, FAB_DIST_BYTES);
	return CCS_OK;
}

int ccs_fabric_set_route_tables(struct ccs_fabric *f, size_t bytes)
{
	drop_tables(f);
	if (!f->nsw || !f->nnic || bytes < f->nsw)
		return CCS_OK;
	uint64_t all = (uint64_t)f->nsw * f->nnic;
	f->dslots = all <= bytes ? f->nnic : (uint32_t)(bytes / f->nsw);
	f->dslot_dst = ccs_malloc((size_t)f->dslots * sizeof *f->dslot_dst);
	f->dtab = ccs_malloc((size_t)f->dslots * f->nsw);
	f->dspent = ccs_malloc((size_t)f->nnic * sizeof *f->dspent);
	if (!f->dslot_dst || !f->dtab || !f->dspent) {
		drop_tables(f);
		return CCS_ENOMEM;
	}
	fab_dist_clear(f);
	return CCS_OK;
}

void fab_dist_free(struct ccs_fabric *f)
{
	ccs_free(f->sw_idx);
	ccs_free(f->lclass);
	ccs_free(f->netdeg);
	drop_tables(f);
}

void fab_dist_clear(struct ccs_fabric *f)
{
	for (uint32_t i = 0; f->dslot_dst && i < f->dslots; i++)
		f->dslot_dst[i] = UINT32_MAX;
	for (uint32_t i = 0; f->dspent && i < f->nnic; i++)
		f->dspent[i] = 0;
}

uint32_t fab_dist_search(struct ccs_fabric *f, uint32_t a, uint32_t b, int net)
{
	const struct ccs_topo *t = f->t;
	uint32_t qh = 0, qt = 0;
	uint8_t want = net ? FAB_LNET : FAB_LHOST;
	f->dist[b] = 0;
	f->queue[qt++] = b;
	while (qh < qt && (a == UINT32_MAX || f->dist[a] < 0)) {
		uint32_t u = f->queue[qh++];
		if (u != b) {
			int k = t->dev[u].kind;
			int through = net ? k == CCS_DEV_NETSW : (k == CCS_DEV_PCISW || k == CCS_DEV_CPU);
			if (!through)
				continue;
		}
		for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			if (!(f->lclass[t->adj[k]] & want) || !fab_link_up(f, t->adj[k]))
				continue;
			uint32_t v = t->adj_nbr[k];
			if (f->dist[v] >= 0)
				continue;
			if (net && f->cur_planes && t->dev[v].plane >= 0 && t->dev[v].plane < 32 &&
			    !(f->cur_planes >> t->dev[v].plane & 1))
				continue;   /* a plane the flow may not use */
			f->dist[v] = f->dist[u] + 1;
			f->queue[qt++] = v;
			if (v == a)
				break;
		}
	}
	return qt;
}

/* b's table: the whole search from b (no route with planes asks one),
 * its switches' distances kept. */
static void fill(struct ccs_fabric *f, uint32_t b, uint8_t *tab)
{
	memset(tab, 0xff, f->nsw);
	uint32_t qt = fab_dist_search(f, UINT32_MAX, b, 1);
	for (uint32_t i = 0; i < qt; i++) {
		uint32_t v = f->queue[i];
		if (f->sw_idx[v] != UINT32_MAX)
			tab[f->sw_idx[v]] = (uint8_t)(f->dist[v] < 0xff ? f->dist[v] : 0xfe);
		f->dist[v] = -1;
	}
}

const uint8_t *fab_dist_have(const struct ccs_fabric *f, uint32_t b)
{
	if (!f->dtab || f->nic_idx[b] == UINT32_MAX)
		return NULL;
	uint32_t s = f->nic_idx[b] % f->dslots;
	return f->dslot_dst[s] == b ? f->dtab + (size_t)s * f->nsw : NULL;
}

void fab_dist_spent(struct ccs_fabric *f, uint32_t b, uint32_t touched)
{
	if (!f->dtab || f->nic_idx[b] == UINT32_MAX)
		return;
	uint32_t i = f->nic_idx[b];
	f->dspent[i] = f->dspent[i] > UINT32_MAX - touched ? UINT32_MAX : f->dspent[i] + touched;
	if (f->dspent[i] < f->nsw + f->nnic)
		return;
	uint32_t s = i % f->dslots;
	if (f->dslot_dst[s] != UINT32_MAX)
		f->dspent[f->nic_idx[f->dslot_dst[s]]] = 0;   /* evicted: it earns its table again */
	fill(f, b, f->dtab + (size_t)s * f->nsw);
	f->dslot_dst[s] = b;
}

int fab_dist_label(const struct ccs_fabric *f, const uint8_t *tab, uint32_t b, uint32_t v)
{
	const struct ccs_topo *t = f->t;
	if (v == b)
		return 0;
	if (f->sw_idx[v] != UINT32_MAX)
		return tab[f->sw_idx[v]] == 0xff ? -1 : tab[f->sw_idx[v]];
	int best = -1;
	for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
		uint32_t w = t->adj_nbr[k];
		if (!(f->lclass[t->adj[k]] & FAB_LNET) || !fab_link_up(f, t->adj[k]))
			continue;
		int dw = w == b ? 0 : f->sw_idx[w] != UINT32_MAX && tab[f->sw_idx[w]] != 0xff ? tab[f->sw_idx[w]] : -1;
		if (dw >= 0 && (best < 0 || dw + 1 < best))
			best = dw + 1;
	}
	return best;
}

int fab_dist_next(const struct ccs_fabric *f, const uint8_t *tab, uint32_t b, uint32_t v, int want)
{
	/* a device other than b and the switches on one network link: its
	 * distance is one more than the walk's device it hangs from */
	if (v != b && f->sw_idx[v] == UINT32_MAX && f->netdeg[v] <= 1)
		return 0;
	return fab_dist_label(f, tab, b, v) == want;
}
