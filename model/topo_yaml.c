/* model/topo_yaml.c: the topology schema: a positioned tree (ytree.h, with
** extends and --set applied) -> checked spec in base units -> generators ->
** graph (topo_yaml.h). */
#include "topo_yaml.h"
#include "params.h"
#include "params_yaml.h"
#include "fault.h"
#include "nccl_tables.h"
#include "topo_xml.h"
#include "xml.h"
#include "ytree.h"
#include "topo_gen.h"
#include "topo_names.h"
#include "transport.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES   1000000L
/* a node (template form) is one host, tray or chassis: the largest today
 * hold about a hundred devices; a bigger domain is nodes of a scale-up
 * domain.  A slip such as gpu[0-80000] is refused, not built for minutes */
#define MAX_NODE_DEVICES 4096u

/* The loader: the tree's state (ytree.h) and the spec being filled. */
struct ld {
	struct ccs_ydoc y;
	struct ccs_topo_spec *spec;
};

/* ---- devices ---- */

/* The names a device entry expands to; in a node (template form) without
 * '/' and within MAX_NODE_DEVICES with the node's other devices (b's). */
static int device_names(struct ld *L, const struct ccs_body *b, const struct ccs_ynode *name, int template_form,
                        struct ccs_topo_names *ns)
{
	if (template_form && strchr(name->str, '/'))
		return ccs_diag_at(L->y.diag, name->mark, "device names in 'node' may not contain '/', got '%s'", name->str);
	uint64_t more = ccs_topo_names_count(name->str);
	if (template_form && (uint64_t)b->ndev + more > MAX_NODE_DEVICES)
		return ccs_diag_at(L->y.diag, name->mark,
		                   "a node holds at most %u devices ('%s' makes %llu); describe a larger domain as nodes "
		                   "of a scale-up domain",
		                   MAX_NODE_DEVICES, name->str, (unsigned long long)(b->ndev + more));
	return ccs_topo_names_expand(&L->y, name, ns);
}

static const char *const dev_type_names[] = {
	"gpu", "npu", "nvswitch", "scaleup_switch", "pcie_switch", "cpu", "nic", "switch",
};
static const int dev_type_kind[] = {
	CCS_DEV_GPU, CCS_DEV_GPU, CCS_DEV_SUSW, CCS_DEV_SUSW, CCS_DEV_PCISW, CCS_DEV_CPU,
	CCS_DEV_NIC, CCS_DEV_NETSW,
};
static const char *const tier_names[] = { "leaf", "spine", "core" };
static const int tier_vals[] = { CCS_TIER_LEAF, CCS_TIER_SPINE, CCS_TIER_CORE };

static int only_for(struct ld *L, const struct ccs_ynode *m, const char *key, int kind, int want,
                    const char *tname)
{
	struct ccs_ynode *y = ccs_ytree_get(m, key);
	if (y && kind != want) {
		uint32_t i = 0;
		while (m->v[i] != y)
			i++;
		return ccs_diag_at(L->y.diag, m->k[i]->mark, "'%s' applies to devices of type '%s' only", key, tname);
	}
	return CCS_OK;
}

/* GPU architecture from a model name (H100 -> hopper); hopper if unknown. */
static int arch_from_model(const char *model)
{
	static const struct { const char *pat; int arch; } tab[] = {
		{ "V100", CCS_ARCH_VOLTA }, { "A100", CCS_ARCH_AMPERE }, { "A800", CCS_ARCH_AMPERE },
		{ "A30", CCS_ARCH_AMPERE }, { "H100", CCS_ARCH_HOPPER }, { "H200", CCS_ARCH_HOPPER },
		{ "H800", CCS_ARCH_HOPPER }, { "H20", CCS_ARCH_HOPPER }, { "GH200", CCS_ARCH_HOPPER },
		{ "B100", CCS_ARCH_BLACKWELL }, { "B200", CCS_ARCH_BLACKWELL }, { "B300", CCS_ARCH_BLACKWELL },
		{ "GB200", CCS_ARCH_BLACKWELL }, { "GB300", CCS_ARCH_BLACKWELL },
	};
	if (model)
		for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
			if (strstr(model, tab[i].pat))
				return tab[i].arch;
	return CCS_ARCH_HOPPER;
}

