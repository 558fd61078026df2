/*
** sim/cli/diag_split.h: the next measurement that tells equivalent fault
** hypotheses apart (diagnose, docs/faults.md).
**
** Hypotheses that predict the logs alike (a NIC at half speed on a ring, a
** GPU's PCIe link at x8, ...) differ in what a smaller measurement of one
** part would show.  For each member m of the set and each kind of probe k,
** the model predicts the probe's outcome vector o(m, k) over the job's
** parts, on the topology with m applied:
**   nic    each NIC of the job's nodes alone (ib_write_bw against a healthy
**          host): the NIC's network bandwidth, sum of its live network links
**   pcie   each GPU's host link (nvbandwidth host-to-device, or the CUDA
**          bench): the bandwidth of its PCIe links
**   node   each node alone, the logs' collective at their smallest and
**          largest size (nccl-tests on one host: no network): the closed
**          form's times with NCCL's choice on that node's GPUs (a late GPU
**          shows at the small size, a slow link at the large)
** Two members fall in one group under k when every element of their
** vectors agrees within 1%.  The probe chosen is the kind with the most
** groups (ties: the order above, cheapest first); the members it leaves
** together are said.
*/
#ifndef CCS_DIAG_SPLIT_H
#define CCS_DIAG_SPLIT_H

#include <stddef.h>
#include <stdint.h>

struct ccs_split_in {
	const char *topo;               /* the topology file diagnose reads */
	const char *const *sets;        /* its --set values */
	int nsets;
	int ppn, nodes;                 /* the job's ranks per node and nodes */
	int coll;                       /* the logs' collective and smallest and largest sizes (the node probe) */
	uint64_t size_lo, size_hi;
};

struct ccs_split_out {
	int kind;                       /* -1: none splits them */
	int groups, members;            /* the groups the chosen probe makes of the members */
	char cmd[320];                  /* what to run */
	char example[320];              /* what one member's outcome shows, against the healthy one */
};

/* The fault argument for ccs_topo_load of hypothesis fault: "faults+=F",
 * or "model.transport=T" for transport:T (the network another transport). */
void ccs_split_fault_arg(const char *fault, char *buf, size_t n);

/* The probe that splits the space-separated hypotheses in members best,
 * into *out.  0; -1 with err set when the topology cannot be loaded; -2
 * out of memory. */
int ccs_split_best(const struct ccs_split_in *in, const char *members, struct ccs_split_out *out, char *err,
                   size_t errn);

#endif
