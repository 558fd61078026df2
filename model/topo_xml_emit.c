/* model/topo_xml_emit.c: a walked NCCL topology dump written as topology
** YAML (topo_xml_int.h). */
#include "topo_parts.h"
#include "topo_xml_int.h"

/* GPUs without NVLink in the file.  A dump NCCL wrote (its PCI elements
 * name their device ids) lists every NVLink NCCL found: none there is none
 * at all (a PCIe box, or NVLink down).  A hand-written NCCL_TOPO_FILE (no
 * device ids, or bare GPUs) leaves NVLink out because NCCL reads it from the
 * driver at run time: eight GPUs of sm 80 or later, all alike, are taken as
 * an HGX baseboard's (A100: 12 NVLinks to 6 NVSwitches, H100 and B200: 18 to
 * their NVSwitches: NVIDIA's HGX datasheets), the one 8-GPU board those
 * generations ship in with a NIC per GPU; anything else, no NVLink. */
static void nvlink_guess(struct conv *v)
{
	int sm = v->gpu[0].sm, hgx = v->ngpu == 8 && sm >= 80;
	for (int i = 0; i < v->ngpu; i++)
		hgx &= v->gpu[i].sm == sm;
	if (v->nbare_gpu)
		warn(v->o, "%d GPU%s (the first at line %d) %s no <gpu> (a hint file that NCCL completes at run time): sm taken "
		     "from the PCIe generation (gen 3: 70, 4: 80, 5: 90, 6: 100), sm %d for the first", v->nbare_gpu,
		     v->nbare_gpu == 1 ? "" : "s", v->bare_gpu_line, v->nbare_gpu == 1 ? "has" : "have", sm);
	if (v->nvl_any || v->ngpu < 2)
		return;
	if (v->gpu_ids && !v->nbare_gpu)
		warn(v->o, "no NVLink in the dump: NCCL found none (a PCIe box, or NVLink down): GPUs talk over PCIe");
	else if (hgx) {
		for (int i = 0; i < v->ngpu; i++)
			v->gpu[i].sw_links = sm >= 90 ? 18 : 12;
		warn(v->o, "no NVLink in the file (written by hand: NCCL reads NVLink from the driver at run time): the 8 GPUs "
		     "taken as an HGX baseboard's, %d NVLinks each to NVSwitches (write the YAML with -o and edit 'scaleup' "
		     "for another machine)", sm >= 90 ? 18 : 12);
	} else
		warn(v->o, "no NVLink in the file (written by hand: NCCL reads NVLink from the driver at run time): none "
		           "assumed (GPUs talk over PCIe)");
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
	nvlink_guess(v);
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
 * links.  A dump may list one peer's links in several elements (an RCCL
 * dump gives each xGMI link its own): their counts add up to one link.  A
 * pair's link is what either side states, the larger where they differ
 * (a dump whose element on one side points at the GPU's own bus id, or is
 * missing, still has the other side's). */
static int nvlinks_count(struct conv *v, int *cnt);
static void nvlinks_emit(struct conv *v, const int *cnt);

static int nvlinks(struct conv *v)
{
	size_t n = (size_t)(v->ngpu > 0 ? v->ngpu : 1);
	int *cnt = ccs_calloc(2 * n * n, sizeof *cnt);   /* [i][j][xgmi]: i's lanes to j */
	if (!cnt)
		return CCS_ENOMEM;
	int rc = nvlinks_count(v, cnt);
	if (!rc)
		nvlinks_emit(v, cnt);
	ccs_free(cnt);
	return rc;
}

static int nvlinks_count(struct conv *v, int *cnt)
{
	size_t n = (size_t)v->ngpu;
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
			if (peer == i) {
				warn(v->o, "line %d: gpu%d's %s points at its own bus id (the driver did not say its peer): left "
				     "out; the peer's side, where it states the link, still gives it", l->line, v->gpu[i].dev,
				     xgmi ? "xGMI link" : "NVLink");
				continue;
			}
			if (peer < 0) {
				char tb[64];
				warn(v->o, "line %d: gpu%d's %s to %s (class 0x%lx) leads to no GPU%s: left out", l->line, v->gpu[i].dev,
				     xgmi ? "xGMI link" : "NVLink", tgt ? remark(tgt, tb, sizeof tb) : "?", tclass, xgmi ? "" : " or NVSwitch");
				continue;
			}
			if (xgmi && !v->gpu[i].xgmi_lane)
				return ccs_xml_at(v->d, v->name, l, "an xGMI link on an NVIDIA GPU (no 'gcn')");
			cnt[(i * n + (size_t)peer) * 2 + (size_t)xgmi] += (int)count;
		}
	}
	return CCS_OK;
}