static int load_device(struct ld *L, struct ccs_body *b, const struct ccs_ynode *m, int template_form)
{
	static const char *const keys[] = { "name", "type", "model", "bandwidth", "latency", "tier",
	                                    "multicast", "reduction", "sharp", "numa", "node", "arch",
	                                    "memory_bandwidth" };
	CCS_TRY(ccs_ytree_kind(&L->y, m, CCS_Y_MAP, "device"));
	CCS_TRY(ccs_ytree_keys(&L->y, m, keys, (int)(sizeof keys / sizeof keys[0]), "a device"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "name", "a device"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "type", "a device"));
	int kind = 0;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "type", dev_type_names, dev_type_kind, 8, &kind));
	CCS_TRY(only_for(L, m, "bandwidth", kind, CCS_DEV_NIC, "nic"));
	CCS_TRY(only_for(L, m, "tier", kind, CCS_DEV_NETSW, "switch"));
	CCS_TRY(only_for(L, m, "sharp", kind, CCS_DEV_NETSW, "switch"));
	CCS_TRY(only_for(L, m, "multicast", kind, CCS_DEV_SUSW, "nvswitch"));
	CCS_TRY(only_for(L, m, "reduction", kind, CCS_DEV_SUSW, "nvswitch"));
	CCS_TRY(only_for(L, m, "numa", kind, CCS_DEV_CPU, "cpu"));
	CCS_TRY(only_for(L, m, "arch", kind, CCS_DEV_GPU, "gpu"));
	CCS_TRY(only_for(L, m, "memory_bandwidth", kind, CCS_DEV_GPU, "gpu"));
	const char *model = NULL;
	CCS_TRY(ccs_ytree_str(&L->y, m, "model", &model));

	struct ccs_tmpl_dev d;
	memset(&d, 0, sizeof d);
	d.kind = (uint8_t)kind;
	d.numa = -1;
	CCS_TRY(ccs_ytree_qty(&L->y, m, "bandwidth", CCS_QTY_BW, &d.bw_Bps));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "memory_bandwidth", CCS_QTY_BW, &d.bw_Bps));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "latency", CCS_QTY_TIME, &d.lat_s));
	if (kind == CCS_DEV_GPU) {
		int arch = arch_from_model(model);
		CCS_TRY(ccs_ytree_enum(&L->y, m, "arch", ccs_arch_name, NULL, CCS_ARCH_N, &arch));
		d.arch = (uint8_t)arch;
	}
	long numa = -1, node = 0;
	CCS_TRY(ccs_ytree_long(&L->y, m, "numa", 0, 4095, &numa, NULL));
	d.numa = (int32_t)numa;
	struct ccs_ynode *ny = ccs_ytree_get(m, "node");
	if (ny && template_form) {
		uint32_t i = 0;
		while (m->v[i] != ny)
			i++;
		return ccs_diag_at(L->y.diag, m->k[i]->mark,
		                   "'node' is implied in the template form: each copy of 'node' is one node");
	}
	CCS_TRY(ccs_ytree_long(&L->y, m, "node", 0, MAX_NODES - 1, &node, NULL));
	d.node = (int32_t)node;
	if (kind == CCS_DEV_NETSW) {
		int tier = 0;
		CCS_TRY(ccs_ytree_need(&L->y, m, "tier", "a switch"));
		CCS_TRY(ccs_ytree_enum(&L->y, m, "tier", tier_names, tier_vals, 3, &tier));
		d.tier = (uint8_t)tier;
		d.node = -1;
		int sharp = 0;
		CCS_TRY(ccs_ytree_bool(&L->y, m, "sharp", &sharp, NULL));
		d.flags |= sharp ? CCS_DEVF_REDUCE : 0;
	}
	if (kind == CCS_DEV_SUSW) {
		int mc = 0, red = 0;
		CCS_TRY(ccs_ytree_bool(&L->y, m, "multicast", &mc, NULL));
		CCS_TRY(ccs_ytree_bool(&L->y, m, "reduction", &red, NULL));
		d.flags |= (mc ? CCS_DEVF_MULTICAST : 0) | (red ? CCS_DEVF_REDUCE : 0);
	}

	struct ccs_ynode *ny2 = ccs_ytree_get(m, "name");
	CCS_TRY(ccs_ytree_kind(&L->y, ny2, CCS_Y_SCALAR, "name"));
	struct ccs_topo_names ns;
	CCS_TRY(device_names(L, b, ny2, template_form, &ns));
	d.mark = ny2->mark;
	for (uint32_t i = 0; i < ns.n; i++) {
		if (b->ndev >= 10000000u)
			return ccs_diag_at(L->y.diag, ny2->mark, "more than 10000000 devices");
		CCS_TRY(ccs_grow(&b->dev, &b->dev_cap, (size_t)b->ndev + 1, sizeof *b->dev));
		d.name = ns.v[i];
		b->dev[b->ndev++] = d;
	}
	return CCS_OK;
}

/* ---- links ---- */

static const char *const link_type_names[] = {
	"nvlink", "c2c", "pcie", "smp", "upi", "xgmi", "ib", "infiniband", "roce", "ethernet", "ub", "hccs",
};
static const int link_type_vals[] = {
	CCS_LINK_NVLINK, CCS_LINK_C2C, CCS_LINK_PCIE, CCS_LINK_SMP, CCS_LINK_SMP, CCS_LINK_XGMI,
	CCS_LINK_IB, CCS_LINK_IB, CCS_LINK_ROCE, CCS_LINK_ETHERNET, CCS_LINK_UB, CCS_LINK_HCCS,
};
#define NLINK_TYPE_NAMES 12

enum { PAT_FULL, PAT_ZIP, PAT_BLOCK, PAT_MESH };
static const char *const pattern_names[] = { "full", "zip", "block", "mesh" };

/* PCIe per-lane data rate by generation after line coding [B/s]: the
 * parameter table's pcie.lane.genN (model/params.c). */
