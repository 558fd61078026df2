/*
** model/comm_nccl.c: NCCL's own model's input (struct ccs_nccl_in,
** nccl_tables.h) from a communicator comm.c has built: its scalars, and the
** graph as NCCL's topology search would find it (approximated).
*/
#include "comm_int.h"

#include <math.h>

/* NCCL's own model's input (nccl_tables.h): the communicator's scalars as
 * it reads them; nccl_graph fills its graph. */
static void nccl_view(struct ccs_comm *c)
{
	struct ccs_nccl_in *x = &c->nccl;
	const struct ccs_transport_row *tr = ccs_comm_tr(c);
	x->n = c->n;
	x->G = c->G;
	x->p = c->p;
	x->arch = c->arch;
	x->intra_nvl = c->intra_nvl;
	x->nvls = c->nvls;
	x->sharp = c->sharp;
	x->version = c->prm.nccl_version;
	x->collnet = c->prm.nccl_collnet;
	x->channels = c->prm.channels;
	x->lat_net = c->lat_net;
	x->lat_intra = c->lat_intra;
	x->msg_lat_s = tr->msg_lat_s;
	x->net_lat_s = tr->nccl_lat_s;
	x->net_protos = tr->protos;
}

/* The graph as NCCL's search would find it (approximated), in its units. */
static void nccl_graph(struct ccs_comm *c)
{
	const double *spd = ccs_nccl_speed_intra(c->arch);
	int nspd = ccs_nccl_speed_intra_n(c->arch);
	double total = c->intra_nvl ? c->nccl.nvl_GBps : c->nccl.pci_GBps;
	if (c->p <= 1)
		total = c->nccl.net_GBps > 0 ? c->nccl.net_GBps : total;
	/* The fastest per-channel speed at which at least 4 channels fit (or the
	 * most that fit), up to 16 search channels. */
	double s = spd[nspd - 1];
	int nch = 1;
	for (int i = 0; i < nspd; i++) {
		/* channels that fit, counted up to 17 (a bandwidth of PB/s would
		 * not fit in an int) */
		double kd = floor(total / spd[i] + 1e-9);
		int k = kd >= 17 ? 17 : kd >= 0 ? (int)kd : 0;
		if (k >= 4 || (i == nspd - 1 && k >= 1)) {
			s = spd[i];
			nch = k > 16 ? 16 : k;
			break;
		}
	}
	if (total < s) {
		s = total > 0 ? total : 1;
		nch = 1;
	}
	c->nccl.nch_ring = nch;
	c->nccl.intra_GBps = s;
	c->nccl.inter_GBps = s;
	if (c->G > 1 && c->nccl.net_GBps > 0) {
		/* Inter-node rings: one channel per NIC, each as fast as its NIC and
		 * the GPUs' links allow. */
		const double *si = ccs_nccl_speed_inter(c->arch);
		int nsi = ccs_nccl_speed_inter_n(c->arch);
		int k = c->nccl.nics > 0 ? c->nccl.nics : 1;
		if (k > 16)
			k = 16;
		double per = c->nccl.net_GBps / k;
		double cap = (c->p > 1 ? total : per * k) / k;
		double lim = per < cap ? per : cap;
		double v = si[nsi - 1];
		for (int i = 0; i < nsi; i++)
			if (si[i] <= lim + 1e-9) {
				v = si[i];
				break;
			}
		c->nccl.nch_ring = k;
		c->nccl.inter_GBps = v;
		c->nccl.intra_GBps = v;
	}
	/* The search's second pass raises a tree graph's intra-node speed
	 * alone, to the fastest speed at which its channels still fit the
	 * intra-node links, keeping the inter-node one (src/graph/search.cc,
	 * ncclTopoCompute: pass 2 increases bwIntra for tree patterns); NCCL's
	 * model takes bwIntra for the tree on 1 and 2 nodes. */
	c->nccl.tree_intra_GBps = c->nccl.intra_GBps;
	if (c->p > 1)
		for (int i = 0; i < nspd; i++)
			if (spd[i] > c->nccl.tree_intra_GBps && spd[i] * c->nccl.nch_ring <= total + 1e-9) {
				c->nccl.tree_intra_GBps = spd[i];
				break;
			}
	c->nccl.nvls_channels = c->prm.nvls_channels ? c->prm.nvls_channels
	                 : c->arch >= CCS_ARCH_BLACKWELL ? (c->G > 1 ? 32 : 24) : 16;
}

void ccs_comm_nccl_view(struct ccs_comm *c)
{
	nccl_view(c);
	nccl_graph(c);
}
