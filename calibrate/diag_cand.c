/* calibrate/diag_cand.c: the fault hypotheses diagnose tries (diag_cand.h). */
#include "diag_cand.h"

#include "../model/ccs.h"
#include "../model/comm.h"
#include "../model/transport.h"

#include <stdio.h>
#include <string.h>

/* The NICs a GPU held to one NIC (rail:GPU:NIC) may be on: another at its
 * own distance (the next rail on its PCIe switch), its own first of several
 * at that distance (held to one where it would spread, AWS p5's four), the
 * nearest beyond those, and the farthest of its node; into rail, *n of
 * them. */
static void add_rails(const struct ccs_topo *t, uint32_t dv, uint32_t rail[4], int *n)
{
	*n = 0;
	int32_t g = t->gpu_of_dev[dv];
	if (g < 0)
		return;
	const struct ccs_gpu *gp = &t->gpu[g];
	uint32_t best = ccs_topo_best_nics(t, gp), first = gp->nic_first;
	if (best >= 2) {
		rail[(*n)++] = t->gnic[first + 1].nic;
		rail[(*n)++] = t->gnic[first].nic;
	}
	if (gp->nic_count > best)
		rail[(*n)++] = t->gnic[first + best].nic;
	if (gp->nic_count > best + 1)
		rail[(*n)++] = t->gnic[first + gp->nic_count - 1].nic;
}

int ccs_diag_candidates(const struct ccs_topo *t, int ranks, int ppn, double excess, struct ccs_diag_specs *sp,
                        char *err, size_t errn)
{
	char *node_in = ccs_calloc((size_t)t->nnodes + 1, 1);
	if (!node_in)
		return -2;
	struct ccs_comm cm;
	if (ccs_comm_build(t, ranks, ppn, &cm, err, errn)) {
		ccs_free(node_in);
		return -1;
	}
	for (int r = 0; r < cm.n; r++)
		if (t->gpu[cm.rank_gpu[r]].node >= 0)
			node_in[t->gpu[cm.rank_gpu[r]].node] = 1;
	int multi = cm.G > 1, socket = cm.transport == CCS_TR_SOCKET;
	ccs_comm_release(&cm);
#define ADD(k, a, ...) do { if (ccs_grow(&sp->c, &sp->cap, sp->n + 1, sizeof *sp->c)) { ccs_free(node_in); return -2; } \
	sp->c[sp->n].kind = (k); sp->c[sp->n].all = (a); \
	snprintf(sp->c[sp->n++].spec, sizeof sp->c[0].spec, __VA_ARGS__); } while (0)
	uint32_t rail[4];
	int nrail = 0;
	for (uint32_t dv = 0; dv < t->ndev; dv++) {
		const struct ccs_dev *x = &t->dev[dv];
		if (x->node < 0 || !node_in[x->node]) {
			/* a switch: the links from it up, where a rank's leaf meets a spine */
			if (x->kind == CCS_DEV_NETSW && x->tier == 0)
				for (uint32_t k = t->adj_off[dv]; k < t->adj_off[dv + 1]; k++) {
					uint32_t o = t->adj_nbr[k];
					if (t->dev[o].kind == CCS_DEV_NETSW && t->dev[o].tier > x->tier)
						ADD(CCS_CAND_LINK, 0, "link:%s-%s:50%%", x->name, t->dev[o].name);
				}
			continue;
		}
		if (x->kind == CCS_DEV_NIC) {
			ADD(CCS_CAND_NIC, 0, "nic:%s:down", x->name);
			ADD(CCS_CAND_NIC, 0, "nic:%s:75%%", x->name);
			ADD(CCS_CAND_NIC, 0, "nic:%s:50%%", x->name);
			ADD(CCS_CAND_NIC, 0, "nic:%s:25%%", x->name);
		} else if (x->kind == CCS_DEV_GPU) {
			ADD(CCS_CAND_PCIE, 0, "pcie:%s:x8", x->name);
			ADD(CCS_CAND_PCIE, 0, "pcie:%s:x4", x->name);
			ADD(CCS_CAND_PCIE, 0, "pcie:%s:gen4", x->name);
			ADD(CCS_CAND_PCIE, 0, "pcie:%s:gen3", x->name);
			ADD(CCS_CAND_GDR, 0, "gdr:%s:off", x->name);
			add_rails(t, dv, rail, &nrail);
			for (int k = 0; k < nrail; k++)
				ADD(CCS_CAND_RAIL, 0, "rail:%s:%s", x->name, t->dev[rail[k]].name);
			if (excess > 0)
				ADD(CCS_CAND_STRAGGLER, 0, "straggler:%s:%.4gus", x->name, excess * 1e6);
		}
	}
	ADD(CCS_CAND_GDR, 1, "gdr:all:off");
	ADD(CCS_CAND_ACS, 1, "acs:all:on");
	ADD(CCS_CAND_P2P, 1, "p2p:all:off");
	if (multi && !socket)
		ADD(CCS_CAND_SOCKET, 0, "transport:socket");
#undef ADD
	ccs_free(node_in);
	return 0;
}
