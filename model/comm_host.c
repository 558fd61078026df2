/* model/comm_host.c: what the communicator takes from traffic staged in
** host memory: a GPU's network traffic without GPUDirect RDMA, and its
** exchanges with its node's GPUs with P2P off (comm_int.h). */
#include "comm_int.h"

/* A rank without GPUDirect RDMA stages its network traffic in host memory:
 * out of the GPU to its CPU, then to the NIC (and back the same way).
 * Behind a PCIe switch, the switch's link to the CPU carries, each way,
 * two streams per such rank under it (the GPU's and its NIC's): the rank
 * gets that link over twice those ranks, at most its own link (host). */
double ccs_comm_host_staged_net(const struct ccs_topo *t, const struct ccs_comm *c, const struct ccs_gpu *gp, double host)
{
	for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++) {
		const struct ccs_link *l = &t->link[t->adj[k]];
		uint32_t sw = t->adj_nbr[k];
		if (l->type != CCS_LINK_PCIE || t->dev[sw].kind != CCS_DEV_PCISW)
			continue;
		double up = 0;
		for (uint32_t j = t->adj_off[sw]; j < t->adj_off[sw + 1]; j++)
			if (t->dev[t->adj_nbr[j]].kind == CCS_DEV_CPU && ccs_link_live(&t->link[t->adj[j]]))
				up += t->link[t->adj[j]].bw_Bps * c->prm.eff[CCS_LINK_PCIE];
		int users = 0;
		for (int r = 0; r < c->n; r++) {
			const struct ccs_gpu *o = &t->gpu[c->rank_gpu[r]];
			if (!o->no_gdr)
				continue;
			for (uint32_t j = t->adj_off[o->dev]; j < t->adj_off[o->dev + 1]; j++)
				users += t->adj_nbr[j] == sw;
		}
		if (up > 0 && users > 0 && up / (2.0 * users) < host)
			host = up / (2.0 * users);
		break;
	}
	return host;
}

/* A rank with P2P off exchanges with its node's GPUs through host memory
 * (NCCL's SHM): its bytes go up its PCIe link (or NVLink-C2C) to its CPU and the peer's come
 * down its link; behind a PCIe switch the switch's uplink (each way) is
 * shared by the group's ranks under it that stage.  The rank's rate: its
 * own link, at most that uplink over those ranks. */
double ccs_comm_host_staged_p2p(const struct ccs_topo *t, const struct ccs_comm *c, const int32_t *members, int m,
                                const struct ccs_gpu *gp)
{
	double best = 0;
	for (uint32_t k = t->adj_off[gp->dev]; k < t->adj_off[gp->dev + 1]; k++) {
		const struct ccs_link *l = &t->link[t->adj[k]];
		uint32_t up = t->adj_nbr[k];
		if ((l->type != CCS_LINK_PCIE && l->type != CCS_LINK_C2C) || !ccs_link_live(l))
			continue;
		double own = l->bw_Bps * c->prm.eff[l->type];
		if (t->dev[up].kind == CCS_DEV_PCISW) {
			double ul = 0;
			for (uint32_t j = t->adj_off[up]; j < t->adj_off[up + 1]; j++)
				if (t->dev[t->adj_nbr[j]].kind == CCS_DEV_CPU && ccs_link_live(&t->link[t->adj[j]]))
					ul += t->link[t->adj[j]].bw_Bps * c->prm.eff[CCS_LINK_PCIE];
			int users = 0;
			for (int i = 0; i < m; i++) {
				const struct ccs_gpu *o = &t->gpu[c->rank_gpu[members[i]]];
				for (uint32_t q = t->adj_off[o->dev]; q < t->adj_off[o->dev + 1] && o->no_p2p; q++)
					users += t->adj_nbr[q] == up;
			}
			if (ul > 0 && users > 0 && ul / users < own)
				own = ul / users;
		}
		if (own > best)
			best = own;
	}
	return best;
}

