/* model/topo_gen.c: build a graph from a spec (see topo_gen.h). */
#include "topo_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ccs_fabric_kind_name[3] = { "fat-tree", "rail-optimized", "rail-only" };

/* Largest total device count a generator may build. */
#define MAX_DEVICES 10000000u

void ccs_topo_gen_spec_init(struct ccs_topo_spec *s)
{
	memset(s, 0, sizeof *s);
	ccs_arena_init(&s->arena);
	s->nodes = 1;
	ccs_model_params_default(&s->params);
}

void ccs_topo_gen_spec_release(struct ccs_topo_spec *s)
{
	ccs_free(s->body.dev);
	ccs_free(s->body.link);
	ccs_arena_release(&s->arena);
	memset(s, 0, sizeof *s);
}

struct gen {
	const struct ccs_topo_spec *s;
	struct ccs_topo *t;
	struct ccs_diag *diag;
	uint32_t *node_base;        /* first device index of each node */
	int32_t *rail_of;           /* body device -> NIC rail, or -1 */
	int32_t *numa_of;           /* body device -> CPU NUMA, or -1 */
	uint32_t *gpu_local;        /* body indices of GPUs */
	uint32_t *nic_local;        /* body indices of NICs */
	uint32_t ngpu_node, nnic_node;
	double port_bw;             /* inter-switch port bandwidth */
};

static int add_dev(struct gen *g, const char *name, int kind, int tier, unsigned flags, int32_t node,
                   int32_t plane, double lat, struct ccs_mark mark, uint32_t *idx)
{
	struct ccs_dev d;
	memset(&d, 0, sizeof d);
	d.name = name;
	d.kind = (uint8_t)kind;
	d.tier = (uint8_t)tier;
	d.flags = (uint8_t)flags;
	d.node = node;
	d.domain = -1;
	d.numa = -1;
	d.rail = -1;
	d.plane = plane;
	d.lat_s = lat;
	d.mark = mark;
	if (!name)
		return CCS_ENOMEM;
	return ccs_topo_add_dev(g->t, &d, idx);
}

static int add_link(struct gen *g, uint32_t a, uint32_t b, int type, long lanes, double bw,
                    double lat, struct ccs_mark mark)
{
	struct ccs_link l;
	memset(&l, 0, sizeof l);
	l.a = a;
	l.b = b;
	l.type = (uint8_t)type;
	l.lanes = (uint16_t)(lanes > 65535 ? 65535 : lanes);
	l.bw_Bps = bw;
	l.lat_s = lat;
	l.mark = mark;
	return ccs_topo_add_link(g->t, &l);
}

/* ---- node bodies ---- */

static int classify_body(struct gen *g)
{
	const struct ccs_body *b = &g->s->body;
	size_t n = (size_t)b->ndev + 1;
	g->rail_of = ccs_malloc(n * sizeof *g->rail_of);
	g->numa_of = ccs_malloc(n * sizeof *g->numa_of);
	g->gpu_local = ccs_malloc(n * sizeof *g->gpu_local);
	g->nic_local = ccs_malloc(n * sizeof *g->nic_local);
	if (!g->rail_of || !g->numa_of || !g->gpu_local || !g->nic_local)
		return CCS_ENOMEM;
	/* Rails and NUMA indices count per node id (explicit form may hold many). */
	int32_t maxnode = 0;
	for (uint32_t i = 0; i < b->ndev; i++)
		if (b->dev[i].node > maxnode)
			maxnode = b->dev[i].node;
	int32_t *nic = ccs_calloc((size_t)maxnode + 1, sizeof *nic);
	int32_t *cpu = ccs_calloc((size_t)maxnode + 1, sizeof *cpu);
	if (!nic || !cpu) {
		ccs_free(nic);
		ccs_free(cpu);
		return CCS_ENOMEM;
	}
	for (uint32_t i = 0; i < b->ndev; i++) {
		const struct ccs_tmpl_dev *d = &b->dev[i];
		int32_t nd = d->node < 0 ? 0 : d->node;
		g->rail_of[i] = d->kind == CCS_DEV_NIC ? nic[nd]++ : -1;
		g->numa_of[i] = -1;
		if (d->kind == CCS_DEV_CPU) {
			g->numa_of[i] = d->numa >= 0 ? d->numa : cpu[nd];
			cpu[nd]++;
		}
		if (d->kind == CCS_DEV_GPU)
			g->gpu_local[g->ngpu_node++] = i;
		if (d->kind == CCS_DEV_NIC)
			g->nic_local[g->nnic_node++] = i;
	}
	ccs_free(nic);
	ccs_free(cpu);
	return CCS_OK;
}

