/* model/topo_xml.c: an NCCL topology dump as topology YAML (topo_xml.h). */
#include "topo_xml.h"
#include "topo_parts.h"
#include "xml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XML_MAX_GPUS 1024
#define XML_MAX_NODE_DEVICES 4096   /* as the topology loader's node (topo_yaml.c) */

/* ---- output ---- */

struct out {
	struct ccs_text y;          /* the YAML */
	struct ccs_text w;          /* the warnings, "; " between them */
};

/* A dump's text as a plain YAML word in a flow mapping: letters, digits and
 * "_.+-" kept, anything else '_' (a NIC named "mlx5[3" or "mlx5_:" must not
 * open a list or end a key). */
static const char *word(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = isalnum((unsigned char)*s) || strchr("_.+-", *s) ? *s : '_';
	if (!k)
		buf[k++] = '_';   /* an empty name is still a word */
	buf[k] = 0;
	return buf;
}

/* A dump's text in a comment: printable ASCII as it is, anything else '?'
 * (YAML refuses control characters and bytes that are not UTF-8). */
static const char *remark(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = (unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e ? '?' : *s;
	buf[k] = 0;
	return buf;
}

/* A warning: in the list and as a comment in the YAML. */
static void warn(struct out *o, const char *fmt, ...) CCS_PRINTF(2, 3);
static void warn(struct out *o, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = ' ';   /* a comment stays one line, without control characters */
	ccs_text_printf(&o->y, "# warning: %s\n", buf);
	ccs_text_printf(&o->w, "%s%s", o->w.n ? "; " : "", buf);
}

/* ---- the conversion ---- */

struct gpu_rec {
	int dev, sm, sw_links, node;
	int cpu;                    /* the id of its <cpu> */
	double c2c_GBps;            /* NVLink-C2C to that CPU per direction (<c2c bw count>), 0 none */
	const char *busid;
	const char *xgmi_lane;      /* AMD GPUs (RCCL's gcn): an xGMI link's rate; NULL for NVIDIA */
	int bare;                   /* a hint file's GPU, without its <gpu> (bare_kind) */
};

struct conv {
	const char *name;
	const struct ccs_xml *x;
	struct out *o;
	struct ccs_text devs;        /* the node's devices, written once the form is known */
	struct ccs_diag *d;
	struct gpu_rec gpu[XML_MAX_GPUS];
	int ngpu, nnic, nsw, ib, roce, efa, warned_sm, warned_gcn, warned_h200;
	int width0, width0_line;     /* PCI links stating link_width 0, the first's line */
	const struct ccs_xml_node *cpu[16];   /* the first host's <cpu>s */
	int cpu_id[16], ncpu, cur_cpu;        /* their ids; the one being walked */
	const char *host[64];                 /* the hosts' host_hash, the first's first */
	int hosts;
	int c2c;                              /* GPUs with NVLink-C2C to their CPU (Grace) */
	int coll;                             /* <net coll="1">s: CollNet (SHARP) */
	int nbare_gpu, bare_gpu_line, nbare_nic, bare_nic_line;   /* hint files' devices (bare_kind) */
	long bare_nic_speed;
	int vport, vport_line;       /* bridges at 2.5 GT/s x1 above faster devices (emulated ports) */
	int nodup;                   /* <net>s listed again under another CPU, left out */
	int net_node[XML_MAX_NODE_DEVICES];   /* the <net> elements kept, one per NIC */
	struct ccs_text links;       /* the node's links, written after its devices */
	const char *sw_target[64];   /* distinct NVSwitch busids */
	int nswt;
};

/* Attribute k of e as a whole number in [0, hi] into *out (dflt when
 * absent; absent with dflt < 0 is an error); CCS_EINPUT after a message. */
static int num(struct conv *v, const struct ccs_xml_node *e, const char *k, long dflt, long hi, long *out)
{
	const char *s = ccs_xml_attr(e, k);
	if (!s) {
		if (dflt < 0)
			return ccs_xml_at(v->d, v->name, e, "needs '%s'", k);
		*out = dflt;
		return CCS_OK;
	}
	char *end;
	long x = strtol(s, &end, 0);
	if (end == s || *end || x < 0 || x > hi)
		return ccs_xml_at(v->d, v->name, e, "'%s' must be a whole number from 0 to %ld, got '%s'", k, hi, s);
	*out = x;
	return CCS_OK;
}

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
 * 2.5 GT/s x1 above faster devices is a hypervisor's virtual root port (the
 * rate QEMU's ports report), taken at the rate of the fastest device below
 * it (QEMU's emulated TI XIO3130 ports, vendor 0x104c device 0x8232, state
 * that rate: the IBM Cloud H100 VSI's topology file, and the H200 VM of
 * NVIDIA/nccl-tests issue 256, where NCCL prints them as PCI[0.2]); a
 * speed not known here, gen 4 x16. */
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
	r->bare = 0;
	r->cpu = v->cur_cpu;
	CCS_TRY(c2c_of(v, g, r));
	char nm[32];
	snprintf(nm, sizeof nm, "gpu%ld", dev);
	if (ccs_xml_attr(g, "gcn")) {
		amd_gpu(v, g, r, nm);
		return pcie_link(v, e, nm, parent);
	}
	struct ccs_topo_parts_gpu k;
	ccs_topo_parts_nvidia((int)sm, ccs_xml_attr(e, "vendor"), ccs_xml_attr(e, "device"), &k);
	char bw[64];
	ccs_text_printf(&v->devs, "    - {name: %s, type: gpu, model: %s, arch: %s%s%s}   # %s, sm %ld\n", nm, k.model, k.arch,
	    k.mem ? ", memory_bandwidth: " : "", k.mem ? k.mem : "", r->busid ? remark(r->busid, bw, sizeof bw) : "?", sm);
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

static int put_nic(struct conv *v, const struct ccs_xml_node *e, const char *nname, long speed, long cls, const char *parent,
                   int line);

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
		long speed;
		CCS_TRY(num(v, n, "speed", 0, 100000000, &speed));
		const char *nname = ccs_xml_attr(n, "name");
		if (same_net(v, n))
			continue;
		v->coll += ccs_xml_attr(n, "coll") && !strcmp(ccs_xml_attr(n, "coll"), "1");
		if (v->nnic >= XML_MAX_NODE_DEVICES)
			return ccs_xml_at(v->d, v->name, n, "more than %d NICs", XML_MAX_NODE_DEVICES);
		if (!speed) {
			warn(v->o, "line %d: net %s has no speed: taken as 100 Gb/s", n->line, nname ? nname : "?");
			speed = 100000;
		}
		v->net_node[v->nnic] = c;
		CCS_TRY(put_nic(v, e, nname, speed, cls, parent, n->line));
	}
	return CCS_OK;
}

