/* sim/sim.c: the fabric and the flow solver as the engine's model (sim.h). */
#include "sim.h"

#include "classes.h"
#include "engine.h"
#include "flow.h"

#include <stdio.h>
#include <string.h>

/* the model's events: a flow's finish (id the flow, ver its version), a
 * timed fault striking */
enum { EV_DONE = CCS_ENGINE_MODEL, EV_FAULT };

/* Parts of sprayed transfers still moving, by op: open addressing. */
struct part_ent {
	uint64_t op;
	uint32_t left;              /* 0: empty slot */
};

struct run {
	struct ccs_fabric *fab;
	const struct ccs_sched *s;
	const struct ccs_sim_hooks *hooks;
	const char *struck;         /* the last timed fault that struck */
	uint32_t spray;             /* parts per network transfer (ccs_fabric_spray), 1: none */
	struct part_ent *parts;
	uint32_t pcap, pn;
	struct ccs_flows *fl;
	struct ccs_sim_stats *st;
	struct ccs_classes *cls;    /* a class run's classes, else NULL */
	int split;                  /* a class op would not start whole: split and restart */
	uint64_t split_op;          /* that class op */
	uint32_t epoch;             /* a class run's epoch: the timed faults struck so far */
	double *caps;               /* the solver's capacities (a slow GPU's memory in bytes sent) */
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
static int strike(struct run *r, struct ccs_engine *e, ccs_time now, char *err, size_t errn)
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
	return next == CCS_TIME_MAX ? CCS_OK : ccs_engine_push(e, next, EV_FAULT, 0, 0);
}

/* ---- the engine's callbacks ---- */

static int on_sched(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	return ccs_engine_push(ctx, done, EV_DONE, flow, ver);
}

static int m_begin(void *ctx, struct ccs_engine *e)
{
	struct run *r = ctx;
	ccs_time next = ccs_fabric_next_fault(r->fab);
	return next == CCS_TIME_MAX ? CCS_OK : ccs_engine_push(e, next, EV_FAULT, 0, 0);
}

/* a straggler's first ops wait for it to start */
static double m_late_s(void *ctx, const struct ccs_op *op)
{
	struct run *r = ctx;
	return op->src >= 0 ? ccs_fabric_start_s(r->fab, op->src) : 0;
}