static double pcie_lane_Bps(long gen)
{
	char key[32];
	snprintf(key, sizeof key, "pcie.lane.gen%ld", gen);
	return ccs_param(key) * 1e9;
}

static int resolve(struct ld *L, const struct ccs_topo_names_map *nm, const struct ccs_body *b, const struct ccs_ynode *y,
                   const char *what, uint32_t **idx, uint32_t *n)
{
	struct ccs_topo_names ns;
	CCS_TRY(ccs_ytree_kind(&L->y, y, CCS_Y_SCALAR, what));
	CCS_TRY(ccs_topo_names_expand(&L->y, y, &ns));
	*idx = ccs_arena_alloc(L->y.a, ((size_t)ns.n + 1) * sizeof **idx);
	if (!*idx)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < ns.n; i++) {
		int d = ccs_topo_names_find(nm, b, ns.v[i]);
		if (d < 0) {
			const char *s = NULL;
			if (b->ndev <= 4096) {
				const char **cand = ccs_arena_alloc(L->y.a, ((size_t)b->ndev + 1) * sizeof *cand);
				if (!cand)
					return CCS_ENOMEM;
				for (uint32_t j = 0; j < b->ndev; j++)
					cand[j] = b->dev[j].name;
				s = ccs_suggest(ns.v[i], cand, (int)b->ndev);
			}
			if (s)
				return ccs_diag_at(L->y.diag, y->mark, "link %s unknown device '%s' (did you mean '%s'?)",
				                   what, ns.v[i], s);
			return ccs_diag_at(L->y.diag, y->mark, "link %s unknown device '%s'", what, ns.v[i]);
		}
		(*idx)[i] = (uint32_t)d;
	}
	*n = ns.n;
	return CCS_OK;
}

static int push_link(struct ld *L, struct ccs_body *b, const struct ccs_tmpl_link *tl, uint32_t a, uint32_t c)
{
	if (b->nlink >= 100000000u)
		return ccs_diag_at(L->y.diag, tl->mark, "more than 100000000 links");
	CCS_TRY(ccs_grow(&b->link, &b->link_cap, (size_t)b->nlink + 1, sizeof *b->link));
	b->link[b->nlink] = *tl;
	b->link[b->nlink].a = a;
	b->link[b->nlink].b = c;
	/* AMD calls both its GPU-to-GPU links and its sockets' links xGMI:
	 * between two GPUs the scale-up link, elsewhere a socket link */
	if (tl->type == CCS_LINK_XGMI && (b->dev[a].kind != CCS_DEV_GPU || b->dev[c].kind != CCS_DEV_GPU))
		b->link[b->nlink].type = CCS_LINK_SMP;
	b->nlink++;
	return CCS_OK;
}

/* A link's type, lanes, latency and bandwidth per direction (given whole,
 * per lane, or by PCIe generation: one of the three). */
static int link_spec(struct ld *L, const struct ccs_ynode *m, struct ccs_tmpl_link *tl)
{
	memset(tl, 0, sizeof *tl);
	tl->mark = m->mark;
	int type = 0;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "type", link_type_names, link_type_vals, NLINK_TYPE_NAMES, &type));
	tl->type = (uint8_t)type;
	long lanes = 1, gen = 0;
	CCS_TRY(ccs_ytree_long(&L->y, m, "lanes", 1, 65535, &lanes, NULL));
	tl->lanes = (uint16_t)lanes;
	struct ccs_ynode *gy = ccs_ytree_get(m, "gen");
	if (gy && type != CCS_LINK_PCIE)
		return ccs_diag_at(L->y.diag, gy->mark, "'gen' applies to pcie links only");
	CCS_TRY(ccs_ytree_long(&L->y, m, "gen", 1, 6, &gen, NULL));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "latency", CCS_QTY_TIME, &tl->lat_s));
	struct ccs_ynode *bw = ccs_ytree_get(m, "bandwidth"), *lbw = ccs_ytree_get(m, "lane_bandwidth");
	int nset = (bw != NULL) + (lbw != NULL) + (gy != NULL);
	if (nset == 0)
		return ccs_diag_at(L->y.diag, m->mark, "a link needs 'bandwidth' (per direction), 'lane_bandwidth' with 'lanes', or for pcie 'gen' with 'lanes'");
	if (nset > 1)
		return ccs_diag_at(L->y.diag, (bw && lbw) ? lbw->mark : gy->mark,
		                   "give only one of 'bandwidth', 'lane_bandwidth' and 'gen'");
	if (bw) {
		CCS_TRY(ccs_ytree_qty(&L->y, m, "bandwidth", CCS_QTY_BW, &tl->bw_Bps));
	} else if (lbw) {
		double x = 0;
		CCS_TRY(ccs_ytree_qty(&L->y, m, "lane_bandwidth", CCS_QTY_BW, &x));
		tl->bw_Bps = x * (double)lanes;
	} else {
		tl->bw_Bps = pcie_lane_Bps(gen) * (double)lanes;
	}
	return CCS_OK;
}

/* The links of a pattern between the nf devices fa and the nt devices ta:
 * full, zip, block or mesh (pm: where the pattern was given). */
