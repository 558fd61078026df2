/* model/comm_ch.c: a communicator's ring and tree NIC figures for any
** channel count, placed on first use (comm_ch.h). */
#include "comm_ch.h"
#include "ring_nic.h"

int ccs_comm_ch_at(const struct ccs_comm *c, int C, struct ccs_comm_ch *out)
{
	if (C < 1)
		C = 1;
	if (C <= CCS_COMM_CH_MAX && c->ch_done[C]) {
		*out = c->ch[C];
		return CCS_OK;
	}
	int32_t *gstart = NULL, *members = NULL;
	int rc = ccs_comm_members(c, &gstart, &members);
	if (!rc)
		rc = ccs_ring_nic_rate(c->t, c->rank_gpu, c->n, gstart, members, c->G, C, c->prm.eff, &out->B_ring);
	if (!rc)
		rc = ccs_ring_nic_tree(c->t, c->rank_gpu, gstart, members, c->G, C, c->nccl.nics, &out->tg, &out->tph);
	ccs_free(gstart);
	ccs_free(members);
	if (!rc && C <= CCS_COMM_CH_MAX) {
		struct ccs_comm *w = (struct ccs_comm *)c;   /* the cache: see comm.h */
		w->ch[C] = *out;
		w->ch_done[C] = 1;
	}
	return rc;
}