static void nvlinks_emit(struct conv *v, const int *cnt)
{
	size_t n = (size_t)v->ngpu;
	int odd = 0;
	for (int i = 0; i < v->ngpu; i++)
		for (int j = i + 1; j < v->ngpu; j++)
			for (int xgmi = 0; xgmi < 2; xgmi++) {
				int a = cnt[(i * n + (size_t)j) * 2 + (size_t)xgmi], b = cnt[(j * n + (size_t)i) * 2 + (size_t)xgmi];
				if (!a && !b)
					continue;
				if (a != b && !odd++)
					warn(v->o, "gpu%d states %d %s lane(s) to gpu%d, gpu%d states %d back: taken as %d (the larger)",
					     v->gpu[i].dev, a, xgmi ? "xGMI" : "NVLink", v->gpu[j].dev, v->gpu[j].dev, b, a > b ? a : b);
				ccs_text_printf(&v->links, "    - {from: gpu%d, to: gpu%d, type: %s, lanes: %d, lane_bandwidth: %s}\n",
				                v->gpu[i].dev, v->gpu[j].dev, xgmi ? "xgmi" : "nvlink", a > b ? a : b,
				                xgmi ? v->gpu[i].xgmi_lane : ccs_topo_parts_nvl_lane(v->gpu[i].sm));
			}
}

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

/* NVLink to NVSwitches in the explicit form: the switch chips as devices
 * (as scaleup: would make them), each GPU's links spread evenly over them. */

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

/* GPUDirect RDMA as the dump states it: NCCL's ncclTopoCheckGdr uses it
 * only where both the GPU and the NIC say gdr="1" (a NIC says 0 when NCCL
 * cannot register GPU memory with it: no nvidia-peermem nor DMA-BUF; a GPU
 * when it has no GPUDirect RDMA, such as a GeForce).  Every RDMA NIC or
 * every GPU saying 0: the fault gdr:all:off; some GPUs: theirs, on node0
 * (the dump's node). */
static void gdr_faults(struct conv *v)
{
	if (!v->rdma || (v->rdma_nogdr < v->rdma && !v->gpu_nogdr))
		return;
	if (v->rdma_nogdr == v->rdma || v->gpu_nogdr == v->ngpu) {
		warn(v->o, "the %s say gdr=\"0\": GPUDirect RDMA off (faults: gdr:all:off)",
		     v->rdma_nogdr == v->rdma ? "RDMA NICs" : "GPUs");
		ccs_text_printf(&v->o->y, "faults:\n  - gdr:all:off\n");
		return;
	}
	if (v->rdma_nogdr)
		warn(v->o, "%d of %d RDMA NICs say gdr=\"0\": GPUDirect RDMA off through them (not written as a fault)",
		     v->rdma_nogdr, v->rdma);
	if (!v->gpu_nogdr)
		return;
	warn(v->o, "%d GPU%s gdr=\"0\": GPUDirect RDMA off for %s on node0 (faults)", v->gpu_nogdr,
	     v->gpu_nogdr == 1 ? " says" : "s say", v->gpu_nogdr == 1 ? "it" : "them");
	ccs_text_printf(&v->o->y, "faults:\n");
	for (int i = 0; i < v->ngpu; i++)
		if (v->gpu[i].nogdr)
			ccs_text_printf(&v->o->y, "  - gdr:node0/gpu%d:off\n", v->gpu[i].dev);
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
		gdr_faults(v);
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

int ccs_topo_xml_emit(struct conv *v)
{
	summary(v);
	for (int i = 0; i + 1 < v->ncpu; i++)
		socket_link(v, v->cpu[0], v->cpu_id[i], v->cpu_id[i + 1]);
	CCS_TRY(nvlinks(v));
	return write_yaml(v);
}
