/* sim/fabric_int.h: the fabric's full structs (fabric.h), for fabric.c only. */
#ifndef CCS_FABRIC_INT_H
#define CCS_FABRIC_INT_H

#include "fabric.h"

struct route_entry {
	uint64_t key;
	uint8_t n, used;
	uint32_t res[CCS_FLOW_MAXPATH];
};

struct ccs_fabric {
	const struct ccs_comm *c;
	const struct ccs_topo *t;
	uint32_t nres;
	double *cap;
	int any_dead;                /* some resource has no capacity (routes must check) */
	uint32_t ngpu;               /* resources 0..2 ngpu-1 are scale-up ports */
	uint8_t *has_ports;          /* per GPU */
	uint8_t *slow_mem;           /* per GPU: memory slower than the communicator's fastest */
	uint32_t *planes;            /* per GPU: network planes its flows may use (bit p), 0: all; NULL: none set */
	uint32_t cur_planes;         /* of the route being searched */
	uint32_t cur_way;            /* its part of a sprayed transfer */
	uint32_t spray;              /* parts per network transfer; <= 1: one path per flow */
	int routing;                 /* enum ccs_routing (model/topo.h): dmodk or a hash among equal hops */
	uint32_t *nic_idx;           /* per device: a NIC's number among the NICs (dmodk's destination) */
	uint32_t cur_dst, cur_div;   /* dmodk: the route's destination number, the product of the up hops' widths so far */
	int cur_by_dst;              /* this route picks by destination whatever the routing (CCS_FABRIC_WAY_DST) */
	int cur_walked;              /* its network part walked a distance table (fabric_dist.c) */
	uint8_t classes;             /* how runs lump flows into classes (CCS_CLASSES_*, fabric.h) */
	double copy_cap;             /* the copy ports' SM-budget cap (ccs_fabric_cap_copy), 0: none */
	uint32_t nup;                /* nodes with two-tier scale-up uplinks: resources up0 .. up0 + 2 nup (out, in); 0: none */
	uint32_t up0;
	uint8_t *up_has;             /* per node: it has uplinks */
	uint32_t *gpu_at;            /* node x L + local -> GPU (UINT32_MAX: none) */
	int32_t L;                   /* 1 + the largest local index */
	/* scratch for searches */
	int32_t *dist;
	uint32_t *parent, *queue;
	/* timed faults (t->timed): healthy capacities, the next to strike,
	 * the resources the last strike changed */
	double *cap0;
	uint32_t next_timed;
	uint32_t *changed, nchanged;
	/* network distances toward a destination (fabric_dist.c): per device
	 * its number among the network switches (UINT32_MAX: not one); dslots
	 * tables of nsw bytes, slot s holding destination dslot_dst[s]; per
	 * NIC number, the devices its searches touched since its last table */
	uint32_t *sw_idx, nsw, nnic, dslots, *dslot_dst, *dspent;
	uint8_t *dtab;
	uint8_t *lclass;             /* per link: FAB_LNET, FAB_LHOST (ccs_link_is_network, _host) */
	uint8_t *netdeg;             /* per device: its network links, live or not (at most 255) */
	/* route cache, open addressing */
	struct route_entry *rc;
	uint32_t rc_cap, rc_n;
};

/* The resources, in this order: per GPU its scale-up ports (out, in); per
 * link its two directions (a to b, b to a); per GPU its copy ports (out,
 * in); per GPU its memory; per node with two-tier scale-up uplinks, out
 * and in (from up0).  Named here, so that no other line does the sums. */
enum { FAB_OUT = 0, FAB_IN = 1 };
enum { FAB_LNET = 1, FAB_LHOST = 2 };
static inline uint32_t fab_port(const struct ccs_fabric *f, uint32_t g, int in)
{
	(void)f;
	return 2 * g + (uint32_t)in;
}
static inline uint32_t fab_link(const struct ccs_fabric *f, uint32_t l, int dir)
{
	return 2 * f->ngpu + 2 * l + (uint32_t)dir;
}
static inline uint32_t fab_copy(const struct ccs_fabric *f, uint32_t g, int in)
{
	return 2 * f->ngpu + 2 * f->t->nlink + 2 * g + (uint32_t)in;
}
static inline uint32_t fab_mem(const struct ccs_fabric *f, uint32_t g)
{
	return 4 * f->ngpu + 2 * f->t->nlink + g;
}
static inline uint32_t fab_up(const struct ccs_fabric *f, uint32_t node, int in)
{
	return f->up0 + 2 * node + (uint32_t)in;
}

/* A link is up while the fabric gives it capacity (the topology's dead
 * links have none from the start; timed faults take it later). */
static inline int fab_link_up(const struct ccs_fabric *f, uint32_t link)
{
	return f->cap[fab_link(f, link, 0)] > 0;
}

/* fabric_dist.c: the tables (CCS_ENOMEM leaves what was made for
 * ccs_fabric_free), emptied on a fault; b's table (NULL: none yet); a
 * search toward b touched that many devices (b may earn its table: f->dist
 * and f->queue must be free); device v's distance to b by b's table (-1:
 * unreachable). */
/* The search from b toward a (UINT32_MAX: the whole fabric) into f->dist,
 * over host links through PCIe switches and CPUs (net 0) or network links
 * through network switches and the route's planes (net 1): from b, so that
 * distances to b guide the walk from a; it stops once a is found: every
 * device nearer to b than a has its distance by then, and the walk only
 * steps to those (in a large fabric most of it is farther than a).
 * Returns how many devices it labelled, listed in f->queue (the caller
 * sets their f->dist back to -1). */
uint32_t fab_dist_search(struct ccs_fabric *f, uint32_t a, uint32_t b, int net);
int  fab_dist_new(struct ccs_fabric *f);
void fab_dist_free(struct ccs_fabric *f);
void fab_dist_clear(struct ccs_fabric *f);
const uint8_t *fab_dist_have(const struct ccs_fabric *f, uint32_t b);
void fab_dist_spent(struct ccs_fabric *f, uint32_t b, uint32_t touched);
int  fab_dist_label(const struct ccs_fabric *f, const uint8_t *tab, uint32_t b, uint32_t v);
/* Whether device v, a neighbour of the walk's current device (at distance
 * want + 1), is at distance want from b. */
int  fab_dist_next(const struct ccs_fabric *f, const uint8_t *tab, uint32_t b, uint32_t v, int want);

#endif