/* Two links of the body between the same two devices with the same type:
 * refused at the second (parallel links are one link with `lanes`); found
 * by sorting, so a large mesh costs n log n. */
struct dup_link {
	uint32_t lo, hi, i;
	uint8_t type;
};

static int dup_link_cmp(const void *a, const void *b)
{
	const struct dup_link *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int check_dup_links(struct gen *g, const struct ccs_body *b)
{
	if (b->nlink < 2)
		return CCS_OK;
	struct dup_link *e = ccs_malloc((size_t)b->nlink * sizeof *e);
	if (!e)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < b->nlink; i++) {
		const struct ccs_tmpl_link *l = &b->link[i];
		e[i] = (struct dup_link){ l->a < l->b ? l->a : l->b, l->a < l->b ? l->b : l->a, i, l->type };
	}
	qsort(e, b->nlink, sizeof *e, dup_link_cmp);
	uint32_t bad = UINT32_MAX, first = 0;
	for (uint32_t i = 1, run = 0; i < b->nlink; i++) {
		if (e[i].lo != e[i - 1].lo || e[i].hi != e[i - 1].hi || e[i].type != e[i - 1].type) {
			run = i;
			continue;
		}
		if (e[i].i < bad) {
			bad = e[i].i;
			first = e[run].i;
		}
	}
	ccs_free(e);
	if (bad == UINT32_MAX)
		return CCS_OK;
	const struct ccs_tmpl_link *l = &b->link[bad];
	return ccs_diag_at(g->diag, l->mark, "a second %s link between %s and %s (the first from line %d); one link with "
	                   "'lanes' carries parallel links", ccs_link_type_name[l->type], b->dev[l->a].name,
	                   b->dev[l->b].name, b->link[first].mark.line);
}

static int build_bodies(struct gen *g)
{
	CCS_TRY(check_dup_links(g, &g->s->body));
	const struct ccs_topo_spec *s = g->s;
	const struct ccs_body *b = &s->body;
	long nodes = s->template_form ? s->nodes : 1;
	g->node_base = ccs_malloc(((size_t)nodes + 1) * sizeof *g->node_base);
	if (!g->node_base)
		return CCS_ENOMEM;
	/* Room for the bodies, their scale-up links and NIC ports, and a fabric
	 * of up to 3 tiers, so the arrays grow once rather than by doubling. */
	size_t su = s->scaleup.present ? (size_t)(s->scaleup.switches ? s->scaleup.switches : 8) : 0;
	if (s->scaleup.present && s->scaleup.tiers == 2)
		su += (size_t)s->scaleup.switches * (size_t)s->scaleup.spines;
	size_t ndev = (size_t)nodes * ((size_t)b->ndev + 1) + 64;
	size_t nlink = (size_t)nodes * ((size_t)b->nlink + (size_t)g->ngpu_node * su +
	                                (size_t)g->nnic_node * 3 * (size_t)(s->scaleout.planes ? s->scaleout.planes : 1)) + 64;
	CCS_TRY(ccs_topo_reserve(g->t, ndev, nlink));
	for (long n = 0; n < nodes; n++) {
		g->node_base[n] = g->t->ndev;
		for (uint32_t i = 0; i < b->ndev; i++) {
			const struct ccs_tmpl_dev *td = &b->dev[i];
			struct ccs_dev d;
			memset(&d, 0, sizeof d);
			/* Names move into the topology's arena: the spec's go with it. */
			d.name = s->template_form ? ccs_arena_printf(&g->t->arena, "node%ld/%s", n, td->name)
			                          : ccs_arena_strdup(&g->t->arena, td->name);
			if (!d.name)
				return CCS_ENOMEM;
			d.kind = td->kind;
			d.tier = td->tier;
			d.flags = td->flags;
			d.node = s->template_form ? (int32_t)n : td->node;
			d.domain = -1;
			d.numa = g->numa_of[i];
			d.rail = g->rail_of[i];
			d.plane = -1;
			d.bw_Bps = td->bw_Bps;
			d.arch = td->arch;
			d.lat_s = td->lat_s;
			d.mark = td->mark;
			CCS_TRY(ccs_topo_add_dev(g->t, &d, NULL));
		}
		uint32_t base = g->node_base[n];
		for (uint32_t i = 0; i < b->nlink; i++) {
			const struct ccs_tmpl_link *tl = &b->link[i];
			CCS_TRY(add_link(g, base + tl->a, base + tl->b, tl->type, tl->lanes, tl->bw_Bps,
			                 tl->lat_s, tl->mark));
		}
	}
	return CCS_OK;
}

