/*
** sim/simrun.c: what both models of a run share (simrun.h): routes, a
** straggler's start, the solver's capacities and rates, a flow's end.
*/
#include "simrun.h"

#include <string.h>

static int on_sched(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	return ccs_engine_push(ctx, done, EV_DONE, flow, ver);
}

/* The resources of op's transfer (with the sender's memory when the
 * schedule times it and the fabric has it); CCS_EINPUT when it has no path
 * over live resources. */
int ccs_simrun_route(struct ccs_fabric *fab, const struct ccs_sched *s, uint64_t id, const struct ccs_op *op,
                    uint32_t way, uint32_t *res, int *n)
{
	int rc = CCS_OK;
	*n = 0;
	if (op->kind == CCS_OP_XFER) {
		/* sprayed, a part takes its way: spraying spreads it already */
		int by_dst = op->by_dst && ccs_fabric_spray(fab) <= 1;
		rc = ccs_fabric_route_way(fab, op->src, op->dst, op->nic_src, op->nic_dst, op->channel,
		                          by_dst ? CCS_FABRIC_WAY_DST : way, res, n);
		if (!rc && op->sm && *n + 2 <= CCS_FLOW_MAXPATH)
			ccs_fabric_copy(fab, op->src, op->dst, res, n);
		uint32_t m = op->src >= 0 ? ccs_fabric_mem(fab, op->src) : UINT32_MAX;
		if (!rc && m != UINT32_MAX && *n < CCS_FLOW_MAXPATH && ccs_sched_mem(s, id) > 0)
			res[(*n)++] = m;
	} else if (op->kind == CCS_OP_NVLS)
		rc = ccs_fabric_ports(fab, op->src, res, n);
	else if (op->kind == CCS_OP_UP || op->kind == CCS_OP_DOWN)
		rc = ccs_fabric_uplink(fab, op->src, op->nic_src, op->kind == CCS_OP_DOWN, res, n);
	for (int i = 0; !rc && i < *n; i++)
		if (!ccs_fabric_live(fab, res[i]))
			rc = CCS_EINPUT;
	return rc;
}

int ccs_simrun_begin(void *ctx, struct ccs_engine *e)
{
	struct ccs_simrun *r = ctx;
	ccs_time next = ccs_fabric_next_fault(r->fab);
	return next == CCS_TIME_MAX ? CCS_OK : ccs_engine_push(e, next, EV_FAULT, 0, 0);
}

/* a straggler's first ops wait for it to start */
double ccs_simrun_late_s(void *ctx, const struct ccs_op *op)
{
	struct ccs_simrun *r = ctx;
	return op->src >= 0 ? ccs_fabric_start_s(r->fab, op->src) : 0;
}

int ccs_simrun_flow_end(struct ccs_simrun *r, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now,
                        uint64_t *op, double *bytes)
{
	uint32_t f = (uint32_t)ev->id;
	*op = UINT64_MAX;
	if (ccs_flows_version(r->fl, f) != ev->ver)
		return CCS_OK;          /* replaced by an earlier one */
	ccs_time again;
	if (!ccs_flows_due(r->fl, f, now, &again))
		return ccs_engine_push(e, again, EV_DONE, f, ev->ver);   /* its end moved later */
	*op = ccs_flows_tag(r->fl, f);
	*bytes = ccs_flows_bytes(r->fl, f);
	ccs_flows_remove(r->fl, f, now);
	return CCS_OK;
}

int ccs_simrun_advance(void *ctx, struct ccs_engine *e, ccs_time now)
{
	struct ccs_simrun *r = ctx;
	CCS_TRY(ccs_flows_update(r->fl, now, on_sched, e));
	if (r->hooks && r->hooks->rates)
		r->hooks->rates(r->hooks->ctx, r->fl, now);
	return CCS_OK;
}

/* The flow solver over the fabric's resources, a slow GPU's memory timed in
 * bytes sent. */
void ccs_simrun_caps(const struct ccs_simrun *r, double *caps)
{
	memcpy(caps, ccs_fabric_caps(r->fab), (size_t)ccs_fabric_nres(r->fab) * sizeof *caps);
	for (int a = 0; r->s->mem_per_byte > 0 && a < ccs_fabric_ranks(r->fab); a++) {
		uint32_t m = ccs_fabric_mem(r->fab, a);
		if (m != UINT32_MAX)
			caps[m] = ccs_fabric_caps(r->fab)[m] / r->s->mem_per_byte;
	}
}
