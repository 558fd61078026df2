/* sim/engine.c: the event loop (engine.h). */
#include "engine.h"

#include <stdio.h>
#include <string.h>

enum { EV_READY, EV_DONE, EV_FAULT };

/* Parts of sprayed transfers still moving, by op: open addressing. */
struct part_ent {
	uint64_t op;
	uint32_t left;              /* 0: empty slot */
};

struct run {
	const char *struck;         /* the last timed fault that struck */
	uint32_t spray;             /* parts per network transfer (ccs_fabric_spray), 1: none */
	struct part_ent *parts;
	uint32_t pcap, pn;
	struct ccs_evq q;
	struct ccs_flows *fl;
	struct ccs_sim_stats *st;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	return x;
}

static struct part_ent *part_slot(struct run *r, uint64_t op)
{
	uint32_t i = (uint32_t)(mix64(op) & (r->pcap - 1));
	while (r->parts[i].left && r->parts[i].op != op)
		i = (i + 1) & (r->pcap - 1);
	return &r->parts[i];
}

static int part_add(struct run *r, uint64_t op, uint32_t k)
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
static int part_done(struct run *r, uint64_t op)
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

static int on_sched(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	struct run *r = ctx;
	return ccs_evq_push(&r->q, done, EV_DONE, flow, ver);
}

/* The resources of op's transfer (with the sender's memory when the
 * schedule times it and the fabric has it); CCS_EINPUT when it has no path
 * over live resources. */