/* ---- scale-up domains ---- */

/* Lanes of a GPU on switch j of S, round-robin. */
static long su_lanes(long lanes, long S, long j)
{
	return lanes / S + (j < lanes % S ? 1 : 0);
}

/* One domain of a two-tier plane (tiers: 2): on every node S L1 chips
 * (nodeN/l1swJ) take the node's GPUs' lanes round-robin; sub-plane j holds
 * `spines` L2 chips (domainD/l2swJ.K), each linked once to L1 chip j of
 * every node of the domain.  Inter-node traffic inside the domain crosses
 * the node's L1 uplinks: non-blocking only while
 *   spines x uplink_bandwidth >= GPUs per node x lanes on a chip x lane_bandwidth. */
static int build_su_two_tier(struct gen *g, long d, long n0, long n1, unsigned flags)
{
	const struct ccs_scaleup_spec *su = &g->s->scaleup;
	struct ccs_topo *t = g->t;
	long S = su->switches, K = su->spines, nn = n1 - n0;
	if (su->radix > 0) {
		long l1 = (long)g->ngpu_node * su_lanes(su->lanes, S, 0) + (nn > 1 ? K : 0);
		if (l1 > su->radix || (nn > 1 && nn > su->radix))
			return ccs_diag_at(g->diag, su->radix_mark,
			                   "scaleup: switch radix %ld is too small: an L1 chip needs %ld ports (%ld lanes from %u gpus, %ld uplinks), an L2 chip %ld (one per node)",
			                   su->radix, l1, (long)g->ngpu_node * su_lanes(su->lanes, S, 0), g->ngpu_node,
			                   nn > 1 ? K : 0, nn);
	}
	uint32_t l2 = t->ndev;
	if (nn > 1)
		for (long j = 0; j < S; j++)
			for (long k = 0; k < K; k++)
				CCS_TRY(add_dev(g, ccs_arena_printf(&t->arena, "domain%ld/l2sw%ld.%ld", d, j, k), CCS_DEV_SUSW,
				                CCS_TIER_NONE, flags, -1, -1, su->switch_lat_s, su->mark, NULL));
	for (long n = n0; n < n1; n++) {
		uint32_t l1 = t->ndev;
		for (long j = 0; j < S; j++)
			CCS_TRY(add_dev(g, ccs_arena_printf(&t->arena, "node%ld/l1sw%ld", n, j), CCS_DEV_SUSW, CCS_TIER_NONE,
			                flags, (int32_t)n, -1, su->switch_lat_s, su->mark, NULL));
		for (uint32_t i = 0; i < g->ngpu_node; i++)
			for (long j = 0; j < S; j++) {
				long l = su_lanes(su->lanes, S, j);
				if (l)
					CCS_TRY(add_link(g, g->node_base[n] + g->gpu_local[i], l1 + (uint32_t)j, su->type, l,
					                 (double)l * su->lane_bw_Bps, su->lat_s, su->mark));
			}
		if (nn > 1)
			for (long j = 0; j < S; j++)
				for (long k = 0; k < K; k++)
					CCS_TRY(add_link(g, l1 + (uint32_t)j, l2 + (uint32_t)(j * K + k), su->type, 1, su->up_bw_Bps,
					                 su->lat_s, su->mark));
	}
	return CCS_OK;
}

