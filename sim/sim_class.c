/*
** sim/sim_class.c: a class run (classes.h): class ops as weighted flows of
** the solver, restarted on finer classes while one would not start whole
** (sim_class.h).
*/
#include "sim_class.h"

#include <stdio.h>
#include <string.h>

static int cl_route(void *ctx, uint64_t id, const struct ccs_op *op, uint32_t *res, int *n)
{
	struct ccs_simrun *r = ctx;
	return ccs_simrun_route(r->fab, r->s, id, op, 0, res, n);
}

static int c_start(void *ctx, struct ccs_engine *e, uint64_t id, const struct ccs_op *op, ccs_time now, int *busy,
                   char *err, size_t errn)
{
	(void)e;
	struct ccs_simrun *r = ctx;
	*busy = 0;
	/* lumped: the class op starts with its last member (fabric.h) */
	if (ccs_fabric_classes(r->fab) == CCS_CLASSES_EXACT && !ccs_classes_whole(r->cls, id)) {
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
static int c_strike(struct ccs_simrun *r, struct ccs_engine *e, ccs_time now)
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
	struct ccs_simrun *r = ctx;
	if (ev->kind == EV_FAULT)
		return c_strike(r, e, now);
	uint64_t opid;
	double bytes;
	CCS_TRY(ccs_simrun_flow_end(r, e, ev, now, &opid, &bytes));
	if (opid == UINT64_MAX)
		return CCS_OK;
	uint32_t m = ccs_classes_members(r->cls, (uint32_t)(opid % ccs_classes_count(r->cls)));
	r->st->bytes_received += bytes * m;
	ccs_classes_done(r->cls, opid, now);
	*done = opid;
	return CCS_OK;
}

/* Whether s may run as classes on this fabric at all: lanes, no observer
 * of single ops, no spraying, not switched off. */
int ccs_sim_class_apply(const struct ccs_simrun *r)
{
	const struct ccs_sim_hooks *h = r->hooks;
	return !(h && (h->op_start || h->op_end || h->rates)) && r->spray <= 1 && ccs_fabric_classes(r->fab) && r->s->ops && r->s->ops->lanes;
}

/* Run s on the classes r->cls.  *ran 0 when their schedule does not apply
 * or a class would not start whole (r->split; then nothing is kept but
 * the classes). */
static int run_classes(struct ccs_simrun *r, struct ccs_engine_stats *es, int *ran, char *err, size_t errn)
{
	*ran = 0;
	const char *why;
	struct ccs_sched q;
	int lump = ccs_fabric_classes(r->fab) == CCS_CLASSES_LUMP;
	int rc = ccs_classes_sched(r->cls, lump ? UINT32_MAX : 255, &q, &why);
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
	const struct ccs_engine_model model = { r, ccs_simrun_begin, ccs_simrun_late_s, c_start, c_fire, ccs_simrun_advance };
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
	r->st->lumped = lump;
	r->st->per_flow_why = NULL;
	return rc;
}

/* Drop a class run's state (after it gave up, or after its results were
 * spread back). */
void ccs_sim_class_drop(struct ccs_simrun *r)
{
	ccs_flows_free(r->fl);
	r->fl = NULL;
	ccs_classes_free(r->cls);
	r->cls = NULL;
	r->split = 0;
}

/* The classes' way to the next epoch: the next strike, and its capacities
 * as the solver sees them. */
static int cl_epoch(void *ctx, uint32_t e, double *cap)
{
	struct ccs_simrun *r = ctx;
	const uint32_t *chg;
	uint32_t nchg;
	const char *spec;
	(void)e;
	CCS_TRY(ccs_fabric_strike(r->fab, &chg, &nchg, &spec));
	ccs_simrun_caps(r, cap);
	return CCS_OK;
}

/* As classes where they apply, splitting and starting again while a class
 * would not start whole (at most CCS_SIM_RESTARTS times); else per flow.
 * Lumped (fabric.h), the first classes run once, whole or not.
 * The first time a class op would not start whole or would wait on too
 * many classes, the lanes are first told apart by what they wait for
 * within a step (ccs_classes_by_deps): a tree's lanes by their subtrees
 * and their paths to the root, which a run would otherwise find one class
 * a restart (a 16-channel tree on 512 ranks: 65 restarts, one class each,
 * then per flow; 800 classes at once). */
#define CCS_SIM_RESTARTS 64
#define CCS_SIM_DEPS_AFTER 8
int ccs_sim_class_try(struct ccs_simrun *r, struct ccs_engine_stats *es, int *ran, char *err, size_t errn)
{
	struct ccs_sched_lanes ln;
	*ran = 0;
	if (!r->s->ops->lanes(r->s, &ln)) {
		r->st->per_flow_why = "the schedule gives no lanes here";
		return CCS_OK;
	}
	const struct ccs_classes_env env = { r, cl_route, ccs_simrun_late_s, ccs_fabric_nres(r->fab), r->caps,
	                                     ccs_fabric_epochs(r->fab), cl_epoch };
	const char *why;
	/* worth it only well below one class per lane */
	int brc = ccs_classes_new(r->s, &env, ln.L / 2, 256, &r->cls, &why);
	ccs_fabric_rewind(r->fab);
	CCS_TRY(brc);
	r->st->per_flow_why = why;
	int rc = CCS_OK, step_deps = 0, kept;
	for (int k = 0; r->cls && !rc && k <= CCS_SIM_RESTARTS; k++) {
		rc = run_classes(r, es, ran, err, errn);
		int split = r->split;   /* else a class op waits on too many classes */
		if (rc || *ran || (!split && step_deps) || ccs_fabric_classes(r->fab) == CCS_CLASSES_LUMP)
			break;
		why = NULL;
		if (split) {
			r->split = 0;
			r->st->restarts++;
			memset(es, 0, sizeof *es);
			rc = ccs_classes_split(r->cls, r->split_op, &why);
			/* still splitting after a few restarts: the dependencies
			 * of every kind tell the rest apart at once, where they
			 * settle within twice the classes */
			if (!rc && !why && r->st->restarts == CCS_SIM_DEPS_AFTER)
				rc = ccs_classes_by_deps(r->cls, 1, 2, &kept, &why);
		}
		if (!rc && !why && !step_deps) {
			step_deps = 1;
			rc = ccs_classes_by_deps(r->cls, 0, 0, &kept, &why);
			if (!rc && !why && !kept && !split)
				break;  /* nothing changed: it still would */
		}
		if (!rc && why) {
			r->st->per_flow_why = why;
			break;
		}
	}
	if (!rc && !*ran)
		ccs_sim_class_drop(r);
	return rc;
}