static int link_pattern(struct ld *L, struct ccs_body *b, const struct ccs_tmpl_link *tl, int pat, struct ccs_mark pm,
                        const uint32_t *fa, uint32_t nf, const uint32_t *ta, uint32_t nt)
{
	switch (pat) {
	case PAT_FULL:
		if ((uint64_t)nf * nt > 10000000u)
			return ccs_diag_at(L->y.diag, pm, "pattern 'full' of %u x %u devices makes too many links", nf, nt);
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = 0; j < nt; j++)
				CCS_TRY(push_link(L, b, tl, fa[i], ta[j]));
		break;
	case PAT_ZIP:
		if (nf != nt)
			return ccs_diag_at(L->y.diag, pm, "pattern 'zip' needs as many 'from' as 'to' devices, got %u and %u", nf, nt);
		for (uint32_t i = 0; i < nf; i++)
			CCS_TRY(push_link(L, b, tl, fa[i], ta[i]));
		break;
	case PAT_BLOCK:
		if (nf >= nt ? nf % nt : nt % nf)
			return ccs_diag_at(L->y.diag, pm, "pattern 'block' needs one count to divide the other, got %u and %u", nf, nt);
		if (nf >= nt)
			for (uint32_t i = 0; i < nf; i++)
				CCS_TRY(push_link(L, b, tl, fa[i], ta[i / (nf / nt)]));
		else
			for (uint32_t j = 0; j < nt; j++)
				CCS_TRY(push_link(L, b, tl, fa[j / (nt / nf)], ta[j]));
		break;
	case PAT_MESH:
		if (nf != nt || memcmp(fa, ta, nf * sizeof *fa))
			return ccs_diag_at(L->y.diag, pm, "pattern 'mesh' joins every pair of one set: 'from' and 'to' must name the same devices");
		if ((uint64_t)nf * nf > 20000000u)
			return ccs_diag_at(L->y.diag, pm, "pattern 'mesh' of %u devices makes too many links", nf);
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = i + 1; j < nf; j++)
				CCS_TRY(push_link(L, b, tl, fa[i], fa[j]));
		break;
	}
	return CCS_OK;
}

static int load_link(struct ld *L, struct ccs_body *b, const struct ccs_topo_names_map *nm, const struct ccs_ynode *m)
{
	static const char *const keys[] = { "from", "to", "pattern", "type", "bandwidth", "lane_bandwidth",
	                                    "lanes", "gen", "latency" };
	CCS_TRY(ccs_ytree_kind(&L->y, m, CCS_Y_MAP, "link"));
	CCS_TRY(ccs_ytree_keys(&L->y, m, keys, (int)(sizeof keys / sizeof keys[0]), "a link"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "from", "a link"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "to", "a link"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "type", "a link"));
	struct ccs_tmpl_link tl;
	CCS_TRY(link_spec(L, m, &tl));
	uint32_t *fa, *ta, nf, nt;
	CCS_TRY(resolve(L, nm, b, ccs_ytree_get(m, "from"), "from", &fa, &nf));
	CCS_TRY(resolve(L, nm, b, ccs_ytree_get(m, "to"), "to", &ta, &nt));
	int pat = PAT_FULL;
	struct ccs_ynode *py = ccs_ytree_get(m, "pattern");
	if (py) {
		CCS_TRY(ccs_ytree_enum(&L->y, m, "pattern", pattern_names, NULL, 4, &pat));
	} else if (nf > 1 && nt > 1) {
		return ccs_diag_at(L->y.diag, m->mark,
		                   "a link from %u devices to %u needs 'pattern': full, zip, block or mesh", nf, nt);
	}
	struct ccs_mark pm = py ? py->mark : m->mark;
	return link_pattern(L, b, &tl, pat, pm, fa, nf, ta, nt);
}

static int load_body(struct ld *L, const struct ccs_ynode *devs, const struct ccs_ynode *links,
                     struct ccs_body *b, int template_form)
{
	CCS_TRY(ccs_ytree_kind(&L->y, devs, CCS_Y_SEQ, "devices"));
	if (!devs->n)
		return ccs_diag_at(L->y.diag, devs->mark, "'devices' is empty");
	for (uint32_t i = 0; i < devs->n; i++)
		CCS_TRY(load_device(L, b, devs->v[i], template_form));
	struct ccs_topo_names_map nm;
	CCS_TRY(ccs_topo_names_index(&L->y, &nm, b));
	if (!links)
		return CCS_OK;
	CCS_TRY(ccs_ytree_kind(&L->y, links, CCS_Y_SEQ, "links"));
	for (uint32_t i = 0; i < links->n; i++)
		CCS_TRY(load_link(L, b, &nm, links->v[i]));
	return CCS_OK;
}

/* ---- scale-up and scale-out sections ---- */

/* tiers: 2 (a UB plane as CloudMatrix384 builds it): `switches` L1 chips
 * on every node, `spines` L2 chips in each of the `switches` sub-planes,
 * one `uplink_bandwidth` link from each L1 chip to every L2 chip of its
 * sub-plane. */