static int build_scaleup(struct gen *g)
{
	const struct ccs_scaleup_spec *su = &g->s->scaleup;
	struct ccs_topo *t = g->t;
	long nodes = g->s->nodes, npd = su->nodes_per_domain;
	long ndom = (nodes + npd - 1) / npd;
	unsigned flags = (su->multicast ? CCS_DEVF_MULTICAST : 0) | (su->reduction ? CCS_DEVF_REDUCE : 0);

	if (!g->ngpu_node)
		return ccs_diag_at(g->diag, su->mark, "scaleup: the node has no gpus");
	if (su->switches == 0 && (su->multicast || su->reduction))
		return ccs_diag_at(g->diag, su->multicast_mark,
		                   "scaleup: multicast and reduction need switches; a mesh ('switches: 0') has none");
	for (long d = 0; d < ndom; d++) {
		long n0 = d * npd, n1 = n0 + npd < nodes ? n0 + npd : nodes;
		long ngd = (n1 - n0) * (long)g->ngpu_node;
		if (su->switches == 0) {
			if (ngd < 2)
				continue;
			if (su->lanes % (ngd - 1))
				return ccs_diag_at(g->diag, su->lanes_mark,
				                   "scaleup: %ld lanes per gpu cannot be split evenly over the %ld peers of a %ld-gpu mesh",
				                   su->lanes, ngd - 1, ngd);
			long per = su->lanes / (ngd - 1);
			for (long i = 0; i < ngd; i++)
				for (long j = i + 1; j < ngd; j++) {
					uint32_t a = g->node_base[n0 + i / g->ngpu_node] + g->gpu_local[i % g->ngpu_node];
					uint32_t b = g->node_base[n0 + j / g->ngpu_node] + g->gpu_local[j % g->ngpu_node];
					CCS_TRY(add_link(g, a, b, su->type, per, (double)per * su->lane_bw_Bps,
					                 su->lat_s, su->mark));
				}
			continue;
		}
		if (su->tiers == 2) {
			CCS_TRY(build_su_two_tier(g, d, n0, n1, flags));
			continue;
		}
		long S = su->switches;
		if (su->radix > 0) {
			long need = ngd * (su->lanes / S + (su->lanes % S ? 1 : 0));
			if (need > su->radix)
				return ccs_diag_at(g->diag, su->radix_mark,
				                   "scaleup: switch radix %ld is too small: %ld gpus x %ld lanes over %ld switches need %ld ports on a switch",
				                   su->radix, ngd, su->lanes, S, need);
		}
		uint32_t first = t->ndev;
		for (long j = 0; j < S; j++) {
			const char *name = npd == 1
				? ccs_arena_printf(&t->arena, "node%ld/nvsw%ld", n0, j)
				: ccs_arena_printf(&t->arena, "domain%ld/sw%ld", d, j);
			CCS_TRY(add_dev(g, name, CCS_DEV_SUSW, CCS_TIER_NONE, flags,
			                npd == 1 ? (int32_t)n0 : -1, -1, su->switch_lat_s, su->mark, NULL));
		}
		for (long i = 0; i < ngd; i++) {
			uint32_t a = g->node_base[n0 + i / g->ngpu_node] + g->gpu_local[i % g->ngpu_node];
			for (long j = 0; j < S; j++) {
				long l = su->lanes / S + (j < su->lanes % S ? 1 : 0);
				if (l)
					CCS_TRY(add_link(g, a, first + (uint32_t)j, su->type, l,
					                 (double)l * su->lane_bw_Bps, su->lat_s, su->mark));
			}
		}
	}
	return CCS_OK;
}

/* ---- scale-out fabric ---- */

static long largest_divisor_upto(long u, long cap)
{
	for (long m = cap < u ? cap : u; m >= 1; m--)
		if (u % m == 0)
			return m;
	return 1;
}

