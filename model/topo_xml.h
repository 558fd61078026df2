/*
** model/topo_xml.h: an NCCL topology dump (NCCL_TOPO_DUMP_FILE, RCCL's too)
** as a topology YAML (docs/topology.md, "Importing an NCCL topology dump").
**
** The dump is one node's PCI tree as NCCL sees it:
**   <system version>
**     <cpu numaid arch vendor familyid modelid>
**       <pci busid class link_speed link_width>     bridges (0x0604..): a switch
**         <pci ... class 0x03..>  <gpu dev sm rank gdr>  <nvlink target count tclass/>
**         <pci ... class 0x02..>  <nic> <net name dev speed port gdr/> </nic>
** becomes, in base units of the YAML schema:
**   cpu<numaid>                      a CPU per socket (numaid -1, a VM's:
**                                    the first id free); two sockets joined as
**                                    the shipped presets join them (Intel
**                                    Sapphire Rapids 4 x 32 GB/s UPI, Emerald
**                                    Rapids 4 x 40, older Intel 3 x 20.8, AMD
**                                    4 x 36 xGMI)
**   pcisw<k>                         a PCIe bridge that has devices under it
**   gpu<dev>                         model and architecture from sm (70 V100,
**                                    80 A100, 86/89 Ampere/Ada parts, 90 H100,
**                                    100 B200), or from the PCI device id
**                                    where it agrees with sm (H100 0x2330,
**                                    H200 0x2335, A100 40/80 GB ...); sm 90
**                                    without a known id is taken as H100
**                                    with a warning
**   nic<k>                           one per <net>, at its speed (Mb/s); a
**                                    <net> listed again under another CPU
**                                    (same name, guid, port) is the same NIC
**   pcie links child -> parent       gen from link_speed (2.5, 5, 8, 16, 32,
**                                    64 GT/s: gen 1-6), lanes from link_width
**                                    (0: x16, as NCCL's ncclTopoAddPci); a
**                                    bridge at 2.5 GT/s x1 above faster
**                                    devices (a VM's emulated port) at the
**                                    fastest device's rate
**   <pci class 0x03..> / 0x02.. with  a hint file's GPU / NIC (NCCL_TOPO_FILE,
**   nothing below                    completed by NCCL at run time): sm and a
**                                    x16 NIC's rate from the PCIe generation
**                                    (gen 3/4/5/6: sm 70/80/90/100, 100/200/
**                                    400/800 Gb/s), dev by busid order
**   no <nvlink> anywhere             a dump NCCL wrote (device ids): none; a
**                                    file written by hand: 8 alike GPUs of
**                                    sm 80+ as an HGX board's NVSwitch (12
**                                    or 18 NVLinks each), else none
**   NVLink to NVSwitches (tclass 0x068000) -> scaleup: nvlink, lanes = the
**                                    links a GPU has, 25 GB/s per link and
**                                    direction (NVLink 2-4), 50 (NVLink 5),
**                                    NVLS on sm 90 and later
**   NVLink to a GPU (tclass 0x0302..)  a node link between the two GPUs
**   <c2c bw count>                   a c2c link GPU -> its CPU at bw x count
**                                    / 1000 GB/s (NCCL's reading), in place
**                                    of the GPU's PCIe link
**   <cpu host_hash> of several hosts  MNNVL: the first host is the node,
**                                    nodes and nodes_per_domain the hosts
**   gdr="0" on every RDMA <net> or    faults: gdr:all:off (some GPUs: theirs
**   every <gpu>                      on node0), as ncclTopoCheckGdr
**   <net coll="1">                   scaleout.sharp (the CollNet plugin)
**   <gpu gcn> (RCCL)                 an AMD GPU by gcn (gfx908, gfx90a, gfx94x,
**                                    gfx950): model, memory bandwidth; NCCL's
**                                    Hopper tables stand in for RCCL's
**   <xgmi target=GPU count> (RCCL)   a node link type xgmi, count links at the
**                                    GPU's xGMI rate per direction
**   scaleout                         a 2-tier rail-optimized fabric of the
**                                    NICs' type (IB class 0x0207, RoCE for an
**                                    RDMA device's name, else Ethernet)
** What a dump lacks (link speeds, switches in a VM, NICs) is assumed and
** said in a warning; the YAML carries the same words as comments.
*/
#ifndef CCS_TOPO_XML_H
#define CCS_TOPO_XML_H

#include "ccs.h"

#include <stddef.h>

/* The dump text[0..len) named name as YAML: *yaml (ccs_malloc'd, NUL-ended,
 * the caller's to ccs_free), *warn the warnings joined by "; " ("" none,
 * ccs_malloc'd too).  CCS_EINPUT with d set at name:line:col (malformed XML,
 * a value that is not a number, no GPU), CCS_ENOMEM; nothing to free then. */
int ccs_topo_xml_yaml(const char *name, const char *text, size_t len, char **yaml, char **warn, struct ccs_diag *d);

#endif