static int load_su_tiers(struct ld *L, const struct ccs_ynode *m, struct ccs_scaleup_spec *su)
{
	CCS_TRY(ccs_ytree_long(&L->y, m, "tiers", 1, 2, &su->tiers, &su->tiers_mark));
	struct ccs_ynode *sp = ccs_ytree_get(m, "spines"), *ub = ccs_ytree_get(m, "uplink_bandwidth");
	if (su->tiers == 1) {
		if (sp || ub)
			return ccs_diag_at(L->y.diag, (sp ? sp : ub)->mark,
			                   "'%s' is for a two-tier scale-up plane: add 'tiers: 2' to 'scaleup'",
			                   sp ? "spines" : "uplink_bandwidth");
		return CCS_OK;
	}
	if (!sp || !ub)
		return ccs_diag_at(L->y.diag, su->tiers_mark,
		                   "'tiers: 2' in 'scaleup' needs 'spines' (L2 chips per sub-plane) and 'uplink_bandwidth' (each L1 to L2 link)");
	if (su->switches < 1)
		return ccs_diag_at(L->y.diag, su->switches_mark, "'tiers: 2' needs 'switches' >= 1 (L1 chips per node)");
	CCS_TRY(ccs_ytree_long(&L->y, m, "spines", 1, 4096, &su->spines, NULL));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "uplink_bandwidth", CCS_QTY_BW, &su->up_bw_Bps));
	return CCS_OK;
}

static int load_scaleup(struct ld *L, const struct ccs_ynode *m, struct ccs_scaleup_spec *su)
{
	static const char *const keys[] = { "type", "nodes_per_domain", "switches", "lanes", "lane_bandwidth",
	                                    "bandwidth", "latency", "switch_latency", "multicast",
	                                    "reduction", "radix", "tiers", "spines", "uplink_bandwidth" };
	static const char *const tnames[] = { "nvlink", "ub", "hccs", "xgmi" };
	static const int tvals[] = { CCS_LINK_NVLINK, CCS_LINK_UB, CCS_LINK_HCCS, CCS_LINK_XGMI };
	CCS_TRY(ccs_ytree_kind(&L->y, m, CCS_Y_MAP, "scaleup"));
	CCS_TRY(ccs_ytree_keys(&L->y, m, keys, (int)(sizeof keys / sizeof keys[0]), "'scaleup'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "type", "'scaleup'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "switches", "'scaleup'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "lanes", "'scaleup'"));
	su->present = 1;
	su->mark = m->mark;
	su->nodes_per_domain = 1;
	su->tiers = 1;
	su->multicast_mark = su->lanes_mark = su->switches_mark = su->radix_mark = su->tiers_mark = m->mark;
	int type = 0;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "type", tnames, tvals, 4, &type));
	su->type = (uint8_t)type;
	CCS_TRY(ccs_ytree_long(&L->y, m, "nodes_per_domain", 1, MAX_NODES, &su->nodes_per_domain, NULL));
	CCS_TRY(ccs_ytree_long(&L->y, m, "switches", 0, 4096, &su->switches, &su->switches_mark));
	CCS_TRY(ccs_ytree_long(&L->y, m, "lanes", 1, 4096, &su->lanes, &su->lanes_mark));
	CCS_TRY(ccs_ytree_long(&L->y, m, "radix", 1, 1000000, &su->radix, &su->radix_mark));
	CCS_TRY(load_su_tiers(L, m, su));
	struct ccs_ynode *bw = ccs_ytree_get(m, "bandwidth"), *lbw = ccs_ytree_get(m, "lane_bandwidth");
	if (!bw && !lbw)
		return ccs_diag_at(L->y.diag, m->mark, "missing 'lane_bandwidth' (per lane, per direction) or 'bandwidth' (per gpu) in 'scaleup'");
	if (bw && lbw)
		return ccs_diag_at(L->y.diag, lbw->mark, "give only one of 'bandwidth' and 'lane_bandwidth'");
	if (bw) {
		double x = 0;
		CCS_TRY(ccs_ytree_qty(&L->y, m, "bandwidth", CCS_QTY_BW, &x));
		su->lane_bw_Bps = x / (double)su->lanes;
	} else {
		CCS_TRY(ccs_ytree_qty(&L->y, m, "lane_bandwidth", CCS_QTY_BW, &su->lane_bw_Bps));
	}
	CCS_TRY(ccs_ytree_qty(&L->y, m, "latency", CCS_QTY_TIME, &su->lat_s));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "switch_latency", CCS_QTY_TIME, &su->switch_lat_s));
	CCS_TRY(ccs_ytree_bool(&L->y, m, "multicast", &su->multicast, &su->multicast_mark));
	struct ccs_mark rm = m->mark;
	CCS_TRY(ccs_ytree_bool(&L->y, m, "reduction", &su->reduction, &rm));
	if (su->reduction && !su->multicast)
		su->multicast_mark = rm;
	return CCS_OK;
}