struct plane_ctx {
	int plane, rail;            /* rail >= 0 only for rail-only */
	const char *prefix;
};

static const char *sw_name(struct gen *g, const struct plane_ctx *pc, const char *what, long i)
{
	return ccs_arena_printf(&g->t->arena, "%s%s%ld", pc->prefix, what, i);
}

/* The shape of one plane's fabric (one rail's for rail-only), from counts
 * alone, so that parameters that cannot fit are reported before anything
 * is built. */
struct shape {
	long d1;                    /* leaf ports down */
	long L;                     /* leaves */
	long P, u2;                 /* 3 tiers: leaves per pod, spine ports up */
};

static int plane_shape(const struct gen *g, struct shape *sh)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	long R = so->radix, K = g->nnic_node, N = g->s->nodes;
	memset(sh, 0, sizeof *sh);
	if (so->tiers == 1) {
		sh->d1 = R;
	} else {
		double s1 = so->oversub[CCS_TIER_LEAF];
		sh->d1 = (long)floor((double)R * s1 / (1.0 + s1) + 1e-9);
		long u1 = (long)ceil((double)sh->d1 / s1 - 1e-9);
		if (sh->d1 < 1 || u1 < 1)
			return ccs_diag_at(g->diag, so->radix_mark,
			                   "scaleout: radix %ld leaves no %s ports at leaf oversubscription %g",
			                   R, sh->d1 < 1 ? "down" : "up", s1);
	}
	long groups = (N + sh->d1 - 1) / sh->d1;
	long ports = so->kind == CCS_FAB_RAIL_ONLY ? N : N * K;
	sh->L = so->kind == CCS_FAB_FAT_TREE ? (N * K + sh->d1 - 1) / sh->d1
	      : so->kind == CCS_FAB_RAIL_OPT ? groups * K : groups;
	/* one tier of a rail-optimized fabric is a switch per rail with nothing
	 * joining the rails: that is the rail-only kind */
	if (so->tiers == 1 && so->kind == CCS_FAB_RAIL_OPT && groups == 1 && K > 1)
		return ccs_diag_at(g->diag, so->tiers_mark,
		                   "scaleout: one tier of a rail-optimized fabric is %ld rail switches with nothing joining the "
		                   "rails; write 'topology: rail-only' for that (cross-rail traffic over NVLink), or 'tiers: 2'",
		                   K);
	if (so->tiers == 1 && sh->L > 1)
		return ccs_diag_at(g->diag, g->s->nodes_mark,
		                   "scaleout: one tier of radix %ld holds %ld ports%s, this fabric needs %ld; use 'tiers: 2' or a larger 'radix'",
		                   R, R, so->kind == CCS_FAB_RAIL_OPT ? " per rail" : "", so->kind == CCS_FAB_RAIL_OPT ? N : ports);
	if (so->tiers == 2 && sh->L > R)
		return ccs_diag_at(g->diag, g->s->nodes_mark,
		                   "scaleout: a 2-tier fabric of radix %ld holds at most %ld leaves, this one needs %ld (%ld nic ports); use 'tiers: 3' or a larger 'radix'",
		                   R, R, sh->L, ports);
	if (so->tiers == 3) {
		double s2 = so->oversub[CCS_TIER_SPINE];
		long P = (long)floor((double)R * s2 / (1.0 + s2) + 1e-9);
		if (so->kind == CCS_FAB_RAIL_OPT && P >= K)
			P -= P % K;          /* pods hold whole rail groups */
		long u2 = P >= 1 ? (long)ceil((double)P / s2 - 1e-9) : 0;
		if (P < 1 || u2 < 1 || P + u2 > R)
			return ccs_diag_at(g->diag, so->radix_mark,
			                   "scaleout: radix %ld leaves no %s ports at spine oversubscription %g",
			                   R, P < 1 ? "down" : "up", s2);
		if (sh->L < P)           /* one pod, not full: size it for its leaves */
			u2 = (long)ceil((double)sh->L / s2 - 1e-9);
		long Q = (sh->L + P - 1) / P;
		if (Q > R)
			return ccs_diag_at(g->diag, g->s->nodes_mark,
			                   "scaleout: a 3-tier fabric of radix %ld holds at most %ld pods of %ld leaves, this one needs %ld pods (%ld nic ports)",
			                   R, R, P, Q, ports);
		sh->P = P;
		sh->u2 = u2;
	}
	return CCS_OK;
}

