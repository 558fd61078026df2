/*
** calibrate/diag_cand.h: the fault hypotheses diagnose tries (docs/faults.md,
** "Diagnosis").
**
** On the nodes a job of `ranks` ranks (ppn a node, 0: filling nodes in
** order) runs on: every NIC down and at 75%, 50%, 25%; every GPU's PCIe
** link at x8, x4, gen 4, gen 3, its GPUDirect off, its rail moved to
** another NIC (the next at its own distance, the nearest beyond, the
** farthest), and, where the rows run late by a median excess > 0, a
** straggler by that delay; the links up from the job's leaves at 50%;
** GPUDirect off everywhere, ACS (or a VM's IOMMU) redirecting peer PCIe
** traffic, P2P off; the network over sockets where the job crosses it.
** Each as a fault string of model/fault.h (transport:T for the transport).
*/
#ifndef CCS_DIAG_CAND_H
#define CCS_DIAG_CAND_H

#include "../model/topo.h"

#include <stddef.h>

/* A hypothesis, typed: its kind, whether it strikes every GPU ("all"),
 * and the fault string that applies it (calibrate/diagnose.h,
 * ccs_diagnose_under). */
enum ccs_diag_cand_kind { CCS_CAND_NIC, CCS_CAND_PCIE, CCS_CAND_GDR, CCS_CAND_RAIL, CCS_CAND_ACS, CCS_CAND_P2P,
                          CCS_CAND_LINK, CCS_CAND_STRAGGLER, CCS_CAND_SOCKET, CCS_CAND_KIND_N };
struct ccs_diag_cand {
	int kind;                   /* enum ccs_diag_cand_kind */
	int all;                    /* its target is every GPU */
	char spec[160];
};

struct ccs_diag_specs {
	struct ccs_diag_cand *c;
	size_t n, cap;
};

/* The candidates into sp (ccs_free(sp->c) after).  0; -1 with err set
 * when the job does not fit t; -2 out of memory. */
int ccs_diag_candidates(const struct ccs_topo *t, int ranks, int ppn, double excess, struct ccs_diag_specs *sp,
                        char *err, size_t errn);

#endif