/* "2", "2:1", "1.5" -> 2, 2, 1.5 */
static int parse_ratio(struct ld *L, const struct ccs_ynode *y, const char *what, double *out)
{
	CCS_TRY(ccs_ytree_kind(&L->y, y, CCS_Y_SCALAR, what));
	char *end;
	double a = strtod(y->str, &end), b = 1;
	if (end != y->str && *end == ':') {
		const char *q = end + 1;
		b = strtod(q, &end);
		if (end == q)
			b = -1;
	}
	if (end == y->str || *end || !(a > 0) || !(b > 0) || a > 1e6 || b > 1e6 || a / b < 0.01)
		return ccs_diag_at(L->y.diag, y->mark, "%s must be a ratio such as 2, 2:1 or 1.5, got '%s'", what, y->str);
	*out = a / b;
	return CCS_OK;
}

static int load_scaleout(struct ld *L, const struct ccs_ynode *m, struct ccs_scaleout_spec *so)
{
	static const char *const keys[] = { "topology", "tiers", "type", "radix", "planes",
	                                    "oversubscription", "port_bandwidth", "link_latency",
	                                    "switch_latency", "sharp", "spray", "transport", "routing" };
	static const char *const tnames[] = { "ib", "infiniband", "roce", "ethernet" };
	static const int tvals[] = { CCS_LINK_IB, CCS_LINK_IB, CCS_LINK_ROCE, CCS_LINK_ETHERNET };
	CCS_TRY(ccs_ytree_kind(&L->y, m, CCS_Y_MAP, "scaleout"));
	CCS_TRY(ccs_ytree_keys(&L->y, m, keys, (int)(sizeof keys / sizeof keys[0]), "'scaleout'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "topology", "'scaleout'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "tiers", "'scaleout'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "type", "'scaleout'"));
	CCS_TRY(ccs_ytree_need(&L->y, m, "radix", "'scaleout'"));
	so->present = 1;
	so->mark = so->tiers_mark = so->radix_mark = so->planes_mark = m->mark;
	so->planes = 1;
	so->spray = 1;
	for (int i = 0; i < CCS_TIER_N; i++)
		so->oversub[i] = 1.0;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "topology", ccs_fabric_kind_name, NULL, 3, &so->kind));
	int type = 0;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "type", tnames, tvals, 4, &type));
	so->type = (uint8_t)type;
	CCS_TRY(ccs_ytree_long(&L->y, m, "tiers", 1, 3, &so->tiers, &so->tiers_mark));
	CCS_TRY(ccs_ytree_long(&L->y, m, "radix", 2, 4096, &so->radix, &so->radix_mark));
	CCS_TRY(ccs_ytree_long(&L->y, m, "planes", 1, 64, &so->planes, &so->planes_mark));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "port_bandwidth", CCS_QTY_BW, &so->port_bw_Bps));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "link_latency", CCS_QTY_TIME, &so->link_lat_s));
	CCS_TRY(ccs_ytree_qty(&L->y, m, "switch_latency", CCS_QTY_TIME, &so->switch_lat_s));
	CCS_TRY(ccs_ytree_bool(&L->y, m, "sharp", &so->sharp, NULL));
	CCS_TRY(ccs_ytree_long(&L->y, m, "spray", 1, 64, &so->spray, NULL));
	so->routing = -1;
	CCS_TRY(ccs_ytree_enum(&L->y, m, "routing", ccs_routing_name, NULL, CCS_ROUTE_N, &so->routing));
	if (so->spray > 1 && (so->routing == CCS_ROUTE_DMODK || so->routing == CCS_ROUTE_ECMP))
		return ccs_diag_at(L->y.diag, ccs_ytree_get(m, "spray")->mark,
		                   "'spray: %ld' splits transfers over paths, but 'routing: %s' sends each flow on one path "
		                   "(write routing: spray or adaptive)", so->spray, ccs_routing_name[so->routing]);
	if (so->routing == CCS_ROUTE_SPRAY && so->spray == 1)
		so->spray = 8;          /* EFA's SRD uses many paths; 8 as the shipped AWS files say */
	if (so->routing == CCS_ROUTE_ADAPTIVE && so->spray == 1)
		so->spray = 16;
	/* the transport (model/transport.h); model.transport, read first, wins */
	if (L->spec->params.transport < 0)
		CCS_TRY(ccs_ytree_enum(&L->y, m, "transport", ccs_transport_name, NULL, CCS_TR_N, &L->spec->params.transport));
	struct ccs_ynode *ov = ccs_ytree_get(m, "oversubscription");
	if (ov) {
		if (so->tiers < 2)
			return ccs_diag_at(L->y.diag, ov->mark, "oversubscription needs 2 or more tiers: one tier has no uplinks");
		if (ov->kind == CCS_Y_MAP) {
			static const char *const okeys[] = { "leaf", "spine" };
			CCS_TRY(ccs_ytree_keys(&L->y, ov, okeys, 2, "'oversubscription' (tiers with uplinks)"));
			struct ccs_ynode *sp = ccs_ytree_get(ov, "spine"), *lf = ccs_ytree_get(ov, "leaf");
			if (sp && so->tiers < 3)
				return ccs_diag_at(L->y.diag, sp->mark,
				                   "'spine' is the top tier of a 2-tier fabric and has no uplinks to oversubscribe");
			if (lf)
				CCS_TRY(parse_ratio(L, lf, "leaf oversubscription", &so->oversub[CCS_TIER_LEAF]));
			if (sp)
				CCS_TRY(parse_ratio(L, sp, "spine oversubscription", &so->oversub[CCS_TIER_SPINE]));
		} else {
			CCS_TRY(parse_ratio(L, ov, "oversubscription", &so->oversub[CCS_TIER_LEAF]));
		}
	}
	return CCS_OK;
}

