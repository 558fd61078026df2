/*
** model/topo_parts.h: what the ids and names in an NCCL topology dump stand
** for (topo_xml.c): GPUs by compute capability (sm) and PCI device id, AMD
** GPUs by RCCL's gcn name, an NVLink's rate, RDMA NIC names, and what a PCIe
** generation says of the device in a x16 slot.  Pure lookups; every figure
** carries its public source beside it in topo_parts.c.
**
** Rates are YAML strings in the schema's units ("25GB/s" per direction and
** link, "3.35TB/s" of memory), NIC speeds in Mb/s as NCCL writes them.
*/
#ifndef CCS_TOPO_PARTS_H
#define CCS_TOPO_PARTS_H

/* An NVIDIA GPU: model, architecture and memory bandwidth (mem NULL: not
 * known here, no reduction bound); by_id 1 where the PCI device id named it. */
struct ccs_topo_parts_gpu {
	const char *model, *arch, *mem;
	int by_id;
};

/* An AMD GPU by gcn prefix: model, memory bandwidth, an xGMI link's rate. */
struct ccs_topo_parts_amd {
	const char *gcn, *model, *mem, *lane;
};

/* The GPU of compute capability sm whose <pci> states vendor and device
 * (either NULL: not stated); the device id counts where it agrees with sm. */
void ccs_topo_parts_nvidia(int sm, const char *vendor, const char *device, struct ccs_topo_parts_gpu *g);
/* The AMD GPU gcn names ("gfx942:sramecc+:xnack-"), NULL when not known. */
const struct ccs_topo_parts_amd *ccs_topo_parts_amd(const char *gcn);
/* One NVLink's rate per direction on a GPU of compute capability sm. */
const char *ccs_topo_parts_nvl_lane(int sm);
/* Whether a <net> name is an RDMA device's (on Ethernet, RoCE). */
int ccs_topo_parts_rdma(const char *name);
/* The compute capability of the NVIDIA part of that PCI vendor and device
 * id (hex strings, as a dump states them); 0 when not known here. */
int ccs_topo_parts_sm_of_id(const char *vendor, const char *device);
/* The compute capability of a GPU whose PCIe link runs at generation gen. */
int ccs_topo_parts_sm_of_gen(int gen);
/* The port rate (Mb/s) of a NIC in a x16 slot of PCIe generation gen. */
long ccs_topo_parts_nic_Mbps(int gen);

#endif
