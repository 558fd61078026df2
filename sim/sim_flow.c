/*
** sim/sim_flow.c: the per-flow model: every op's transfer a flow of the
** solver over its route (sprayed transfers as K parts), timed faults
** rerouting what crosses a dead resource (sim_flow.h).
*/
#include "sim_flow.h"

#include <stdio.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	return x;
}

static struct part_ent *part_slot(struct ccs_simrun *r, uint64_t op)
{
	uint32_t i = (uint32_t)(mix64(op) & (r->pcap - 1));
	while (r->parts[i].left && r->parts[i].op != op)
		i = (i + 1) & (r->pcap - 1);
	return &r->parts[i];
}

static int part_add(struct ccs_simrun *r, uint64_t op, uint32_t k)
{
	if ((r->pn + 1) * 2 > r->pcap) {
		uint32_t oc = r->pcap;
		struct part_ent *old = r->parts;
		uint32_t nc = oc ? oc * 2 : 64;
		r->parts = ccs_calloc(nc, sizeof *r->parts);
		if (!r->parts) {
			r->parts = old;
			return CCS_ENOMEM;
		}
		r->pcap = nc;
		for (uint32_t i = 0; i < oc; i++)
			if (old[i].left)
				*part_slot(r, old[i].op) = old[i];
		ccs_free(old);
	}
	struct part_ent *e = part_slot(r, op);
	e->op = op;
	e->left = k;
	r->pn++;
	return CCS_OK;
}

/* One part of op finished: 1 when it was the last (the entry goes, the
 * cluster after it shifted back), else 0. */
