/* model/topo_parts.c: the parts an NCCL topology dump names (topo_parts.h). */
#include "topo_parts.h"

#include <stdlib.h>
#include <string.h>

/* NVIDIA parts by PCI device id, for what sm alone cannot tell (H100 from
 * H200, A100 40 GB from 80 GB).  Ids from the pci.ids database (Debian's
 * pci.ids 0.0~2023.04.11); 0x2335 (H200) from the H200 machines of
 * NVIDIA/nccl-tests issue 256 (lspci "Device 2335" where nccl-tests prints
 * "NVIDIA H200"); 0x2901 (B200) from a public HGX B200 capture (0x10de:0x2901,
 * sm 100).  Memory bandwidths from NVIDIA's datasheets. */
static const struct nv_part {
	unsigned id;
	int sm;
	const char *model, *mem;
} nv_parts[] = {
	{ 0x1db1, 70, "V100-SXM2-16GB", "900GB/s" },   { 0x1db5, 70, "V100-SXM2-32GB", "900GB/s" },
	{ 0x1db4, 70, "V100-PCIe-16GB", "900GB/s" },   { 0x1db6, 70, "V100-PCIe-32GB", "900GB/s" },
	{ 0x20b0, 80, "A100-SXM4-40GB", "1.555TB/s" }, { 0x20b2, 80, "A100-SXM4-80GB", "2.039TB/s" },
	{ 0x20b1, 80, "A100-PCIe-40GB", "1.555TB/s" }, { 0x20f1, 80, "A100-PCIe-40GB", "1.555TB/s" },
	{ 0x20b5, 80, "A100-PCIe-80GB", "1.935TB/s" }, { 0x20f3, 80, "A800-SXM4-80GB", "2.039TB/s" },
	{ 0x2330, 90, "H100-SXM5-80GB", "3.35TB/s" },  { 0x2331, 90, "H100-PCIe", "2TB/s" },
	{ 0x2324, 90, "H800", "3.35TB/s" },            { 0x2322, 90, "H800-PCIe", "2TB/s" },
	{ 0x2335, 90, "H200", "4.8TB/s" },             { 0x2901, 100, "B200", "8TB/s" },
};

/* By sm alone: the parts the shipped presets use. */
void ccs_topo_parts_nvidia(int sm, const char *vendor, const char *device, struct ccs_topo_parts_gpu *g)
{
	g->model = "GPU";
	g->mem = NULL;
	g->by_id = 0;
	g->arch = sm >= 100 ? "blackwell" : sm >= 90 ? "hopper" : sm >= 80 ? "ampere" : "volta";
	if (sm == 70)
		g->model = "V100", g->mem = "900GB/s";
	else if (sm == 80)
		g->model = "A100-SXM4-80GB", g->mem = "2.039TB/s";
	else if (sm == 90)
		g->model = "H100-SXM5-80GB", g->mem = "3.35TB/s";
	else if (sm == 100)
		g->model = "B200", g->mem = "8TB/s";
	else if (sm == 103)   /* GB300 NVL72: 576 TB/s of HBM3e over 72 GPUs */
		g->model = "B300", g->mem = "8TB/s";
	if (!vendor || !device || strtol(vendor, NULL, 16) != 0x10de)
		return;
	long id = strtol(device, NULL, 16);
	for (size_t i = 0; i < sizeof nv_parts / sizeof nv_parts[0]; i++)
		if (nv_parts[i].id == (unsigned long)id && nv_parts[i].sm == sm) {
			g->model = nv_parts[i].model;
			g->mem = nv_parts[i].mem;
			g->by_id = 1;
		}
}

/* AMD's datasheets: MI100 3 links of 92 GB/s both ways and 1.23 TB/s;
 * MI250X/MI210 (one GCD per GPU) 100 GB/s links and 1.6384 TB/s per GCD;
 * MI300X 7 links of 128 GB/s both ways and 5.3 TB/s; MI355X 153.6 GB/s
 * links and 8 TB/s. */
static const struct ccs_topo_parts_amd amd_parts[] = {
	{ "gfx908", "MI100", "1.23TB/s", "46GB/s" },
	{ "gfx90a", "MI250X-GCD", "1.6384TB/s", "50GB/s" },
	{ "gfx94", "MI300X", "5.3TB/s", "64GB/s" },     /* gfx940, gfx941, gfx942 */
	{ "gfx950", "MI355X", "8TB/s", "76.8GB/s" },
};

const struct ccs_topo_parts_amd *ccs_topo_parts_amd(const char *gcn)
{
	for (size_t i = 0; i < sizeof amd_parts / sizeof amd_parts[0]; i++)
		if (!strncmp(gcn, amd_parts[i].gcn, strlen(amd_parts[i].gcn)))
			return &amd_parts[i];
	return NULL;
}

/* 25 GB/s for NVLink 2-4 (V100 6, A100 12, H100 18 links: 300, 600, 900
 * GB/s both ways), 50 for NVLink 5 (B200: 18 links, 1.8 TB/s), 14.0625 on
 * GA102 parts with NVLink bridges (RTX A6000, A40: 112.5 GB/s both ways over
 * 4 links); the NVIDIA datasheets. */
const char *ccs_topo_parts_nvl_lane(int sm)
{
	return sm >= 100 ? "50GB/s" : sm == 86 ? "14.0625GB/s" : "25GB/s";
}

/* The kernel's names for ConnectX, Broadcom bnxt_re, AMD Pensando ionic,
 * Intel irdma, the rocep<bus> names of newer udev, HiSilicon hns, QLogic
 * qedr, Alibaba erdma; other names (eth0, ens1f0) are the interfaces of
 * NCCL's sockets. */
int ccs_topo_parts_rdma(const char *name)
{
	static const char *const pre[] = { "mlx5", "mlx4", "bnxt_re", "ionic", "irdma", "rocep", "hns", "qedr", "erdma" };
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (!strncmp(name, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* The GPU generation that first ran its host link at that PCIe generation:
 * gen 3 V100, gen 4 A100, gen 5 H100, gen 6 B200 (NVIDIA's datasheets). */
int ccs_topo_parts_sm_of_id(const char *vendor, const char *device)
{
	if (!vendor || !device || strtol(vendor, NULL, 16) != 0x10de)
		return 0;
	long id = strtol(device, NULL, 16);
	for (size_t i = 0; i < sizeof nv_parts / sizeof nv_parts[0]; i++)
		if (nv_parts[i].id == (unsigned long)id)
			return nv_parts[i].sm;
	return 0;
}

int ccs_topo_parts_sm_of_gen(int gen)
{
	return gen >= 6 ? 100 : gen == 5 ? 90 : gen == 4 ? 80 : 70;
}

/* The ConnectX generation whose x16 host link that PCIe generation is:
 * gen 3 ConnectX-5 100 Gb/s, gen 4 ConnectX-6 200, gen 5 ConnectX-7 400,
 * gen 6 ConnectX-8 800 (NVIDIA's adapter datasheets). */
long ccs_topo_parts_nic_Mbps(int gen)
{
	return gen >= 6 ? 800000 : gen == 5 ? 400000 : gen == 4 ? 200000 : 100000;
}