/* ---- the whole file ---- */

static int load_spec(struct ld *L, const struct ccs_ynode *root, const char *fallback_name)
{
	static const char *const keys[] = { "name", "description", "nodes", "node", "scaleup", "scaleout",
	                                    "devices", "links", "model", "calibration", "faults" };
	struct ccs_topo_spec *s = L->spec;
	CCS_TRY(ccs_ytree_keys(&L->y, root, keys, (int)(sizeof keys / sizeof keys[0]), "the topology"));
	const char *name = fallback_name, *desc = NULL;
	CCS_TRY(ccs_ytree_str(&L->y, root, "name", &name));
	CCS_TRY(ccs_ytree_str(&L->y, root, "description", &desc));
	s->name = ccs_arena_strdup(&s->arena, name);
	if (!s->name)
		return CCS_ENOMEM;
	struct ccs_ynode *model = ccs_ytree_get(root, "model");
	if (model)
		CCS_TRY(ccs_params_yaml_model(&L->y, model, &s->params));
	/* fitted numbers override the file's own */
	struct ccs_ynode *cal = ccs_ytree_get(root, "calibration");
	if (cal)
		CCS_TRY(ccs_params_yaml_calibration(&L->y, cal, &s->params));
	struct ccs_ynode *node = ccs_ytree_get(root, "node"), *devs = ccs_ytree_get(root, "devices");
	if (node && devs)
		return ccs_diag_at(L->y.diag, devs->mark,
		                   "'devices' and 'node' cannot both be given: list a node's devices under 'node'");
	if (!node && !devs)
		return ccs_diag_at(L->y.diag, root->mark,
		                   "expected 'node' (template form) or 'devices' (explicit form)");
	if (devs) {
		static const char *const tkeys[] = { "nodes", "scaleup", "scaleout" };
		for (int i = 0; i < 3; i++)
			for (uint32_t j = 0; j < root->n; j++)
				if (!strcmp(root->k[j]->str, tkeys[i]))
					return ccs_diag_at(L->y.diag, root->k[j]->mark,
					                   "'%s' belongs to the template form (with 'node'); the explicit form lists every device under 'devices'",
					                   tkeys[i]);
		s->template_form = 0;
		return load_body(L, devs, ccs_ytree_get(root, "links"), &s->body, 0);
	}
	s->template_form = 1;
	struct ccs_ynode *tl = ccs_ytree_get(root, "links");
	if (tl) {
		uint32_t j = 0;
		while (root->v[j] != tl)
			j++;
		return ccs_diag_at(L->y.diag, root->k[j]->mark, "'links' of the template form go under 'node'");
	}
	s->nodes_mark = root->mark;
	CCS_TRY(ccs_ytree_long(&L->y, root, "nodes", 1, MAX_NODES, &s->nodes, &s->nodes_mark));
	CCS_TRY(ccs_ytree_kind(&L->y, node, CCS_Y_MAP, "node"));
	static const char *const nkeys[] = { "devices", "links" };
	CCS_TRY(ccs_ytree_keys(&L->y, node, nkeys, 2, "'node'"));
	CCS_TRY(ccs_ytree_need(&L->y, node, "devices", "'node'"));
	s->node_mark = node->mark;
	CCS_TRY(load_body(L, ccs_ytree_get(node, "devices"), ccs_ytree_get(node, "links"), &s->body, 1));
	struct ccs_ynode *su = ccs_ytree_get(root, "scaleup"), *so = ccs_ytree_get(root, "scaleout");
	if (su)
		CCS_TRY(load_scaleup(L, su, &s->scaleup));
	if (!so)
		return ccs_diag_at(L->y.diag, root->mark,
		                   "missing 'scaleout' in the topology: the template form says how nodes join (a one-node file too, so --set nodes=N works)");
	CCS_TRY(load_scaleout(L, so, &s->scaleout));
	return CCS_OK;
}

