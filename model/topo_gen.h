/*
** model/topo_gen.h: generators that turn a topology spec into a graph.
**
** A spec is either explicit (one body of devices and links, built once, names
** as written) or a template: a node body repeated `nodes` times (device
** names prefixed "nodeN/"), a scale-up domain generator and a scale-out
** fabric generator.
**
** Scale-up: GPUs of `nodes_per_domain` consecutive nodes form a domain (the
** last may be partial).  With S > 0 switches per domain, each GPU spreads its
** `lanes` links round-robin over the S switches (switch j gets
** floor(lanes/S) + (j < lanes mod S) lanes, as one link of that many lanes);
** with S = 0 the GPUs form a full mesh with lanes/(n-1) lanes per pair.
**
** Scale-out, per plane (and per rail for rail-only), radix R, design
** oversubscription s_t (down:up bandwidth at tier t):
**   leaf   down d1 = floor(R s1/(1+s1))  (d1 = R for a single tier);
**          up u1 = ceil(f/s1), f = the most NIC ports any leaf holds, so a
**          fabric for few nodes is sized for them at the design ratio
**   order  fat-tree: NIC ports fill leaves node by node;
**          rail-optimized: a leaf holds NIC r of d1 consecutive nodes;
**          rail-only: as rail-optimized, but each rail is its own fabric
**   2 tiers: S = u1/m spines, m = the largest divisor of u1 with L*m <= R;
**          every leaf joins every spine with m parallel links
**   3 tiers: pods of P = floor(R s2/(1+s2)) leaves (rounded down to whole
**          rail groups for rail-optimized), u1 aggregation switches per pod,
**          each with P down and u2 = ceil(min(P, L)/s2) up; agg j of every pod joins
**          core group j of u2/m2 cores, m2 the largest divisor of u2 with
**          pods*m2 <= R
** Inter-switch links run at port_bandwidth (default: the fastest NIC port).
** Parameters that cannot fit the radix are input errors, never silently
** clipped.
*/
#ifndef CCS_TOPO_GEN_H
#define CCS_TOPO_GEN_H

#include "topo.h"

struct ccs_tmpl_dev {
	const char *name;           /* local name, in the spec's arena */
	uint8_t kind, tier, flags;
	int32_t node;               /* explicit form: node id (default 0) */
	int32_t numa;               /* CPUs: NUMA node, -1 = its index */
	uint8_t arch;               /* GPUs: enum ccs_arch */
	double bw_Bps, lat_s;       /* NIC port speed or GPU memory bandwidth */
	struct ccs_mark mark;
};

struct ccs_tmpl_link {
	uint32_t a, b;              /* indices into the body's devices */
	uint8_t type;
	uint16_t lanes;
	double bw_Bps, lat_s;
	struct ccs_mark mark;
};

struct ccs_body {
	uint32_t ndev, nlink;
	size_t dev_cap, link_cap;
	struct ccs_tmpl_dev *dev;
	struct ccs_tmpl_link *link;
};

enum ccs_fabric_kind { CCS_FAB_FAT_TREE, CCS_FAB_RAIL_OPT, CCS_FAB_RAIL_ONLY };
extern const char *const ccs_fabric_kind_name[3];

struct ccs_scaleup_spec {
	int present;
	uint8_t type;               /* nvlink, ub, hccs, xgmi */
	long nodes_per_domain, switches, lanes, radix;
	long tiers;                 /* 1: switches per domain; 2: L1 per node, L2 per sub-plane */
	long spines;                /* tiers 2: L2 switch chips per sub-plane (one sub-plane per L1 index) */
	double up_bw_Bps;           /* tiers 2: each L1 -> L2 link, per direction */
	double lane_bw_Bps, lat_s, switch_lat_s;
	int multicast, reduction;
	struct ccs_mark mark, switches_mark, lanes_mark, radix_mark, multicast_mark, tiers_mark;
};

struct ccs_scaleout_spec {
	int present;
	int kind;                   /* enum ccs_fabric_kind */
	long tiers, radix, planes;
	uint8_t type;               /* ib, roce, ethernet */
	double oversub[CCS_TIER_N]; /* leaf, spine; 1 when not given */
	double port_bw_Bps;         /* 0: fastest NIC port */
	double link_lat_s, switch_lat_s;
	int sharp;
	long spray;                 /* parts per transfer over equal paths; 1: one path per flow */
	int routing;                /* enum ccs_routing; -1: by the rule in topo.h */
	struct ccs_mark mark, tiers_mark, radix_mark, planes_mark;
};

struct ccs_topo_spec {
	struct ccs_arena arena;
	const char *name;
	int template_form;
	long nodes;
	struct ccs_mark nodes_mark, node_mark;
	struct ccs_body body;       /* the node (template) or the whole graph */
	struct ccs_scaleup_spec scaleup;
	struct ccs_scaleout_spec scaleout;
	struct ccs_model_params params;
};

void ccs_topo_gen_spec_init(struct ccs_topo_spec *s);
void ccs_topo_gen_spec_release(struct ccs_topo_spec *s);

/* Build the graph of spec into t (fresh from ccs_topo_new) and finish it.
 * Input errors go to diag with the mark of the spec item at fault. */
int ccs_topo_gen_build(const struct ccs_topo_spec *s, struct ccs_topo *t, struct ccs_diag *diag);

#endif