/* Two tiers: S = u1/m spines, each joined to every leaf by m links. */
static int two_tiers(struct gen *g, const struct plane_ctx *pc, const uint32_t *leaf, long L, long u1, unsigned flags)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	long R = so->radix;
	int rc;
	long m = largest_divisor_upto(u1, R / L);
	long S = u1 / m;
	for (long j = 0; j < S; j++) {
		uint32_t sp;
		rc = add_dev(g, sw_name(g, pc, "spine", j), CCS_DEV_NETSW, CCS_TIER_SPINE, flags, -1,
		             pc->plane, so->switch_lat_s, so->mark, &sp);
		if (rc)
			return rc;
		for (long i = 0; i < L; i++) {
			rc = add_link(g, leaf[i], sp, so->type, m, (double)m * g->port_bw,
			              so->link_lat_s, so->mark);
			if (rc)
				return rc;
		}
	}
	return CCS_OK;
}

/* Three tiers: pods of P leaves with u1 aggregation switches each, and
 * C = u2/m2 core switches per aggregation index, m2 links to each pod. */
static int three_tiers(struct gen *g, const struct plane_ctx *pc, const struct shape *sh, const uint32_t *leaf, long L,
                       long u1, unsigned flags)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	long R = so->radix;
	int rc = CCS_OK;
	long P = sh->P, u2 = sh->u2, Q = (L + P - 1) / P;
	uint32_t *agg = ccs_malloc(((size_t)Q * (size_t)u1 + 1) * sizeof *agg);
	if (!agg)
		return CCS_ENOMEM;
	for (long q = 0; q < Q; q++)
		for (long j = 0; j < u1; j++) {
			uint32_t *a = &agg[q * u1 + j];
			rc = add_dev(g, sw_name(g, pc, "spine", q * u1 + j), CCS_DEV_NETSW, CCS_TIER_SPINE,
			             flags, -1, pc->plane, so->switch_lat_s, so->mark, a);
			if (rc)
				goto out;
			for (long i = q * P; i < L && i < (q + 1) * P; i++) {
				rc = add_link(g, leaf[i], *a, so->type, 1, g->port_bw, so->link_lat_s, so->mark);
				if (rc)
					goto out;
			}
		}
	long m2 = largest_divisor_upto(u2, R / Q);
	long C = u2 / m2;
	for (long j = 0; j < u1; j++)
		for (long c = 0; c < C; c++) {
			uint32_t core;
			rc = add_dev(g, sw_name(g, pc, "core", j * C + c), CCS_DEV_NETSW, CCS_TIER_CORE,
			             flags, -1, pc->plane, so->switch_lat_s, so->mark, &core);
			if (rc)
				goto out;
			for (long q = 0; q < Q; q++) {
				rc = add_link(g, agg[q * u1 + j], core, so->type, m2, (double)m2 * g->port_bw,
				              so->link_lat_s, so->mark);
				if (rc)
					goto out;
			}
		}
out:
	ccs_free(agg);
	return rc;
}

/* The NIC ports in leaf order (ep), and where each leaf's start
 * (leaf_start): a fat tree fills leaves node by node, a rail fabric gives
 * each rail (and group of d1 nodes) its own leaf. */
static void leaf_ports(struct gen *g, const struct plane_ctx *pc, long d1, uint32_t *ep, long *leaf_start, long *ne_,
                       long *L_)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	long K = g->nnic_node, N = g->s->nodes;
	long ne = 0, L = 0;
	if (so->kind == CCS_FAB_FAT_TREE) {
		for (long n = 0; n < N; n++)
			for (long r = 0; r < K; r++) {
				if (ne % d1 == 0)
					leaf_start[L++] = ne;
				ep[ne++] = g->node_base[n] + g->nic_local[r];
			}
	} else {
		long groups = (N + d1 - 1) / d1;
		for (long gr = 0; gr < groups; gr++)
			for (long r = 0; r < K; r++) {
				if (pc->rail >= 0 && r != pc->rail)
					continue;
				leaf_start[L++] = ne;
				for (long n = gr * d1; n < N && n < (gr + 1) * d1; n++)
					ep[ne++] = g->node_base[n] + g->nic_local[r];
			}
	}
	*ne_ = ne;
	*L_ = L;
}