static int part_done(struct ccs_simrun *r, uint64_t op)
{
	if (!r->pcap)
		return 1;
	struct part_ent *e = part_slot(r, op);
	if (!e->left)
		return 1;               /* not sprayed */
	if (--e->left)
		return 0;
	uint32_t i = (uint32_t)(e - r->parts), j = i;
	for (;;) {
		j = (j + 1) & (r->pcap - 1);
		if (!r->parts[j].left)
			break;
		uint32_t h = (uint32_t)(mix64(r->parts[j].op) & (r->pcap - 1));
		/* move j back to i when its home is not in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			r->parts[i] = r->parts[j];
			r->parts[j].left = 0;
			i = j;
		}
	}
	r->parts[i].left = 0;
	r->pn--;
	return 1;
}


static void hang_msg(struct ccs_fabric *fab, const struct ccs_op *op, const char *struck, ccs_time now, char *err,
                     size_t errn)
{
	char what[64];
	if (op->kind == CCS_OP_UP || op->kind == CCS_OP_DOWN)
		snprintf(what, sizeof what, "its NIC's switch (in-network reduction)");
	else if (op->kind == CCS_OP_NVLS)
		snprintf(what, sizeof what, "its scale-up switches");
	else
		snprintf(what, sizeof what, "rank %d", op->dst);
	if (struck)
		snprintf(err, errn, "hang at %.3f us: rank %d cannot reach %s once '%s' struck: no path over live links",
		         (double)now * 1e-6, op->src, what, struck);
	else {
		char fl[256];
		ccs_fabric_faults(fab, fl, sizeof fl);
		snprintf(err, errn, "hang: rank %d cannot reach %s: no path over live links%s%s", op->src, what,
		         fl[0] ? " (faults: " : "", fl[0] ? fl : "");
		if (fl[0] && strlen(err) + 2 < errn)
			strcat(err, ")");
	}
}

/* The parts op moves in: the fabric's spray for a transfer between
 * groups; else 1. */
static uint32_t parts_of(const struct ccs_simrun *r, const struct ccs_op *op)
{
	if (op->kind != CCS_OP_XFER || !(op->bytes > 0) || !ccs_fabric_crosses(r->fab, op->src, op->dst))
		return 1;
	return r->spray > 1 ? r->spray : 1;
}

/* A timed fault strikes at now: new capacities, and every flow crossing a
 * dead resource moves to a live route with what it has left (or the run
 * hangs). */
static int strike(struct ccs_simrun *r, struct ccs_engine *e, ccs_time now, char *err, size_t errn)
{
	struct ccs_fabric *fab = r->fab;
	const struct ccs_sched *s = r->s;
	const uint32_t *chg;
	uint32_t nchg;
	const char *spec;
	CCS_TRY(ccs_fabric_strike(fab, &chg, &nchg, &spec));
	if (spec)
		r->struck = spec;
	const double *cap = ccs_fabric_caps(fab);
	int dead = 0;
	for (uint32_t i = 0; i < nchg; i++) {
		/* a memory's capacity counts bytes sent (as at the start) */
		double cv = ccs_fabric_is_mem(fab, chg[i]) && s->mem_per_byte > 0 ? cap[chg[i]] / s->mem_per_byte : cap[chg[i]];
		CCS_TRY(ccs_flows_set_cap(r->fl, chg[i], cv, now));
		dead |= !(cap[chg[i]] > 0);
	}
	/* a hang names the stranded op first in the schedule (not the first
	 * flow slot, which the solver's reuse of slots decides) */
	uint64_t stranded = UINT64_MAX;
	for (uint32_t id = 0; dead && id < ccs_flows_count(r->fl); id++) {
		const uint32_t *path;
		int n = ccs_flows_path(r->fl, id, &path), cut = 0;
		for (int i = 0; i < n && !cut; i++)
			cut = !ccs_fabric_live(fab, path[i]);
		if (!cut)
			continue;
		struct ccs_op op;
		uint32_t res[CCS_FLOW_MAXPATH];
		int m;
		uint64_t tag = ccs_flows_tag(r->fl, id);
		ccs_sched_get(s, tag, &op);
		uint32_t K = parts_of(r, &op), way = K > 1 ? id % K : 0;
		if (ccs_simrun_route(fab, s, tag, &op, way, res, &m)) {
			stranded = tag < stranded ? tag : stranded;
			continue;
		}
		CCS_TRY(ccs_flows_reroute(r->fl, id, res, m, now));
	}
	if (stranded != UINT64_MAX) {
		struct ccs_op op;
		ccs_sched_get(s, stranded, &op);
		hang_msg(fab, &op, spec, now, err, errn);
		return CCS_EINPUT;
	}
	ccs_time next = ccs_fabric_next_fault(fab);
	return next == CCS_TIME_MAX ? CCS_OK : ccs_engine_push(e, next, EV_FAULT, 0, 0);
}

/* ---- the engine's callbacks ---- */

static int m_start(void *ctx, struct ccs_engine *e, uint64_t id, const struct ccs_op *op, ccs_time now, int *busy,
                   char *err, size_t errn)
{
	(void)e;
	struct ccs_simrun *r = ctx;
	uint32_t res[CCS_FLOW_MAXPATH];
	int n = 0;
	*busy = 0;
	if (ccs_simrun_route(r->fab, r->s, id, op, 0, res, &n)) {
		hang_msg(r->fab, op, r->struck, now, err, errn);
		return CCS_EINPUT;
	}
	if (op->kind == CCS_OP_DELAY)
		return CCS_OK;
	uint32_t fid;
	/* sprayed (or spread): K parts over K of the equal paths, done when all are */
	uint32_t K = parts_of(r, op);
	for (uint32_t w = 1; w < K; w++) {
		uint32_t pr[CCS_FLOW_MAXPATH];
		int pn = 0;
		if (ccs_simrun_route(r->fab, r->s, id, op, w, pr, &pn)) {
			hang_msg(r->fab, op, r->struck, now, err, errn);
			return CCS_EINPUT;
		}
		CCS_TRY(ccs_flows_add(r->fl, pr, pn, op->bytes / K, id, now, &fid));
	}
	if (K > 1)
		CCS_TRY(part_add(r, id, K));
	CCS_TRY(ccs_flows_add(r->fl, res, n, op->bytes / K, id, now, &fid));
	r->st->flows += K;
	r->st->bytes_sent += op->bytes;
	uint32_t a = ccs_flows_active(r->fl);
	if (a > r->st->max_active)
		r->st->max_active = a;
	*busy = 1;
	return CCS_OK;
}


static int m_fire(void *ctx, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now, uint64_t *done,
                  char *err, size_t errn)
{
	struct ccs_simrun *r = ctx;
	if (ev->kind == EV_FAULT)
		return strike(r, e, now, err, errn);
	uint64_t opid;
	double bytes;
	CCS_TRY(ccs_simrun_flow_end(r, e, ev, now, &opid, &bytes));
	if (opid == UINT64_MAX)
		return CCS_OK;
	r->st->bytes_received += bytes;
	/* other parts of a sprayed transfer may still move */
	if (part_done(r, opid))
		*done = opid;
	return CCS_OK;
}



void ccs_sim_flow_model(struct ccs_simrun *r, struct ccs_engine_model *m)
{
	const struct ccs_engine_model x = { r, ccs_simrun_begin, ccs_simrun_late_s, m_start, m_fire,
		                            ccs_simrun_advance };
	*m = x;
}
