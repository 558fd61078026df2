/*
** sim/sched/kvcache.c: a KV-cache transfer (model/kv.h) as a schedule.
**
** Layer gates: chains of DELAY ops, gate (l, b) waiting for gate (l-1, b)
** and T_c, so every chain reaches layer l at (l + 1) T_c.  Each gate
** releases up to GATE_XFERS of layer l's pair transfers (XFER of the pair's
** bytes per layer, paying the network or scale-up latency once it starts).
** Transfers of successive layers may overlap; the flow solver shares the
** NICs and links among them, which is work-conserving like the closed form.
*/
#include "../../model/kv.h"
#include "build.h"

#include <string.h>

#define GATE_XFERS (CCS_SCHED_MAXSUCC - 1)

int ccs_sched_kvcache(const struct ccs_comm *c, const struct ccs_kv_cfg *cfg, const struct ccs_kv_plan *p,
                      struct ccs_sched *s, const char **why)
{
	int nb = (p->npairs + GATE_XFERS - 1) / GATE_XFERS;
	if (nb < 1) {
		*why = "no pair to transfer";
		return CCS_EINPUT;
	}
	uint32_t *prev = ccs_malloc((size_t)nb * sizeof *prev);
	struct ccs_dag *d = NULL;
	int rc = CCS_ENOMEM;
	if (!prev || ccs_dag_new(&d))
		goto out;
	double L = ccs_kv_latency(c, p);
	struct ccs_op g, x;
	memset(&g, 0, sizeof g);
	g.kind = CCS_OP_DELAY;
	g.nic_src = g.nic_dst = UINT32_MAX;
	g.delay_s = cfg->layer_s;
	memset(&x, 0, sizeof x);
	x.kind = CCS_OP_XFER;
	x.nic_src = x.nic_dst = UINT32_MAX;
	x.delay_s = L;
	for (int l = 0; l < cfg->layers; l++)
		for (int b = 0; b < nb; b++) {
			uint32_t gid;
			g.src = g.dst = p->pair[b * GATE_XFERS].src;
			if ((rc = ccs_dag_op(d, &g, &gid)))
				goto out;
			if (l && (rc = ccs_dag_edge(d, prev[b], gid)))
				goto out;
			prev[b] = gid;
			int hi = (b + 1) * GATE_XFERS < p->npairs ? (b + 1) * GATE_XFERS : p->npairs;
			for (int k = b * GATE_XFERS; k < hi; k++) {
				uint32_t xid;
				x.src = p->pair[k].src;
				x.dst = p->pair[k].dst;
				x.bytes = p->pair[k].bytes;
				if ((rc = ccs_dag_op(d, &x, &xid)) || (rc = ccs_dag_edge(d, gid, xid)))
					goto out;
			}
		}
	rc = ccs_dag_take(&d, s, why);
out:
	if (rc == CCS_ENOMEM)
		*why = "out of memory";
	ccs_dag_free(d);
	ccs_free(prev);
	return rc;
}