static int fabric_plane(struct gen *g, const struct plane_ctx *pc)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	struct ccs_topo *t = g->t;
	long K = g->nnic_node, N = g->s->nodes;
	long u1 = 0;
	unsigned flags = so->sharp ? CCS_DEVF_REDUCE : 0;
	struct shape sh;
	CCS_TRY(plane_shape(g, &sh));
	long d1 = sh.d1;

	/* NIC ports in leaf order, with leaf boundaries. */
	long E = pc->rail >= 0 ? N : N * K;
	uint32_t *ep = ccs_malloc(((size_t)E + 1) * sizeof *ep);
	long *leaf_start = ccs_malloc(((size_t)E + 2) * sizeof *leaf_start);
	uint32_t *leaf = NULL;
	int rc = CCS_ENOMEM;
	if (!ep || !leaf_start)
		goto out;
	long ne = 0, L = 0;
	leaf_ports(g, pc, d1, ep, leaf_start, &ne, &L);
	leaf_start[L] = ne;
	if (L != sh.L)
		CCS_BUG("leaf count differs from the fabric's shape");

	/* Uplinks serve the ports in use: a fabric for fewer nodes than a full
	 * leaf holds is sized for those nodes, at the design ratio. */
	if (so->tiers >= 2) {
		long fill = 0;
		for (long i = 0; i < L; i++)
			if (leaf_start[i + 1] - leaf_start[i] > fill)
				fill = leaf_start[i + 1] - leaf_start[i];
		u1 = (long)ceil((double)fill / so->oversub[CCS_TIER_LEAF] - 1e-9);
		if (u1 < 1)
			u1 = 1;
	}

	leaf = ccs_malloc(((size_t)L + 1) * sizeof *leaf);
	if (!leaf)
		goto out;
	for (long i = 0; i < L; i++) {
		rc = add_dev(g, sw_name(g, pc, "leaf", i), CCS_DEV_NETSW, CCS_TIER_LEAF, flags, -1,
		             pc->plane, so->switch_lat_s, so->mark, &leaf[i]);
		if (rc)
			goto out;
		for (long e = leaf_start[i]; e < leaf_start[i + 1]; e++) {
			double bw = t->dev[ep[e]].bw_Bps / (double)so->planes;
			rc = add_link(g, ep[e], leaf[i], so->type, 1, bw, so->link_lat_s, so->mark);
			if (rc)
				goto out;
		}
	}

	if (so->tiers == 2)
		rc = two_tiers(g, pc, leaf, L, u1, flags);
	else if (so->tiers == 3)
		rc = three_tiers(g, pc, &sh, leaf, L, u1, flags);
	else
		rc = CCS_OK;
	if (rc)
		goto out;
	rc = CCS_OK;
out:
	ccs_free(ep);
	ccs_free(leaf_start);
	ccs_free(leaf);
	return rc;
}

/* The node's NICs can join a fabric: there are some, each with a port
 * speed; sets the inter-switch port bandwidth. */
static int scaleout_nics(struct gen *g)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	if (!g->nnic_node)
		return ccs_diag_at(g->diag, so->mark, "scaleout: the node has no nics to join the fabric");
	double maxbw = 0;
	for (uint32_t r = 0; r < g->nnic_node; r++) {
		const struct ccs_tmpl_dev *d = &g->s->body.dev[g->nic_local[r]];
		if (d->bw_Bps <= 0)
			return ccs_diag_at(g->diag, d->mark,
			                   "nic '%s' needs 'bandwidth' (its port speed, e.g. 400Gb/s) to join the fabric",
			                   d->name);
		if (d->bw_Bps > maxbw)
			maxbw = d->bw_Bps;
	}
	g->port_bw = so->port_bw_Bps > 0 ? so->port_bw_Bps : maxbw / (double)so->planes;
	return CCS_OK;
}