static int m_start(void *ctx, struct ccs_engine *e, uint64_t id, const struct ccs_op *op, ccs_time now, int *busy,
                   char *err, size_t errn)
{
	(void)e;
	struct run *r = ctx;
	uint32_t res[CCS_FLOW_MAXPATH];
	int n = 0;
	*busy = 0;
	if (route_op(r->fab, r->s, id, op, 0, res, &n)) {
		hang_msg(r->fab, op, r->struck, now, err, errn);
		return CCS_EINPUT;
	}
	if (op->kind == CCS_OP_DELAY)
		return CCS_OK;
	uint32_t fid;
	/* sprayed: K parts over K of the equal paths, done when all are */
	uint32_t K = r->spray > 1 && op->kind == CCS_OP_XFER && op->bytes > 0 &&
	             ccs_fabric_crosses(r->fab, op->src, op->dst) ? r->spray : 1;
	for (uint32_t w = 1; w < K; w++) {
		uint32_t pr[CCS_FLOW_MAXPATH];
		int pn = 0;
		if (route_op(r->fab, r->s, id, op, w, pr, &pn)) {
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

/* A flow's finish event at now: *ended 1 when flow ev->id is done (else
 * the event was replaced by an earlier one, or is queued again for the
 * flow's later end). */
static int flow_ended(struct run *r, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now, int *ended)
{
	uint32_t f = (uint32_t)ev->id;
	*ended = 0;
	if (ccs_flows_version(r->fl, f) != ev->ver)
		return CCS_OK;          /* replaced by an earlier one */
	ccs_time again;
	if (!ccs_flows_due(r->fl, f, now, &again))
		return ccs_engine_push(e, again, EV_DONE, f, ev->ver);   /* its end moved later */
	*ended = 1;
	return CCS_OK;
}

static int m_fire(void *ctx, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now, uint64_t *done,
                  char *err, size_t errn)
{
	struct run *r = ctx;
	if (ev->kind == EV_FAULT)
		return strike(r, e, now, err, errn);
	int ended;
	CCS_TRY(flow_ended(r, e, ev, now, &ended));
	if (!ended)
		return CCS_OK;
	uint32_t f = (uint32_t)ev->id;
	uint64_t opid = ccs_flows_tag(r->fl, f);
	r->st->bytes_received += ccs_flows_bytes(r->fl, f);
	ccs_flows_remove(r->fl, f, now);
	/* other parts of a sprayed transfer may still move */
	if (part_done(r, opid))
		*done = opid;
	return CCS_OK;
}

static int m_advance(void *ctx, struct ccs_engine *e, ccs_time now)
{
	struct run *r = ctx;
	CCS_TRY(ccs_flows_update(r->fl, now, on_sched, e));
	if (r->hooks && r->hooks->rates)
		r->hooks->rates(r->hooks->ctx, r->fl, now);
	return CCS_OK;
}

/* ---- a class run (classes.h): class ops as weighted flows ---- */

static int cl_route(void *ctx, uint64_t id, const struct ccs_op *op, uint32_t *res, int *n)
{
	struct run *r = ctx;
	return route_op(r->fab, r->s, id, op, 0, res, n);
}

static int c_start(void *ctx, struct ccs_engine *e, uint64_t id, const struct ccs_op *op, ccs_time now, int *busy,
                   char *err, size_t errn)
{
	(void)e;
	struct run *r = ctx;
	*busy = 0;
	if (!ccs_classes_whole(r->cls, id)) {
		r->split = 1;
		r->split_op = id;
		snprintf(err, errn, "a class would not start whole");
		return CCS_EINPUT;
	}
	uint32_t m = ccs_classes_members(r->cls, (uint32_t)(id % ccs_classes_count(r->cls)));
	r->st->flows += op->kind == CCS_OP_DELAY ? 0 : m;
	if (op->kind == CCS_OP_DELAY) {
		ccs_classes_done(r->cls, id, now);
		return CCS_OK;
	}
	const uint32_t *res;
	const double *w;
	int n = ccs_classes_path(r->cls, id, r->epoch, &res, &w);
	uint32_t fid;
	CCS_TRY(ccs_flows_add_w(r->fl, res, w, n, op->bytes, id, now, &fid));
	r->st->class_flows++;
	r->st->bytes_sent += op->bytes * m;
	uint32_t a = ccs_flows_active(r->fl);
	if (a > r->st->max_active)
		r->st->max_active = a;
	*busy = 1;
	return CCS_OK;
}

/* A timed fault strikes a class run at now: the resource classes get the
 * next epoch's capacities, and every class op crossing a dead one moves to
 * its class's path in that epoch with what it has left (classes.h: every
 * member of a dead class is dead, and every member of the class op crosses
 * it). */
static int c_strike(struct run *r, struct ccs_engine *e, ccs_time now)
{
	const uint32_t *chg;
	uint32_t nchg;
	const char *spec;
	CCS_TRY(ccs_fabric_strike(r->fab, &chg, &nchg, &spec));
	if (spec)
		r->struck = spec;
	uint32_t e1 = r->epoch + 1, R = ccs_classes_nres(r->cls);
	if (e1 >= ccs_classes_epochs(r->cls))
		return CCS_EINTERNAL;
	const double *c0 = ccs_classes_caps(r->cls, r->epoch), *c1 = ccs_classes_caps(r->cls, e1);
	r->epoch = e1;
	int dead = 0;
	for (uint32_t x = 0; x < R; x++)
		if (c0[x] != c1[x]) {
			CCS_TRY(ccs_flows_set_cap(r->fl, x, c1[x], now));
			dead |= !(c1[x] > 0);
		}
	for (uint32_t id = 0; dead && id < ccs_flows_count(r->fl); id++) {
		const uint32_t *path, *res;
		const double *w;
		int n = ccs_flows_path(r->fl, id, &path), cut = 0;
		for (int i = 0; i < n && !cut; i++)
			cut = !(c1[path[i]] > 0);
		if (!cut)
			continue;
		int m = ccs_classes_path(r->cls, ccs_flows_tag(r->fl, id), e1, &res, &w);
		CCS_TRY(ccs_flows_reroute_w(r->fl, id, res, w, m, now));
	}
	ccs_time next = ccs_fabric_next_fault(r->fab);
	return next == CCS_TIME_MAX ? CCS_OK : ccs_engine_push(e, next, EV_FAULT, 0, 0);
}

static int c_fire(void *ctx, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now, uint64_t *done,
                  char *err, size_t errn)
{
	(void)err;
	(void)errn;
	struct run *r = ctx;
	if (ev->kind == EV_FAULT)
		return c_strike(r, e, now);
	int ended;
	CCS_TRY(flow_ended(r, e, ev, now, &ended));
	if (!ended)
		return CCS_OK;
	uint32_t f = (uint32_t)ev->id;
	uint64_t opid = ccs_flows_tag(r->fl, f);
	uint32_t m = ccs_classes_members(r->cls, (uint32_t)(opid % ccs_classes_count(r->cls)));
	r->st->bytes_received += ccs_flows_bytes(r->fl, f) * m;
	ccs_flows_remove(r->fl, f, now);
	ccs_classes_done(r->cls, opid, now);
	*done = opid;
	return CCS_OK;
}

/* Whether s may run as classes on this fabric at all: lanes, no observer
 * of single ops, no spraying, not switched off. */
static int classes_apply(const struct run *r)
{
	const struct ccs_sim_hooks *h = r->hooks;
	return !(h && (h->op_start || h->op_end || h->rates)) && r->spray <= 1 && ccs_fabric_classes(r->fab) && r->s->ops && r->s->ops->lanes;
}

/* Run s on the classes r->cls.  *ran 0 when their schedule does not apply
 * or a class would not start whole (r->split; then nothing is kept but
 * the classes). */
static int run_classes(struct run *r, struct ccs_engine_stats *es, int *ran, char *err, size_t errn)
{
	*ran = 0;
	const char *why;
	struct ccs_sched q;
	int rc = ccs_classes_sched(r->cls, &q, &why);
	if (rc == CCS_EINPUT) {
		r->st->per_flow_why = why;
		rc = CCS_OK;
	} else if (!rc)
		rc = ccs_flows_new(&r->fl, ccs_classes_nres(r->cls), ccs_classes_caps(r->cls, 0));
	if (rc || !r->fl)
		return rc;
	ccs_fabric_rewind(r->fab);
	r->epoch = 0;
	r->struck = NULL;
	const struct ccs_engine_model model = { r, m_begin, m_late_s, c_start, c_fire, m_advance };
	const struct ccs_engine_hooks eh = { NULL, NULL, NULL, r->hooks ? r->hooks->tick_ctx : NULL,
	                                     r->hooks ? r->hooks->tick : NULL };
	struct ccs_sim_stats keep = *r->st;
	rc = ccs_engine_run(&q, &model, &eh, es, err, errn);
	if (rc == CCS_EINPUT && r->split) {
		*r->st = keep;
		r->st->per_flow_why = "a class would not start whole";
		ccs_flows_free(r->fl);
		r->fl = NULL;
		return CCS_OK;
	}
	*ran = 1;
	r->st->classes = ccs_classes_count(r->cls);
	r->st->per_flow_why = NULL;
	return rc;
}

/* Drop a class run's state (after it gave up, or after its results were
 * spread back). */
static void drop_classes(struct run *r)
{
	ccs_flows_free(r->fl);
	r->fl = NULL;
	ccs_classes_free(r->cls);
	r->cls = NULL;
	r->split = 0;
}

/* ---- a run ---- */

/* The flow solver over the fabric's resources, a slow GPU's memory timed in
 * bytes sent. */
static void fill_caps(const struct run *r, double *caps)
{
	memcpy(caps, ccs_fabric_caps(r->fab), (size_t)ccs_fabric_nres(r->fab) * sizeof *caps);
	for (int a = 0; r->s->mem_per_byte > 0 && a < ccs_fabric_ranks(r->fab); a++) {
		uint32_t m = ccs_fabric_mem(r->fab, a);
		if (m != UINT32_MAX)
			caps[m] = ccs_fabric_caps(r->fab)[m] / r->s->mem_per_byte;
	}
}

static int solver_caps(struct run *r)
{
	r->caps = ccs_malloc(((size_t)ccs_fabric_nres(r->fab) + 1) * sizeof *r->caps);
	if (!r->caps)
		return CCS_ENOMEM;
	fill_caps(r, r->caps);
	return CCS_OK;
}

/* The classes' way to the next epoch: the next strike, and its capacities
 * as the solver sees them. */
static int cl_epoch(void *ctx, uint32_t e, double *cap)
{
	struct run *r = ctx;
	const uint32_t *chg;
	uint32_t nchg;
	const char *spec;
	(void)e;
	CCS_TRY(ccs_fabric_strike(r->fab, &chg, &nchg, &spec));
	fill_caps(r, cap);
	return CCS_OK;
}

static int open_flows(struct run *r)
{
	return ccs_flows_new(&r->fl, ccs_fabric_nres(r->fab), r->caps);
}

/* As classes where they apply, splitting and starting again while a class
 * would not start whole (at most CCS_SIM_RESTARTS times); else per flow. */
#define CCS_SIM_RESTARTS 64
#define CCS_SIM_DEPS_AFTER 8
static int try_classes(struct run *r, struct ccs_engine_stats *es, int *ran, char *err, size_t errn)
{
	struct ccs_sched_lanes ln;
	*ran = 0;
	if (!r->s->ops->lanes(r->s, &ln)) {
		r->st->per_flow_why = "the schedule gives no lanes here";
		return CCS_OK;
	}
	const struct ccs_classes_env env = { r, cl_route, m_late_s, ccs_fabric_nres(r->fab), r->caps,
	                                     ccs_fabric_epochs(r->fab), cl_epoch };
	const char *why;
	/* worth it only well below one class per lane */
	int brc = ccs_classes_new(r->s, &env, ln.L / 2, 256, &r->cls, &why);
	ccs_fabric_rewind(r->fab);
	CCS_TRY(brc);
	r->st->per_flow_why = why;
	int rc = CCS_OK;
	for (int k = 0; r->cls && !rc && k <= CCS_SIM_RESTARTS; k++) {
		rc = run_classes(r, es, ran, err, errn);
		if (rc || *ran || !r->split)
			break;
		r->split = 0;
		r->st->restarts++;
		memset(es, 0, sizeof *es);
		rc = ccs_classes_split(r->cls, r->split_op, &why);
		/* still splitting after a few restarts: the dependencies tell the
		 * rest apart at once, where they settle */
		if (!rc && !why && r->st->restarts == CCS_SIM_DEPS_AFTER)
			rc = ccs_classes_by_deps(r->cls, &why);
		if (!rc && why) {
			r->st->per_flow_why = why;
			break;
		}
	}
	if (!rc && !*ran)
		drop_classes(r);
	return rc;
}

/* Per flow, or as classes where they apply. */
static int run_any(struct run *r, const struct ccs_engine_model *model, const struct ccs_engine_hooks *eh,
                   struct ccs_engine_stats *es, char *err, size_t errn)
{
	int apply = classes_apply(r);
	r->st->per_flow_why = apply ? NULL : "classes off (per flow asked, observers, spraying, or no lanes)";
	if (apply) {
		int ran;
		CCS_TRY(try_classes(r, es, &ran, err, errn));
		if (ran)
			return CCS_OK;
		memset(es, 0, sizeof *es);
		ccs_fabric_rewind(r->fab);
		r->struck = NULL;
	}
	CCS_TRY(open_flows(r));
	return ccs_engine_run(r->s, model, eh, es, err, errn);
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
	r.fab = fab;
	r.s = s;
	r.hooks = hooks;
	r.st = st;
	ccs_fabric_rewind(fab);
	r.spray = ccs_fabric_spray(fab);
	const struct ccs_engine_model model = { &r, m_begin, m_late_s, m_start, m_fire, m_advance };
	struct ccs_engine_hooks eh = { hooks ? hooks->ctx : NULL, hooks ? hooks->op_start : NULL,
	                               hooks ? hooks->op_end : NULL, hooks ? hooks->tick_ctx : NULL,
	                               hooks ? hooks->tick : NULL };
	struct ccs_engine_stats es;
	memset(&es, 0, sizeof es);
	int rc = solver_caps(&r);
	if (!rc)
		rc = run_any(&r, &model, &eh, &es, err, errn);
	if (rc == CCS_EINPUT && r.fl && ccs_flows_beyond(r.fl))
		snprintf(err, errn, "a transfer ends past the simulator's horizon (2^63 ps, about 106 days): a rate too "
		         "low or a size too large for integer picoseconds");
	if (rc != CCS_ENOMEM || es.events) {
		st->time_s = es.time_s;
		st->events = es.events;
		/* a class run counts the ops its class ops stand for */
		st->ops = !r.cls ? es.ops : rc ? 0 : s->nops;
	}
	ccs_free(r.parts);
	if (r.cls && flows_out && rc == CCS_OK) {
		/* a class run: each resource gets its class's statistics, and
		 * the capacity it has at the end (after the faults that struck) */
		fill_caps(&r, r.caps);
		rc = ccs_flows_expand(r.fl, ccs_fabric_nres(fab), r.caps, ccs_classes_of_res(r.cls), flows_out);
		drop_classes(&r);
	} else if (flows_out && rc == CCS_OK)
		*flows_out = r.fl;
	else {
		ccs_flows_free(r.fl);
		ccs_classes_free(r.cls);
	}
	ccs_free(r.caps);
	return rc;
}
