/*
** calibrate/diag_split.h: the next measurement that tells equivalent fault
** hypotheses apart (diagnose, docs/faults.md).
**
** Hypotheses that predict the logs alike (a NIC at half speed on a ring, a
** GPU's PCIe link at x8, ...) differ in what a smaller measurement of one
** part would show.  For each member m of the set and each kind of probe k,
** the model predicts the probe's outcome vector o(m, k) over the job's
** parts, on the topology with m applied (in memory, then put back):
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

#include "../model/topo.h"

struct ccs_split_in {
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

/* The probe that splits the space-separated hypotheses in members best,
 * into *out, each member tried on t (put back after).  0; -2 out of
 * memory. */
int ccs_split_best(struct ccs_topo *t, const struct ccs_split_in *in, const char *members, struct ccs_split_out *out,
                   char *err, size_t errn);

#endif
