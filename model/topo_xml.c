/* model/topo_xml.c: an NCCL topology dump as topology YAML (topo_xml.h). */
#include "topo_xml.h"
#include "topo_parts.h"
#include "topo_xml_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The PCIe generation (1-6, 0 not known) and lanes (0: not given) that pci
 * element e states; CCS_EINPUT for a width that is not a lane count. */
static int pci_rate(struct conv *v, const struct ccs_xml_node *e, int *gen, long *lanes)
{
	const char *sp = ccs_xml_attr(e, "link_speed"), *w = ccs_xml_attr(e, "link_width");
	static const double gts[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	*gen = 0;
	if (sp) {
		double g = strtod(sp, NULL);
		for (int i = 0; i < 6; i++)
			if (g > gts[i] - 0.01 && g < gts[i] + 0.01)
				*gen = i + 1;
	}
	*lanes = 0;
	if (w) {
		char *end;
		*lanes = strtol(w, &end, 10);
		if (end == w || *end || *lanes < 0 || *lanes > 32)
			return ccs_xml_at(v->d, v->name, e, "'link_width' must be a lane count, got '%s'", w);
	}
	return CCS_OK;
}

/* The fastest link (gen x lanes) stated below pci element id, into *gen
 * and *lanes (0 none). */
static void fastest_below(struct conv *v, int id, int *gen, long *lanes)
{
	for (int c = v->x->n[id].child; c >= 0; c = v->x->n[c].next) {
		if (strcmp(v->x->n[c].name, "pci"))
			continue;
		int g;
		long l;
		if (pci_rate(v, &v->x->n[c], &g, &l))
			continue;   /* reported when that element's own link is written */
		if (!l && g)
			l = 16;
		if (g && (double)l * (1 << g) > (double)*lanes * (1 << *gen))
			*gen = g, *lanes = l;
		fastest_below(v, c, gen, lanes);
	}
}

/* The PCIe link of pci element e, from child to parent, as YAML.  A width
 * of 0 is taken as x16 at the stated speed, as NCCL does (topo.cc,
 * ncclTopoAddPci: "width == 0" when /sys did not say); a bridge that states
 * 2.5 GT/s x1 above faster devices is a hypervisor's emulated port, taken at
 * the rate of the fastest device below it (QEMU's TI XIO3130 ports, vendor
 * 0x104c device 0x8232, state that rate: the IBM Cloud H100 VSI's topology
 * file, and the H200 VM of NVIDIA/nccl-tests issue 256, where NCCL prints
 * them as PCI[0.2]); a speed not known here, gen 4 x16. */
static int pcie_link(struct conv *v, const struct ccs_xml_node *e, const char *child, const char *parent)
{
	int gen;
	long lanes;
	CCS_TRY(pci_rate(v, e, &gen, &lanes));
	if (gen && !lanes) {
		if (!v->width0++)
			v->width0_line = e->line;
		lanes = 16;
	}
	if (gen == 1 && lanes == 1) {
		int g = 0;
		long l = 0;
		fastest_below(v, (int)(e - v->x->n), &g, &l);
		if (g && l && (double)l * (1 << g) > 2) {
			if (!v->vport++)
				v->vport_line = e->line;
			gen = g;
			lanes = l;
		}
	}
	if (!gen) {
		const char *sp = ccs_xml_attr(e, "link_speed"), *w = ccs_xml_attr(e, "link_width");
		warn(v->o, "line %d: %s has no usable link_speed/link_width ('%s' x '%s'): taken as PCIe gen 4 x16", e->line,
		     child, sp ? sp : "", w ? w : "");
		gen = 4;
		lanes = 16;
	}
	ccs_text_printf(&v->links, "    - {from: %s, to: %s, type: pcie, gen: %d, lanes: %ld}\n", child, parent, gen, lanes);
	return CCS_OK;
}

static int walk_pci(struct conv *v, int id, const char *parent, int depth);

/* An AMD <gpu> (RCCL's dump: gcn names the architecture; xGMI links as
 * <xgmi> children): its device line into v->devs, r->xgmi_lane set.  The
 * model's tuning tables are NCCL's: Hopper's stand in for RCCL's own. */
static void amd_gpu(struct conv *v, const struct ccs_xml_node *g, struct gpu_rec *r, const char *nm)
{
	const char *gcn = ccs_xml_attr(g, "gcn");
	const struct ccs_topo_parts_amd *k = ccs_topo_parts_amd(gcn);
	char gb[64], bw[64];
	r->xgmi_lane = k ? k->lane : "64GB/s";
	ccs_text_printf(&v->devs, "    - {name: %s, type: gpu, model: %s, arch: hopper%s%s}   # %s, gcn %s\n", nm,
	    k ? k->model : "AMD-GPU", k ? ", memory_bandwidth: " : "", k ? k->mem : "",
	    r->busid ? remark(r->busid, bw, sizeof bw) : "?", remark(gcn, gb, sizeof gb));
	if (v->warned_gcn)
		return;
	v->warned_gcn = 1;
	if (!k)
		warn(v->o, "line %d: gcn '%s' is not known here: xGMI links taken at MI300X's 64 GB/s, no memory bandwidth "
		     "(no reduction bound)", g->line, remark(gcn, gb, sizeof gb));
	else if (!strncmp(k->gcn, "gfx94", 5))
		warn(v->o, "gcn %s is MI300X or MI325X (the dump does not say): taken as MI300X; --set "
		     "node.devices.N.memory_bandwidth=6TB/s for an MI325X box", remark(gcn, gb, sizeof gb));
	warn(v->o, "AMD GPUs run RCCL, whose tuning tables are not modelled: NCCL's Hopper tables (channels, "
	           "latencies, protocol limits) stand in for them");
}

/* The <c2c bw count> of <gpu> g into r: NVLink-C2C to its CPU at bw x
 * count / 1000 GB/s, as NCCL reads it (topo.cc: a GB300 GPU's bw 44712 x 5
 * is its 224 GB/s per direction, half of Grace's 900 GB/s both ways shared
 * by two GPUs). */
static int c2c_of(struct conv *v, const struct ccs_xml_node *g, struct gpu_rec *r)
{
	r->c2c_GBps = 0;
	for (int c = g->child; c >= 0; c = v->x->n[c].next) {
		const struct ccs_xml_node *l = &v->x->n[c];
		if (strcmp(l->name, "c2c"))
			continue;
		long bw, count;
		CCS_TRY(num(v, l, "bw", -1, 10000000, &bw));
		CCS_TRY(num(v, l, "count", 1, 64, &count));
		r->c2c_GBps += (double)bw * (double)count / 1000.0;
	}
	v->c2c += r->c2c_GBps > 0;
	return CCS_OK;
}

/* The device line of NVIDIA GPU nm of compute capability sm under pci
 * element e (its part, *k, by sm and device id), how it came by its sm in
 * the comment. */
static void nvidia_line(struct conv *v, const struct ccs_xml_node *e, const char *nm, int sm, const char *how,
                        struct ccs_topo_parts_gpu *k)
{
	const char *bus = ccs_xml_attr(e, "busid");
	char bw[64];
	ccs_topo_parts_nvidia(sm, ccs_xml_attr(e, "vendor"), ccs_xml_attr(e, "device"), k);
	ccs_text_printf(&v->devs, "    - {name: %s, type: gpu, model: %s, arch: %s%s%s}   # %s, %s\n", nm, k->model, k->arch,
	    k->mem ? ", memory_bandwidth: " : "", k->mem ? k->mem : "", bus ? remark(bus, bw, sizeof bw) : "?", how);
}

/* A <gpu> under pci element e. */
static int add_gpu(struct conv *v, const struct ccs_xml_node *e, const struct ccs_xml_node *g, const char *parent)
{
	long dev, sm;
	CCS_TRY(num(v, g, "dev", -1, 65535, &dev));
	CCS_TRY(num(v, g, "sm", -1, 1000, &sm));
	if (v->ngpu >= XML_MAX_GPUS)
		return ccs_xml_at(v->d, v->name, g, "more than %d GPUs", XML_MAX_GPUS);
	for (int i = 0; i < v->ngpu; i++)
		if (v->gpu[i].dev == dev)
			return ccs_xml_at(v->d, v->name, g, "a second GPU with dev %ld", dev);
	struct gpu_rec *r = &v->gpu[v->ngpu++];
	r->dev = (int)dev;
	r->sm = (int)sm;
	r->busid = ccs_xml_attr(e, "busid");
	r->node = (int)(g - v->x->n);
	r->xgmi_lane = NULL;
	r->cpu = v->cur_cpu;
	r->nogdr = attr_is(g, "gdr", "0");
	v->gpu_nogdr += r->nogdr;
	v->gpu_ids += ccs_xml_attr(e, "device") != NULL;
	for (int c = g->child; c >= 0; c = v->x->n[c].next)
		v->nvl_any += !strcmp(v->x->n[c].name, "nvlink") || !strcmp(v->x->n[c].name, "xgmi");
	CCS_TRY(c2c_of(v, g, r));
	char nm[32];
	snprintf(nm, sizeof nm, "gpu%ld", dev);
	if (ccs_xml_attr(g, "gcn")) {
		amd_gpu(v, g, r, nm);
		return pcie_link(v, e, nm, parent);
	}
	char how[32];
	snprintf(how, sizeof how, "sm %ld", sm);
	struct ccs_topo_parts_gpu k;
	nvidia_line(v, e, nm, (int)sm, how, &k);
	if (!k.mem && sm != v->warned_sm) {
		warn(v->o, "line %d: gpu%ld has sm %ld: the memory bandwidth of sm %ld GPUs is not known here (no "
		     "reduction bound)", g->line, dev, sm, sm);
		v->warned_sm = (int)sm;
	}
	if (sm == 90 && !k.by_id && !v->warned_h200++)
		warn(v->o, "sm 90 is H100 or H200 (the dump does not say): taken as H100; --set "
		           "node.devices.N.model=H200 for an H200 box");
	/* a GPU with C2C reaches its CPU over it, NCCL's widest path (P2C); its
	 * narrow PCIe link carries nothing NCCL sends */
	return r->c2c_GBps > 0 ? CCS_OK : pcie_link(v, e, nm, parent);
}

/* Whether <net> n repeats one already kept (the same name, guid and port):
 * NCCL lists a NIC with no PCI path of its own, such as a socket's eth0,
 * under every <cpu> (an HGX B200 dump of NCCL 2.27.3 shows eth0 under both);
 * it is one NIC. */
static int same_net(struct conv *v, const struct ccs_xml_node *n)
{
	static const char *const keys[] = { "name", "guid", "port" };
	for (int i = 0; i < v->nnic; i++) {
		const struct ccs_xml_node *o = &v->x->n[v->net_node[i]];
		size_t k = 0;
		for (; k < sizeof keys / sizeof keys[0]; k++) {
			const char *a = ccs_xml_attr(n, keys[k]), *b = ccs_xml_attr(o, keys[k]);
			if ((a || b) && (!a || !b || strcmp(a, b)))
				break;
		}
		if (k == sizeof keys / sizeof keys[0] && ccs_xml_attr(n, "name")) {
			if (!v->nodup++)
				warn(v->o, "line %d: net %s is listed again (first at line %d): one NIC", n->line,
				     ccs_xml_attr(n, "name"), o->line);
			return 1;
		}
	}
	return 0;
}

static int put_nic(struct conv *v, const struct ccs_xml_node *e, const struct ccs_xml_node *net, long speed, long cls,
                   const char *parent);

/* A <net>'s speed [Mb/s].  What is no line rate, absent, 0, -1 or ethtool's
 * SPEED_UNKNOWN read unsigned (4294967295, a VM's virtio NIC), is 10 Gb/s,
 * as NCCL takes it (src/graph/topo.cc, ncclTopoAddNet: "mbps <= 0" ->
 * 10000; NCCL reads the value as an int, so 4294967295 is -1 there too). */
static int net_speed(struct conv *v, const struct ccs_xml_node *n, const char *nname, long *speed)
{
	const char *s = ccs_xml_attr(n, "speed");
	char *end = NULL;
	long long x = s ? strtoll(s, &end, 0) : 0;
	if (s && (end == s || *end || x < -1 || (x > 100000000 && x != 4294967295LL)))
		return ccs_xml_at(v->d, v->name, n, "'speed' must be the NIC's rate in Mb/s (NCCL's unit: 400000 for "
		                                    "400 Gb/s), or 0 or -1 where unknown; got '%s'", s);
	if (x > 0 && x != 4294967295LL) {
		*speed = (long)x;
		return CCS_OK;
	}
	warn(v->o, "line %d: net %s states no line rate (speed '%s'): taken as 10 Gb/s, as NCCL does; edit the NIC's "
	     "bandwidth in the YAML written if it is faster", n->line, nname ? nname : "?", s ? s : "");
	*speed = 10000;
	return CCS_OK;
}

/* The <net>s of a <nic> (under pci element e, or e NULL: under a CPU). */
static int add_nic(struct conv *v, const struct ccs_xml_node *e, const struct ccs_xml_node *nic, const char *parent)
{
	long cls = 0;
	if (e && ccs_xml_attr(e, "class"))
		cls = strtol(ccs_xml_attr(e, "class"), NULL, 16);
	for (int c = nic->child; c >= 0; c = v->x->n[c].next) {
		const struct ccs_xml_node *n = &v->x->n[c];
		if (strcmp(n->name, "net"))
			continue;
		long speed = 0;
		const char *nname = ccs_xml_attr(n, "name");
		CCS_TRY(net_speed(v, n, nname, &speed));
		if (same_net(v, n))
			continue;
		v->coll += attr_is(n, "coll", "1");
		if (v->nnic >= XML_MAX_NODE_DEVICES)
			return ccs_xml_at(v->d, v->name, n, "more than %d NICs", XML_MAX_NODE_DEVICES);
		v->net_node[v->nnic] = c;
		CCS_TRY(put_nic(v, e, n, speed, cls, parent));
	}
	return CCS_OK;
}

/* One NIC's device line and link: its <net> (NULL: a hint file's bare NIC,
 * named "NIC"), speed in Mb/s, its PCI element e (NULL: under the CPU
 * parent) of class cls; an RDMA NIC counted, and whether it says gdr="0". */
static int put_nic(struct conv *v, const struct ccs_xml_node *e, const struct ccs_xml_node *net, long speed, long cls,
                   const char *parent)
{
	const char *nname = net ? ccs_xml_attr(net, "name") : NULL;
	int line = net ? net->line : e->line;
	char nm[32];
	snprintf(nm, sizeof nm, "nic%d", v->nnic++);
	char wn[64], wb[64];
	/* NCCL's speed is in Mb/s: whole Gb/s as such, else Mb/s (never "0Gb/s") */
	ccs_text_printf(&v->devs, "    - {name: %s, type: nic, model: %s, bandwidth: %ld%s}   # %s\n", nm,
	    nname ? word(nname, wn, sizeof wn) : "NIC", speed % 1000 ? speed : speed / 1000, speed % 1000 ? "Mb/s" : "Gb/s",
	    e && ccs_xml_attr(e, "busid") ? remark(ccs_xml_attr(e, "busid"), wb, sizeof wb) : "no PCI path");
	int rdma = 1;
	if ((cls >> 8) == 0x0207)
		v->ib++;
	else if (nname && !strncmp(nname, "rdmap", 5))
		v->efa++;
	else if (nname && ccs_topo_parts_rdma(nname))
		v->roce++;
	else
		rdma = 0;
	if (rdma && net) {
		v->rdma++;
		v->rdma_nogdr += attr_is(net, "gdr", "0");
	}
	if (e)
		return pcie_link(v, e, nm, parent);
	warn(v->o, "line %d: %s sits under a CPU without a PCI path: linked to %s at PCIe gen 4 x16", line, nm, parent);
	ccs_text_printf(&v->links, "    - {from: %s, to: %s, type: pcie, gen: 4, lanes: 16}\n", nm, parent);
	return CCS_OK;
}

/* A <pci> leaf of a hint file (NCCL_TOPO_FILE, as Azure's HPC images ship
 * ndv4-topo.xml and ndv5-topo.xml): a device without the <gpu> or <nic>
 * that NCCL fills in at run time: 'g' a GPU (class 0x03..), 'n' a NIC
 * (class 0x02..), else 0. */
static int bare_kind(const struct ccs_xml_node *e)
{
	const char *c = ccs_xml_attr(e, "class");
	if (strcmp(e->name, "pci") || e->child >= 0 || !c)
		return 0;
	long k = strtol(c, NULL, 16) >> 16;
	return k == 0x03 ? 'g' : k == 0x02 ? 'n' : 0;
}

/* A bare GPU (pci element id): dev by its busid's place among the bare GPUs
 * (CUDA's PCI order), sm by its PCI device id where known, else by its
 * link's generation. */
static int add_bare_gpu(struct conv *v, int id, const char *parent)
{
	const struct ccs_xml_node *e = &v->x->n[id];
	const char *bus = ccs_xml_attr(e, "busid");
	int gen, dev = 0;
	long lanes;
	CCS_TRY(pci_rate(v, e, &gen, &lanes));
	for (size_t i = 0; i < v->x->nn; i++) {
		const char *b = ccs_xml_attr(&v->x->n[i], "busid");
		dev += bare_kind(&v->x->n[i]) == 'g' && (int)i != id && b && bus && strcmp(b, bus) < 0;
	}
	for (int i = 0; i < v->ngpu; i++)
		if (v->gpu[i].dev == dev)
			return ccs_xml_at(v->d, v->name, e, "a second GPU at busid '%s'", bus ? bus : "");
	if (v->ngpu >= XML_MAX_GPUS)
		return ccs_xml_at(v->d, v->name, e, "more than %d GPUs", XML_MAX_GPUS);
	struct gpu_rec *r = &v->gpu[v->ngpu++];
	memset(r, 0, sizeof *r);
	r->dev = dev;
	/* the part its PCI device id names (a V100's 0x1db5 on a board whose
	 * switches run gen 4 is no A100), else the generation's */
	int by_id = ccs_topo_parts_sm_of_id(ccs_xml_attr(e, "vendor"), ccs_xml_attr(e, "device"));
	r->sm = by_id ? by_id : ccs_topo_parts_sm_of_gen(gen ? gen : 4);
	r->busid = bus;
	r->node = id;
	r->cpu = v->cur_cpu;
	if (!v->nbare_gpu++)
		v->bare_gpu_line = e->line;
	char nm[32], how[48];
	snprintf(nm, sizeof nm, "gpu%d", dev);
	if (by_id)
		snprintf(how, sizeof how, "no <gpu>: sm %d by its PCI device id", r->sm);
	else
		snprintf(how, sizeof how, "no <gpu>: sm %d by PCIe gen %d", r->sm, gen ? gen : 4);
	struct ccs_topo_parts_gpu k;
	nvidia_line(v, e, nm, r->sm, how, &k);
	return pcie_link(v, e, nm, parent);
}

/* A bare NIC: the port rate a x16 slot of its generation carries. */
static int add_bare_nic(struct conv *v, int id, const char *parent)
{
	const struct ccs_xml_node *e = &v->x->n[id];
	int gen;
	long lanes;
	CCS_TRY(pci_rate(v, e, &gen, &lanes));
	if (v->nnic >= XML_MAX_NODE_DEVICES)
		return ccs_xml_at(v->d, v->name, e, "more than %d NICs", XML_MAX_NODE_DEVICES);
	long speed = ccs_topo_parts_nic_Mbps(gen);
	if (!v->nbare_nic++) {
		v->bare_nic_line = e->line;
		v->bare_nic_speed = speed;
	}
	v->net_node[v->nnic] = id;
	return put_nic(v, e, NULL, speed, strtol(ccs_xml_attr(e, "class"), NULL, 16), parent);
}

/* Whether element id has a gpu, nic or pci below it. */
static int has_devices(const struct ccs_xml *x, int id)
{
	for (int c = x->n[id].child; c >= 0; c = x->n[c].next)
		if (!strcmp(x->n[c].name, "gpu") || !strcmp(x->n[c].name, "nic") || bare_kind(&x->n[c]) ||
		    (!strcmp(x->n[c].name, "pci") && has_devices(x, c)))
			return 1;
	return 0;
}

static int walk_pci(struct conv *v, int id, const char *parent, int depth)
{
	const struct ccs_xml_node *e = &v->x->n[id];
	int bare = bare_kind(e);
	if (bare)
		return bare == 'g' ? add_bare_gpu(v, id, parent) : add_bare_nic(v, id, parent);
	for (int c = e->child; c >= 0; c = v->x->n[c].next) {
		const struct ccs_xml_node *k = &v->x->n[c];
		if (!strcmp(k->name, "gpu"))
			return add_gpu(v, e, k, parent);
		if (!strcmp(k->name, "nic"))
			return add_nic(v, e, k, parent);
	}
	if (!has_devices(v->x, id))
		return CCS_OK;      /* NVSwitches, storage, other bridges */
	char nm[32];
	snprintf(nm, sizeof nm, "pcisw%d", v->nsw++);
	char wb[64];
	ccs_text_printf(&v->devs, "    - {name: %s, type: pcie_switch}   # %s\n", nm,
	    ccs_xml_attr(e, "busid") ? remark(ccs_xml_attr(e, "busid"), wb, sizeof wb) : "?");
	CCS_TRY(pcie_link(v, e, nm, parent));
	for (int c = e->child; c >= 0; c = v->x->n[c].next)
		if (!strcmp(v->x->n[c].name, "pci"))
			CCS_TRY(walk_pci(v, c, nm, depth + 1));
	return CCS_OK;
}








/* Whether the dump names an NCCL topology: its root <system>; the YAML's
 * header. */
static int header(struct conv *v)
{
	const struct ccs_xml_node *root = &v->x->n[0];
	if (strcmp(root->name, "system"))
		return ccs_xml_at(v->d, v->name, root, "not an NCCL topology dump: the root is <%s>, expected <system>%s", root->name,
		          !strcmp(root->name, "graphs") ? " (this is NCCL's graph dump, NCCL_GRAPH_DUMP_FILE; the topology "
		                                          "is NCCL_TOPO_DUMP_FILE's)"
		          : !strcmp(root->name, "topology") ? " (this is hwloc's, lstopo --of xml; NCCL writes its own with "
		                                              "NCCL_TOPO_DUMP_FILE=FILE)" : "");
	const char *base = strrchr(v->name, '/');
	base = base ? base + 1 : v->name;
	char nm[64];
	size_t k = 0;
	for (const char *p = base; *p && *p != '.' && k + 1 < sizeof nm; p++)
		nm[k++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '-';
	nm[k] = 0;
	char wbase[256];
	ccs_text_printf(&v->o->y, "# imported from %s (an NCCL topology dump) by ccsim topo import\n", remark(base, wbase, sizeof wbase));
	ccs_text_printf(&v->o->y, "name: %s\n", k ? nm : "imported");
	return CCS_OK;
}

/* The id of <cpu> e (the c-th element of the root): its numaid, or for -1
 * (a VM that hides NUMA) the first id no <cpu> of the dump takes. */
static int cpu_id(struct conv *v, int c, long *id)
{
	const struct ccs_xml *x = v->x;
	const struct ccs_xml_node *e = &x->n[c];
	const char *na = ccs_xml_attr(e, "numaid");
	if (!na || strcmp(na, "-1"))
		return num(v, e, "numaid", v->ncpu, 4095, id);
	for (*id = 0;; ++*id) {
		int taken = 0;
		for (int j = 0; j < v->ncpu; j++)
			taken |= v->cpu_id[j] == *id;
		for (int p = c; p >= 0 && !taken; p = x->n[p].next)
			taken |= !strcmp(x->n[p].name, "cpu") && ccs_xml_attr(&x->n[p], "numaid") &&
			         strtol(ccs_xml_attr(&x->n[p], "numaid"), NULL, 10) == *id;
		if (!taken)
			break;
	}
	warn(v->o, "line %d: <cpu numaid=\"-1\">: NUMA not exposed (a VM): taken as cpu%ld", e->line, *id);
	return CCS_OK;
}

/* Whether <cpu> e belongs to another host than the first <cpu>'s (NCCL's
 * fusion of a multi-node NVLink domain, MNNVL, dumps every host's CPUs with
 * their host_hash); v->hosts counts the hosts. */
static int other_host(struct conv *v, const struct ccs_xml_node *e)
{
	const char *h = ccs_xml_attr(e, "host_hash");
	if (!v->hosts) {
		v->host[v->hosts++] = h;
		return 0;
	}
	if (!h || !v->host[0] || !strcmp(h, v->host[0]))
		return 0;
	int seen = 0;
	for (int i = 1; i < v->hosts; i++)
		seen |= !strcmp(v->host[i], h);
	if (!seen && v->hosts < (int)(sizeof v->host / sizeof v->host[0]))
		v->host[v->hosts++] = h;
	return 1;
}

/* The first host's <cpu>s and everything below them. */
static int walk_cpus(struct conv *v)
{
	const struct ccs_xml *x = v->x;
	for (int c = x->n[0].child; c >= 0; c = x->n[c].next) {
		const struct ccs_xml_node *e = &x->n[c];
		if (strcmp(e->name, "cpu") || other_host(v, e))
			continue;
		long id;
		CCS_TRY(cpu_id(v, c, &id));
		if (v->ncpu == 16)
			return ccs_xml_at(v->d, v->name, e, "more than 16 CPUs");
		for (int j = 0; j < v->ncpu; j++)
			if (v->cpu_id[j] == id)
				return ccs_xml_at(v->d, v->name, e, "a second <cpu> with numaid %ld (the first at line %d)", id,
				                  v->cpu[j]->line);
		v->cpu[v->ncpu] = e;
		v->cpu_id[v->ncpu++] = (int)id;
		v->cur_cpu = (int)id;
		ccs_text_printf(&v->devs, "    - {name: cpu%ld, type: cpu}\n", id);
		char cn[32];
		snprintf(cn, sizeof cn, "cpu%ld", id);
		for (int p = e->child; p >= 0; p = x->n[p].next) {
			if (!strcmp(x->n[p].name, "pci"))
				CCS_TRY(walk_pci(v, p, cn, 0));
			else if (!strcmp(x->n[p].name, "nic"))
				CCS_TRY(add_nic(v, NULL, &x->n[p], cn));
		}
	}
	if (!v->ncpu)
		return ccs_xml_at(v->d, v->name, &x->n[0], "no <cpu> in the dump");
	if (!v->ngpu)
		return ccs_xml_at(v->d, v->name, &x->n[0], "no <gpu> in the dump");
	return CCS_OK;
}




static int convert(struct conv *v)
{
	CCS_TRY(header(v));
	CCS_TRY(walk_cpus(v));
	return ccs_topo_xml_emit(v);
}

int ccs_topo_xml_yaml(const char *name, const char *text, size_t len, char **yaml, char **warnings, struct ccs_diag *d)
{
	*yaml = *warnings = NULL;
	struct ccs_xml x;
	int rc = ccs_xml_parse(name, text, len, &x, d);
	if (rc)
		return rc;
	struct out o;
	memset(&o, 0, sizeof o);
	struct conv *v = rc ? NULL : ccs_calloc(1, sizeof *v);
	if (!rc && !v)
		rc = CCS_ENOMEM;
	if (!rc) {
		v->name = name;
		v->x = &x;
		v->o = &o;
		v->d = d;
		rc = convert(v);
	}
	if (v) {
		ccs_free(v->devs.s);
		ccs_free(v->links.s);
	}
	ccs_free(v);
	ccs_xml_release(&x);
	if (!rc && (o.y.oom || o.w.oom))
		rc = CCS_ENOMEM;
	if (rc) {
		ccs_free(o.y.s);
		ccs_free(o.w.s);
		if (rc == CCS_ENOMEM && !d->set)
			ccs_diag_msg(d, "%s: out of memory", name);
		return rc;
	}
	*yaml = o.y.s;
	*warnings = o.w.s;
	return CCS_OK;
}