/* One NIC's device line and link: named nname (NULL: "NIC"), speed in Mb/s,
 * its PCI element e (NULL: under the CPU parent) of class cls. */
static int put_nic(struct conv *v, const struct ccs_xml_node *e, const char *nname, long speed, long cls, const char *parent,
                   int line)
{
	char nm[32];
	snprintf(nm, sizeof nm, "nic%d", v->nnic++);
	char wn[64], wb[64];
	/* NCCL's speed is in Mb/s: whole Gb/s as such, else Mb/s (never "0Gb/s") */
	ccs_text_printf(&v->devs, "    - {name: %s, type: nic, model: %s, bandwidth: %ld%s}   # %s\n", nm,
	    nname ? word(nname, wn, sizeof wn) : "NIC", speed % 1000 ? speed : speed / 1000, speed % 1000 ? "Mb/s" : "Gb/s",
	    e && ccs_xml_attr(e, "busid") ? remark(ccs_xml_attr(e, "busid"), wb, sizeof wb) : "no PCI path");
	if ((cls >> 8) == 0x0207)
		v->ib++;
	else if (nname && !strncmp(nname, "rdmap", 5))
		v->efa++;
	else if (nname && ccs_topo_parts_rdma(nname))
		v->roce++;
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
 * (CUDA's PCI order), sm by its link's generation. */
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
	r->sm = ccs_topo_parts_sm_of_gen(gen ? gen : 4);
	r->busid = bus;
	r->node = id;
	r->bare = 1;
	r->cpu = v->cur_cpu;
	if (!v->nbare_gpu++)
		v->bare_gpu_line = e->line;
	struct ccs_topo_parts_gpu k;
	ccs_topo_parts_nvidia(r->sm, ccs_xml_attr(e, "vendor"), ccs_xml_attr(e, "device"), &k);
	char nm[32], bw[64];
	snprintf(nm, sizeof nm, "gpu%d", dev);
	ccs_text_printf(&v->devs, "    - {name: %s, type: gpu, model: %s, arch: %s%s%s}   # %s, no <gpu>: sm %d by PCIe gen %d\n",
	    nm, k.model, k.arch, k.mem ? ", memory_bandwidth: " : "", k.mem ? k.mem : "", bus ? remark(bus, bw, sizeof bw) : "?", r->sm,
	    gen ? gen : 4);
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
	return put_nic(v, e, NULL, speed, strtol(ccs_xml_attr(e, "class"), NULL, 16), parent, e->line);
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

/* A hint file's GPUs: no <gpu>, so neither sm nor NVLink is written (NCCL
 * reads both from the driver at run time).  Eight of them of sm 80 or later,
 * and no others, are taken as an HGX baseboard's (A100: 12 NVLinks to 6
 * NVSwitches, H100 and B200: 18 to their NVSwitches: NVIDIA's HGX
 * datasheets), the one 8-GPU board those PCIe generations ship in with a
 * NIC per GPU; anything else, no NVLink. */
static void bare_gpus(struct conv *v)
{
	int sm = v->gpu[0].sm, hgx = v->ngpu == 8 && v->nbare_gpu == 8 && sm >= 80;
	for (int i = 0; i < v->ngpu; i++)
		hgx &= v->gpu[i].sm == sm;
	warn(v->o, "%d GPU%s (the first at line %d) %s no <gpu> (a hint file that NCCL completes at run time): sm taken "
	     "from the PCIe generation (gen 3: 70, 4: 80, 5: 90, 6: 100), sm %d for the first", v->nbare_gpu,
	     v->nbare_gpu == 1 ? "" : "s", v->bare_gpu_line, v->nbare_gpu == 1 ? "has" : "have", sm);
	if (hgx) {
		for (int i = 0; i < v->ngpu; i++)
			v->gpu[i].sw_links = sm >= 90 ? 18 : 12;
		warn(v->o, "no NVLink in the file: the 8 GPUs taken as an HGX baseboard's, %d NVLinks each to NVSwitches "
		     "(write the YAML with -o and edit 'scaleup' for another machine)", sm >= 90 ? 18 : 12);
	} else
		warn(v->o, "no NVLink in the file: none assumed (GPUs talk over PCIe)");
}

/* Two sockets joined as the shipped presets join them (topo_xml.h). */
static void socket_link(struct conv *v, const struct ccs_xml_node *cpu, int a, int b)
{
	const char *vendor = ccs_xml_attr(cpu, "vendor"), *arch = ccs_xml_attr(cpu, "arch");
	long model = ccs_xml_attr(cpu, "modelid") ? strtol(ccs_xml_attr(cpu, "modelid"), NULL, 0) : 0;
	if (arch && !strcmp(arch, "arm64") && v->c2c)
		/* two Graces of a Grace-Blackwell tray, NVLink-C2C between them at
		 * the Grace superchip's 900 GB/s both ways (as gb200-nvl72.yaml) */
		ccs_text_printf(&v->links, "    - {from: cpu%d, to: cpu%d, type: smp, bandwidth: 450GB/s}\n", a, b);
	else if (vendor && !strcmp(vendor, "AuthenticAMD"))
		ccs_text_printf(&v->links, "    - {from: cpu%d, to: cpu%d, type: xgmi, lanes: 4, lane_bandwidth: 36GB/s}\n", a, b);
	else if (vendor && !strcmp(vendor, "GenuineIntel"))
		ccs_text_printf(&v->links, "    - {from: cpu%d, to: cpu%d, type: upi, lanes: %d, lane_bandwidth: %s}\n", a, b,
		         model == 143 || model == 207 ? 4 : 3, model == 207 ? "40GB/s" : model == 143 ? "32GB/s" : "20.8GB/s");
	else {
		warn(v->o, "CPU vendor '%s' not known here: sockets joined at 4 x 32 GB/s", vendor ? vendor : "");
		ccs_text_printf(&v->links, "    - {from: cpu%d, to: cpu%d, type: smp, lanes: 4, lane_bandwidth: 32GB/s}\n", a, b);
	}
}

/* NVLink: per GPU its links to NVSwitches; links to other GPUs as node
 * links. */
static int nvlinks(struct conv *v)
{
	for (int i = 0; i < v->ngpu; i++) {
		const struct ccs_xml_node *g = &v->x->n[v->gpu[i].node];
		if (v->gpu[i].c2c_GBps > 0)
			ccs_text_printf(&v->links, "    - {from: gpu%d, to: cpu%d, type: c2c, bandwidth: %.6gGB/s}\n", v->gpu[i].dev,
			                v->gpu[i].cpu, v->gpu[i].c2c_GBps);
		for (int c = g->child; c >= 0; c = v->x->n[c].next) {
			const struct ccs_xml_node *l = &v->x->n[c];
			int xgmi = !strcmp(l->name, "xgmi");
			if (strcmp(l->name, "nvlink") && !xgmi)
				continue;
			long count, tclass = 0;
			CCS_TRY(num(v, l, "count", 1, 64, &count));
			if (!count)
				return ccs_xml_at(v->d, v->name, l, "an %s with count 0", xgmi ? "xGMI link" : "NVLink");
			if (ccs_xml_attr(l, "tclass"))
				tclass = strtol(ccs_xml_attr(l, "tclass"), NULL, 16);
			const char *tgt = ccs_xml_attr(l, "target");
			if (!xgmi && (tclass >> 8) == 0x0680) {
				v->gpu[i].sw_links += (int)count;
				int seen = 0;
				for (int s = 0; s < v->nswt; s++)
					seen |= tgt && !strcmp(v->sw_target[s], tgt);
				if (!seen && tgt && v->nswt < 64)
					v->sw_target[v->nswt++] = tgt;
				continue;
			}
			int peer = -1;
			for (int j = 0; j < v->ngpu && tgt; j++)
				if (v->gpu[j].busid && !strcmp(v->gpu[j].busid, tgt))
					peer = j;
			if (peer < 0) {
				char tb[64];
				warn(v->o, "line %d: gpu%d's %s to %s (class 0x%lx) leads to no GPU%s: left out", l->line, v->gpu[i].dev,
				     xgmi ? "xGMI link" : "NVLink", tgt ? remark(tgt, tb, sizeof tb) : "?", tclass, xgmi ? "" : " or NVSwitch");
				continue;
			}
			if (xgmi && !v->gpu[i].xgmi_lane)
				return ccs_xml_at(v->d, v->name, l, "an xGMI link on an NVIDIA GPU (no 'gcn')");
			if (peer > i)   /* each pair once */
				ccs_text_printf(&v->links, "    - {from: gpu%d, to: gpu%d, type: %s, lanes: %ld, lane_bandwidth: %s}\n",
				         v->gpu[i].dev, v->gpu[peer].dev, xgmi ? "xgmi" : "nvlink", count,
				         xgmi ? v->gpu[i].xgmi_lane : ccs_topo_parts_nvl_lane(v->gpu[i].sm));
		}
	}
	return CCS_OK;
}

/* NVLink to NVSwitches in the explicit form: the switch chips as devices
 * (as scaleup: would make them), each GPU's links spread evenly over them. */
/* The NVSwitch chips: distinct targets when NCCL lists them apart, else
 * the HGX boards' (A100: 6 NVSwitch2, H100: 4 NVSwitch3, B200: 2
 * NVSwitch4); never more than the fewest NVLinks a GPU has to them, so
 * that each switch has a link from every GPU. */
static int sw_count(const struct conv *v)
{
	int sm = v->gpu[0].sm, fewest = 0;
	for (int i = 0; i < v->ngpu; i++)
		if (v->gpu[i].sw_links && (!fewest || v->gpu[i].sw_links < fewest))
			fewest = v->gpu[i].sw_links;
	int n = v->nswt > 1 ? v->nswt : sm >= 100 ? 2 : sm >= 90 ? 4 : 6;
	return fewest && fewest < n ? fewest : n;
}

static void nvswitch_devices(struct conv *v)
{
	int any = 0;
	for (int i = 0; i < v->ngpu && !any; i++)
		any = v->gpu[i].sw_links > 0;
	/* any GPU's links make the switches (the first GPU may have none) */
	if (!any)
		return;
	int sm = v->gpu[0].sm;
	ccs_text_printf(&v->o->y, "    - {name: \"nvsw[0-%d]\", type: nvswitch%s}\n", sw_count(v) - 1,
	    sm >= 90 ? ", multicast: true, reduction: true" : "");
}

static void nvswitch_links(struct conv *v)
{
	int nsw = sw_count(v);
	for (int i = 0; i < v->ngpu; i++) {
		int l = v->gpu[i].sw_links;
		for (int k = 0; k < nsw && l > 0; k++) {
			int share = l / nsw + (k < l % nsw);
			if (share > 0)
				ccs_text_printf(&v->o->y, "    - {from: gpu%d, to: nvsw%d, type: nvlink, lanes: %d, lane_bandwidth: %s}\n", v->gpu[i].dev, k,
				    share, ccs_topo_parts_nvl_lane(v->gpu[i].sm));
		}
	}
}

/* The nodes one NVLink domain spans: the dump's hosts (MNNVL), or for a
 * lone Grace-Blackwell tray (GPUs with C2C and NVSwitch links) NVL72's 18
 * trays, its 18 NVSwitch chips one NVLink from every GPU each (NVIDIA's
 * GB200 NVL72 specification) into *sw; 1: the node alone. */
static int domain_nodes(struct conv *v, int sm, int lanes, int *sw)
{
	int grace = v->c2c && sm >= 100;
	if (grace && lanes >= 18)
		*sw = 18;
	if (v->hosts > 1)
		return v->hosts;
	if (!grace)
		return 1;
	warn(v->o, "GPUs with NVLink-C2C and NVSwitch links: a Grace-Blackwell tray, its NVLink domain taken as "
	           "NVL72's 18 trays (--set scaleup.nodes_per_domain=9 for NVL36)");
	return 18;
}

/* The scale-up section (NVSwitch systems) and the scale-out one. */
static void sections(struct conv *v)
{
	int lanes = 0, sm = v->gpu[0].sm, uneven = 0;
	for (int i = 0; i < v->ngpu; i++) {
		if (v->gpu[i].sw_links && (!lanes || v->gpu[i].sw_links < lanes)) {
			uneven |= lanes && v->gpu[i].sw_links != lanes;
			lanes = v->gpu[i].sw_links;
		}
		uneven |= !v->gpu[i].sw_links && lanes;
	}
	if (lanes) {
		if (uneven)
			warn(v->o, "the GPUs have different NVLink counts to their NVSwitches: every GPU taken with %d", lanes);
		int sw = sw_count(v);
		if (v->nswt > sw)
			warn(v->o, "%d NVSwitch targets but %d NVLinks per GPU: taken as %d switches", v->nswt, lanes, sw);
		int per = domain_nodes(v, sm, lanes, &sw);
		ccs_text_printf(&v->o->y, "scaleup:\n  type: nvlink\n");
		if (per > 1)
			ccs_text_printf(&v->o->y, "  nodes_per_domain: %d\n", per);
		ccs_text_printf(&v->o->y, "  switches: %d\n  lanes: %d\n  lane_bandwidth: %s\n", sw, lanes, ccs_topo_parts_nvl_lane(sm));
		if (sm >= 90)
			ccs_text_printf(&v->o->y, "  multicast: true\n  reduction: true\n");
		/* the NVSwitch generation's ports, or more where the GPUs' links over
		 * the switches need them (an odd dump's extra switch targets) */
		long radix = sm >= 100 ? 72 : sm >= 90 ? 64 : 36, need = ((long)per * v->ngpu * lanes + sw - 1) / sw;
		ccs_text_printf(&v->o->y, "  radix: %ld\n", need > radix ? need : radix);
	}
	const char *type = v->ib ? "ib" : v->roce ? "roce" : "ethernet";
	/* radix 64 (a Quantum-2 class switch), larger where one node's NICs
	 * alone need more leaves than a 2-tier fabric of 64 holds */
	int radix = 64;
	while (radix < v->nnic)
		radix *= 2;
	/* a <net coll="1">: NCCL's CollNet plugin (SHARP) found the NIC's
	 * fabric able to reduce */
	warn(v->o, "the fabric beyond the node is not in a dump: taken as a non-blocking 2-tier rail-optimized %s fat "
	           "tree of radix-%d switches %s (--set scaleout.sharp=%s, scaleout.radix=N to change it)",
	     type, radix, v->coll ? "with SHARP (the NICs say coll=\"1\": NCCL's CollNet plugin found it)" : "without SHARP",
	     v->coll ? "false" : "true");
	ccs_text_printf(&v->o->y, "scaleout:\n  topology: rail-optimized\n  tiers: 2\n  type: %s\n  radix: %d\n  switch_latency: 300ns\n%s", type,
	    radix, v->coll ? "  sharp: true\n" : "");
	if (v->efa && !v->ib && !v->roce)
		ccs_text_printf(&v->o->y, "model:\n  transport: efa\n");
}

/* Whether the dump names an NCCL topology: its root <system>; the YAML's
 * header. */
static int header(struct conv *v)
{
	const struct ccs_xml_node *root = &v->x->n[0];
	if (strcmp(root->name, "system"))
		return ccs_xml_at(v->d, v->name, root, "not an NCCL topology dump: the root is <%s>, expected <system>%s", root->name,
		          !strcmp(root->name, "graphs") ? " (this is NCCL's graph dump, NCCL_GRAPH_DUMP_FILE; the topology "
		                                          "is NCCL_TOPO_DUMP_FILE's)" : "");
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

/* The warnings that sum up what the walk assumed. */
static void summary(struct conv *v)
{
	if (v->vport)
		warn(v->o, "%d PCI bridge%s (the first at line %d) state%s 2.5 GT/s x1 above faster devices: a hypervisor's "
		     "emulated port%s (QEMU's), taken at the rate of the fastest device below", v->vport, v->vport == 1 ? "" : "s",
		     v->vport_line, v->vport == 1 ? "s" : "", v->vport == 1 ? "" : "s");
	if (v->width0)
		warn(v->o, "%d PCI link%s state%s link_width 0 (the first at line %d): taken as x16 at %s link_speed, as "
		     "NCCL does", v->width0, v->width0 == 1 ? "" : "s", v->width0 == 1 ? "s" : "", v->width0_line,
		     v->width0 == 1 ? "its" : "their");
	if (v->nbare_gpu)
		bare_gpus(v);
	if (v->nbare_nic)
		warn(v->o, "%d NIC%s (the first at line %d) %s no <nic> (a hint file that NCCL completes at run time): named "
		     "by busid, at the rate a x16 slot of %s PCIe generation carries (%ld Gb/s for the first)", v->nbare_nic,
		     v->nbare_nic == 1 ? "" : "s", v->bare_nic_line, v->nbare_nic == 1 ? "has" : "have",
		     v->nbare_nic == 1 ? "its" : "their", v->bare_nic_speed / 1000);
	if (v->hosts > 1)
		warn(v->o, "the dump spans %d hosts of one NVLink domain (NCCL's MNNVL fusion, host_hash %s and others): "
		     "the first host's CPUs and devices are the node, %d nodes in one NVLink domain", v->hosts,
		     v->host[0] ? v->host[0] : "?", v->hosts);
	if (!v->nsw && !v->c2c)
		warn(v->o, "no PCIe switches: every GPU and NIC hangs off a CPU (a VM that hides the switches, or a "
		           "host without them): GPUDirect traffic crosses the root complex");
}

/* The node (template form where it has NICs, else the explicit form) and
 * the sections around it. */
static int write_yaml(struct conv *v)
{
	if (v->devs.oom || v->links.oom)
		return CCS_ENOMEM;
	const char *devs = v->devs.s ? v->devs.s : "", *links = v->links.s ? v->links.s : "";
	long ndev = (long)v->ngpu + v->nnic + v->nsw + v->ncpu + v->nswt;
	if (v->nnic && ndev > XML_MAX_NODE_DEVICES)
		return ccs_xml_at(v->d, v->name, &v->x->n[0], "%ld devices in one machine; a node holds at most %d", ndev,
		                  XML_MAX_NODE_DEVICES);
	if (v->nnic) {
		/* the template form: the dump's hosts, and --set nodes=N for more */
		ccs_text_printf(&v->o->y, "nodes: %d\nnode:\n  devices:\n%s  links:\n%s", v->hosts, devs, links);
		sections(v);
	} else {
		/* no NICs: nothing joins nodes; the explicit form, the NVSwitches
		 * (if any) as devices */
		warn(v->o, "no NICs in the dump: one node, written in the explicit form");
		ccs_text_printf(&v->o->y, "devices:\n%s", devs);
		nvswitch_devices(v);
		ccs_text_printf(&v->o->y, "links:\n%s", links);
		nvswitch_links(v);
	}
	return v->o->y.oom || v->o->w.oom ? CCS_ENOMEM : CCS_OK;
}

static int convert(struct conv *v)
{
	CCS_TRY(header(v));
	CCS_TRY(walk_cpus(v));
	summary(v);
	for (int i = 0; i + 1 < v->ncpu; i++)
		socket_link(v, v->cpu[0], v->cpu_id[i], v->cpu_id[i + 1]);
	CCS_TRY(nvlinks(v));
	return write_yaml(v);
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