static const char *base_name(struct ccs_arena *a, const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return ccs_arena_strndup(a, b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

int ccs_topo_yaml_load_buf(const char *name, const char *buf, size_t len, const char *const *sets, int nsets,
                           struct ccs_topo **out, struct ccs_diag *diag)
{
	struct ccs_topo_spec spec;
	struct ccs_arena tmp;
	struct ccs_topo *t = NULL;
	const char *const *old_srcs = diag->srcs;
	int old_n = diag->nsrcs;
	int rc;

	*out = NULL;
	ccs_topo_gen_spec_init(&spec);
	ccs_arena_init(&tmp);
	struct ld L;
	memset(&L, 0, sizeof L);
	L.y.diag = diag;
	L.y.a = &tmp;
	L.spec = &spec;

	struct ccs_ynode *root = NULL;
	rc = ccs_ytree_load_tree(&L.y, name, buf, len, 0, &root);
	if (rc)
		goto out;
	for (int i = 0; i < nsets; i++) {
		int src;
		if (!strncmp(sets[i], "faults+=", 8))
			continue;   /* applied after the build, below */
		const char *sn = ccs_arena_printf(&tmp, "--set '%s'", sets[i]);
		rc = sn ? ccs_ytree_add_src(&L.y, sn, &src) : CCS_ENOMEM;
		if (rc)
			goto out;
		rc = ccs_ytree_set(&L.y, root, sets[i], src);
		if (rc)
			goto out;
	}
	const char *bn = base_name(&tmp, name);
	rc = bn ? load_spec(&L, root, bn) : CCS_ENOMEM;
	if (rc)
		goto out;
	rc = CCS_ENOMEM;
	if (!(t = ccs_topo_new()))
		goto out;
	t->path = ccs_arena_strdup(&t->arena, name);
	if (!t->path)
		goto out;
	rc = ccs_topo_gen_build(&spec, t, diag);
	/* faults: a list of model/fault.h strings, applied to what was built */
	struct ccs_ynode *fy = rc ? NULL : ccs_ytree_get(root, "faults");
	if (fy) {
		if ((rc = ccs_ytree_kind(&L.y, fy, CCS_Y_SEQ, "faults")))
			goto out;
		for (uint32_t i = 0; i < fy->n && !rc; i++) {
			if ((rc = ccs_ytree_kind(&L.y, fy->v[i], CCS_Y_SCALAR, "a fault")))
				break;
			char err[512];
			if ((rc = ccs_fault_apply(t, fy->v[i]->str, err, sizeof err)) == CCS_EINPUT)
				ccs_diag_at(diag, fy->v[i]->mark, "%s", err);
		}
	}
	for (int i = 0; i < nsets && !rc; i++) {
		if (strncmp(sets[i], "faults+=", 8))
			continue;
		char err[512];
		if ((rc = ccs_fault_apply(t, sets[i] + 8, err, sizeof err)) == CCS_EINPUT)
			ccs_diag_msg(diag, "--%s", err);
	}
out:
	if (rc == CCS_ENOMEM && !diag->set)
		ccs_diag_msg(diag, "%s: out of memory", name);
	if (rc) {
		ccs_topo_free(t);
		t = NULL;
	}
	diag->srcs = old_srcs;
	diag->nsrcs = old_n;
	ccs_topo_gen_spec_release(&spec);
	ccs_arena_release(&tmp);
	*out = t;
	return rc;
}

/* The file at path, whole (ytree's reader and messages). */
static int read_whole(const char *path, char **buf, size_t *len, struct ccs_diag *diag)
{
	struct ccs_arena tmp;
	ccs_arena_init(&tmp);
	struct ccs_ydoc y;
	memset(&y, 0, sizeof y);
	y.diag = diag;
	y.a = &tmp;
	int rc = ccs_ytree_read_file(&y, path, NULL, buf, len);
	ccs_arena_release(&tmp);
	if (rc == CCS_ENOMEM && !diag->set)
		ccs_diag_msg(diag, "%s: out of memory", path);
	return rc;
}

int ccs_topo_yaml_import(const char *path, char **yaml, char **warn, struct ccs_diag *diag)
{
	char *buf;
	size_t len;
	*yaml = *warn = NULL;
	CCS_TRY(read_whole(path, &buf, &len, diag));
	int rc = ccs_xml_is(buf, len) ? ccs_topo_xml_yaml(path, buf, len, yaml, warn, diag)
	                              : ccs_diag_msg(diag, "%s:1:1: not an NCCL topology dump (XML)", path);
	ccs_free(buf);
	return rc;
}

int ccs_topo_yaml_load(const char *path, const char *const *sets, int nsets, struct ccs_topo **out,
                       struct ccs_diag *diag)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = read_whole(path, &buf, &len, diag);
	if (rc)
		return rc;
	if (!ccs_xml_is(buf, len)) {
		rc = ccs_topo_yaml_load_buf(path, buf, len, sets, nsets, out, diag);
		ccs_free(buf);
		return rc;
	}
	/* an NCCL topology dump: its YAML (model/topo_xml.h), named so that a
	 * message about it is not taken for one about the XML's lines */
	char *yaml, *warn;
	rc = ccs_topo_xml_yaml(path, buf, len, &yaml, &warn, diag);
	ccs_free(buf);
	if (rc)
		return rc;
	char name[1100];
	snprintf(name, sizeof name, "%s (as imported YAML)", path);
	rc = ccs_topo_yaml_load_buf(name, yaml, strlen(yaml), sets, nsets, out, diag);
	if (!rc && warn && !((*out)->note = ccs_arena_printf(&(*out)->arena, "%s: %s", path, warn))) {
		ccs_topo_free(*out);
		*out = NULL;
		rc = CCS_ENOMEM;
	}
	ccs_free(yaml);
	ccs_free(warn);
	return rc;
}