static int route_op(struct ccs_fabric *fab, const struct ccs_sched *s, uint64_t id, const struct ccs_op *op,
                    uint32_t way, uint32_t *res, int *n)
{
	int rc = CCS_OK;
	*n = 0;
	if (op->kind == CCS_OP_XFER) {
		rc = ccs_fabric_route_way(fab, op->src, op->dst, op->nic_src, op->nic_dst, op->channel, way, res, n);
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

/* A timed fault strikes at now: new capacities, and every flow crossing a
 * dead resource moves to a live route with what it has left (or the run
 * hangs). */
static int strike(struct run *r, struct ccs_fabric *fab, const struct ccs_sched *s, ccs_time now, char *err,
                  size_t errn)
{
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
		ccs_sched_get(s, ccs_flows_tag(r->fl, id), &op);
		uint32_t way = r->spray > 1 && op.kind == CCS_OP_XFER && ccs_fabric_crosses(fab, op.src, op.dst) ? id % r->spray : 0;
		if (route_op(fab, s, ccs_flows_tag(r->fl, id), &op, way, res, &m)) {
			hang_msg(fab, &op, spec, now, err, errn);
			return CCS_EINPUT;
		}
		CCS_TRY(ccs_flows_reroute(r->fl, id, res, m, now));
	}
	ccs_time next = ccs_fabric_next_fault(fab);
	return next == CCS_TIME_MAX ? CCS_OK : ccs_evq_push(&r->q, next, EV_FAULT, 0, 0);
}

void ccs_part_ends_op_end(void *ctx, uint64_t op, ccs_time t)
{
	struct ccs_part_ends *e = ctx;
	int p = ccs_sched_part(e->s, op);
	double s = (double)t * 1e-12;
	if (s > e->end_s[p])
		e->end_s[p] = s;
}

int ccs_sim_run(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                struct ccs_flows **flows_out, char *err, size_t errn)
{
	return ccs_sim_run_hooked(fab, s, st, flows_out, NULL, err, errn);
}

int ccs_sim_run_hooked(struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                       struct ccs_flows **flows_out, const struct ccs_sim_hooks *hooks, char *err, size_t errn)
{
	struct run r;
	memset(&r, 0, sizeof r);
	memset(st, 0, sizeof *st);
	r.st = st;
	ccs_evq_init(&r.q);
	ccs_fabric_rewind(fab);
	r.spray = ccs_fabric_spray(fab);
	uint8_t *cnt = NULL;
	int rc = ccs_flows_new(&r.fl, ccs_fabric_nres(fab), ccs_fabric_caps(fab));
	if (rc)
		goto out;
	rc = CCS_ENOMEM;
	cnt = ccs_malloc(s->nops ? s->nops : 1);
	if (!cnt)
		goto out;
	for (uint64_t i = 0; i < s->nops; i++) {
		uint32_t d = ccs_sched_ndeps(s, i);
		if (d > 255) {
			snprintf(err, errn, "op %llu waits for %u ops; at most 255", (unsigned long long)i, d);
			rc = CCS_EINPUT;
			goto out;
		}
		cnt[i] = (uint8_t)d;
		if (!d) {
			/* a straggler's first ops wait for it to start */
			struct ccs_op op;
			ccs_sched_get(s, i, &op);
			double late = op.src >= 0 ? ccs_fabric_start_s(fab, op.src) : 0;
			if ((rc = ccs_evq_push(&r.q, ccs_time_from_s(op.delay_s + late), EV_READY, i, 0)))
				goto out;
		}
	}
	/* a slow GPU's memory: its capacity in bytes sent */
	for (int a = 0; s->mem_per_byte > 0 && a < ccs_fabric_ranks(fab); a++) {
		uint32_t m = ccs_fabric_mem(fab, a);
		if (m != UINT32_MAX && (rc = ccs_flows_set_cap(r.fl, m, ccs_fabric_caps(fab)[m] / s->mem_per_byte, 0)))
			goto out;
	}
	if (ccs_fabric_next_fault(fab) != CCS_TIME_MAX &&
	    (rc = ccs_evq_push(&r.q, ccs_fabric_next_fault(fab), EV_FAULT, 0, 0)))
		goto out;
	ccs_time now = 0, last_done = 0;
	uint64_t done_ops = 0;
	struct ccs_event ev;
	while (ccs_evq_peek(&r.q) != CCS_TIME_MAX) {
		ccs_time t = ccs_evq_peek(&r.q);
		if (t < now) {
			snprintf(err, errn, "internal: time went back");
			rc = CCS_EINTERNAL;
			goto out;
		}
		now = t;
		/* every event of this time */
		while (ccs_evq_peek(&r.q) == now) {
			ccs_evq_pop(&r.q, &ev);
			st->events++;
			uint64_t opid;
			double done_bytes = 0;
			if (ev.kind == EV_FAULT) {
				/* after the last op, nothing is left to strike */
				if (done_ops < s->nops && (rc = strike(&r, fab, s, now, err, errn)))
					goto out;
				continue;
			}
			if (ev.kind == EV_DONE) {
				uint32_t f = (uint32_t)ev.id;
				if (ccs_flows_version(r.fl, f) != ev.ver)
					continue;       /* replaced by an earlier one */
				ccs_time again;
				if (!ccs_flows_due(r.fl, f, now, &again)) {
					if ((rc = ccs_evq_push(&r.q, again, EV_DONE, f, ev.ver)))
						goto out;
					continue;       /* its end moved later */
				}
				opid = ccs_flows_tag(r.fl, f);
				done_bytes = ccs_flows_bytes(r.fl, f);
				ccs_flows_remove(r.fl, f, now);
				if (!part_done(&r, opid)) {
					st->bytes_received += done_bytes;
					continue;       /* other parts of a sprayed transfer still move */
				}
			} else {
				struct ccs_op op;
				ccs_sched_get(s, ev.id, &op);
				uint32_t res[CCS_FLOW_MAXPATH];
				int n = 0;
				if (route_op(fab, s, ev.id, &op, 0, res, &n)) {
					hang_msg(fab, &op, r.struck, now, err, errn);
					rc = CCS_EINPUT;
					goto out;
				}
				if (hooks && hooks->op_start)
					hooks->op_start(hooks->ctx, ev.id, &op, now);
				if (op.kind != CCS_OP_DELAY) {
					uint32_t fid;
					/* sprayed: K parts over K of the equal paths, done when all are */
					uint32_t K = r.spray > 1 && op.kind == CCS_OP_XFER && op.bytes > 0 &&
					             ccs_fabric_crosses(fab, op.src, op.dst) ? r.spray : 1;
					for (uint32_t w = 1; w < K; w++) {
						uint32_t pr[CCS_FLOW_MAXPATH];
						int pn = 0;
						if (route_op(fab, s, ev.id, &op, w, pr, &pn)) {
							hang_msg(fab, &op, r.struck, now, err, errn);
							rc = CCS_EINPUT;
							goto out;
						}
						if ((rc = ccs_flows_add(r.fl, pr, pn, op.bytes / K, ev.id, now, &fid)))
							goto out;
					}
					if (K > 1 && (rc = part_add(&r, ev.id, K)))
						goto out;
					if ((rc = ccs_flows_add(r.fl, res, n, op.bytes / K, ev.id, now, &fid)))
						goto out;
					st->flows += K;
					st->bytes_sent += op.bytes;
					uint32_t a = ccs_flows_active(r.fl);
					if (a > st->max_active)
						st->max_active = a;
					continue;
				}
				opid = ev.id;
			}
			/* op complete: release its successors */
			done_ops++;
			last_done = now;
			if (hooks && hooks->op_end)
				hooks->op_end(hooks->ctx, opid, now);
			if (ev.kind == EV_DONE)
				st->bytes_received += done_bytes;
			uint64_t succ[CCS_SCHED_MAXSUCC];
			int ns = ccs_sched_succ(s, opid, succ);
			for (int k = 0; k < ns; k++) {
				if (cnt[succ[k]] == 0) {
					snprintf(err, errn, "op %llu released more often than it waits", (unsigned long long)succ[k]);
					rc = CCS_EINPUT;
					goto out;
				}
				if (--cnt[succ[k]] == 0) {
					struct ccs_op op;
					ccs_sched_get(s, succ[k], &op);
					if ((rc = ccs_evq_push(&r.q, now + ccs_time_from_s(op.delay_s), EV_READY, succ[k], 0)))
						goto out;
				}
			}
		}
		if ((rc = ccs_flows_update(r.fl, now, on_sched, &r)))
			goto out;
		if (hooks && hooks->rates)
			hooks->rates(hooks->ctx, r.fl, now);
	}
	st->ops = done_ops;
	/* the last completion: stale finish events of flows that sped up may
	 * still be queued after it */
	st->time_s = (double)last_done * 1e-12;
	if (done_ops != s->nops) {
		snprintf(err, errn, "deadlock: %llu of %llu ops never became ready",
		         (unsigned long long)(s->nops - done_ops), (unsigned long long)s->nops);
		rc = CCS_EINPUT;
		goto out;
	}
	rc = CCS_OK;
out:
	ccs_free(cnt);
	ccs_free(r.parts);
	ccs_evq_release(&r.q);
	if (flows_out && rc == CCS_OK)
		*flows_out = r.fl;
	else
		ccs_flows_free(r.fl);
	return rc;
}