static int build_scaleout(struct gen *g)
{
	const struct ccs_scaleout_spec *so = &g->s->scaleout;
	for (long p = 0; p < so->planes; p++) {
		struct plane_ctx pc = { (int)p, -1, "" };
		if (so->kind == CCS_FAB_RAIL_ONLY) {
			for (long r = 0; r < (long)g->nnic_node; r++) {
				pc.rail = (int)r;
				pc.prefix = so->planes > 1
					? ccs_arena_printf(&g->t->arena, "plane%ld/rail%ld/", p, r)
					: ccs_arena_printf(&g->t->arena, "rail%ld/", r);
				if (!pc.prefix)
					return CCS_ENOMEM;
				CCS_TRY(fabric_plane(g, &pc));
			}
		} else {
			pc.prefix = so->planes > 1 ? ccs_arena_printf(&g->t->arena, "plane%ld/", p) : "";
			if (!pc.prefix)
				return CCS_ENOMEM;
			CCS_TRY(fabric_plane(g, &pc));
		}
	}
	return CCS_OK;
}

static void record_info(const struct gen *g)
{
	struct ccs_fabric_info *f = &g->t->fab;
	const struct ccs_topo_spec *s = g->s;
	memset(f, 0, sizeof *f);
	f->routing = -1;
	if (s->scaleout.present) {
		f->present = 1;
		f->kind = ccs_fabric_kind_name[s->scaleout.kind];
		f->tiers = (int)s->scaleout.tiers;
		f->radix = (int)s->scaleout.radix;
		f->planes = (int)s->scaleout.planes;
		f->sharp = s->scaleout.sharp;
		f->spray = (int)s->scaleout.spray;
		f->routing = s->scaleout.routing;
		for (int i = 0; i < CCS_TIER_N; i++)
			f->oversub[i] = s->scaleout.oversub[i];
	}
	if (s->scaleup.present) {
		f->nodes_per_domain = (int)s->scaleup.nodes_per_domain;
		f->domain_switches = (int)s->scaleup.switches;
		f->su_tiers = (int)s->scaleup.tiers;
		f->su_spines = (int)s->scaleup.spines;
		f->multicast = s->scaleup.multicast;
		f->reduction = s->scaleup.reduction;
	}
}

int ccs_topo_gen_build(const struct ccs_topo_spec *s, struct ccs_topo *t, struct ccs_diag *diag)
{
	struct gen g;
	memset(&g, 0, sizeof g);
	g.s = s;
	g.t = t;
	g.diag = diag;
	int rc;

	t->name = ccs_arena_strdup(&t->arena, s->name ? s->name : "");
	if (!t->name)
		return CCS_ENOMEM;
	if (s->template_form && (double)s->nodes * (double)(s->body.ndev + 8) > MAX_DEVICES) {
		rc = ccs_diag_at(diag, s->nodes_mark, "%ld nodes of %u devices each is more than ccsim builds (%u devices)",
		                 s->nodes, s->body.ndev, MAX_DEVICES);
		goto out;
	}
	rc = classify_body(&g);
	if (rc)
		goto out;
	if (s->template_form && s->scaleout.present) {
		struct shape sh;
		rc = scaleout_nics(&g);
		if (rc == CCS_OK)
			rc = plane_shape(&g, &sh);
		if (rc)
			goto out;
	}
	rc = build_bodies(&g);
	if (rc)
		goto out;
	if (s->template_form && s->scaleup.present) {
		rc = build_scaleup(&g);
		if (rc)
			goto out;
	}
	if (s->template_form && s->scaleout.present) {
		rc = build_scaleout(&g);
		if (rc)
			goto out;
	}
	record_info(&g);
	t->params = s->params;
	rc = ccs_topo_finish(t, diag);
out:
	ccs_free(g.node_base);
	ccs_free(g.rail_of);
	ccs_free(g.numa_of);
	ccs_free(g.gpu_local);
	ccs_free(g.nic_local);
	return rc;
}
