/* sim/engine.c: the event loop (engine.h). */
#include "engine.h"

#include <stdio.h>
#include <string.h>

/* An op waiting for more dependencies than a byte counts (a class op of
 * a lumped class run, classes.h, can wait for thousands); few do. */
#define MANY 255
struct many {
	uint64_t id;
	uint32_t n;
};

struct ccs_engine {
	const struct ccs_sched *s;
	const struct ccs_engine_model *m;
	const struct ccs_engine_hooks *hooks;
	struct ccs_evq q;
	uint8_t *waits;             /* per op: dependencies not yet complete
	                               (MANY: the count is in many[]); once
	                               started, 1 while its floor or the model's
	                               completion is still to come */
	struct many *many;          /* ops waiting for MANY or more, by id */
	uint64_t nmany;
	uint64_t *succ;             /* room for the most ops one op releases */
	uint64_t done_ops;
	ccs_time last_done;
	char *err;
	size_t errn;
};

int ccs_engine_push(struct ccs_engine *e, ccs_time t, uint32_t kind, uint64_t id, uint32_t ver)
{
	return ccs_evq_push(&e->q, t, kind, id, ver);
}

int ccs_engine_idle(const struct ccs_engine *e)
{
	return e->done_ops >= e->s->nops;
}

/* Count each op's dependencies and queue the roots. */
static int queue_roots(struct ccs_engine *e)
{
	const struct ccs_sched *s = e->s;
	e->waits = ccs_malloc(s->nops ? s->nops : 1);
	if (!e->waits)
		return CCS_ENOMEM;
	uint64_t room = 0;
	for (uint64_t i = 0; i < s->nops; i++) {
		uint32_t d = ccs_sched_ndeps(s, i);
		e->waits[i] = (uint8_t)(d < MANY ? d : MANY);
		if (d >= MANY) {
			if (e->nmany == room) {
				room = room ? 2 * room : 64;
				struct many *m = ccs_realloc(e->many, room * sizeof *m);
				if (!m)
					return CCS_ENOMEM;
				e->many = m;
			}
			e->many[e->nmany++] = (struct many){ i, d };
		}
		if (!d) {
			struct ccs_op op;
			ccs_sched_get(s, i, &op);
			double late = e->m->late_s ? e->m->late_s(e->m->ctx, &op) : 0;
			CCS_TRY(ccs_evq_push(&e->q, ccs_time_from_s(op.delay_s + late), CCS_ENGINE_READY, i, 0));
		}
	}
	return CCS_OK;
}

/* One dependency of op id completed: whether it was the last. */
static int release_one(struct ccs_engine *e, uint64_t id)
{
	if (e->waits[id] != MANY)
		return --e->waits[id] == 0;
	uint64_t lo = 0, hi = e->nmany;   /* ids ascending: queued in order */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (e->many[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (--e->many[lo].n)
		return 0;
	e->waits[id] = 0;
	return 1;
}

/* Op id completed at now: release the ops that wait for it. */
static int complete(struct ccs_engine *e, uint64_t id, ccs_time now)
{
	e->done_ops++;
	e->last_done = now;
	if (e->hooks && e->hooks->op_end)
		e->hooks->op_end(e->hooks->ctx, id, now);
	uint64_t *succ = e->succ;
	int ns = ccs_sched_succ(e->s, id, succ);
	for (int k = 0; k < ns; k++) {
		if (e->waits[succ[k]] == 0) {
			snprintf(e->err, e->errn, "op %llu released more often than it waits", (unsigned long long)succ[k]);
			return CCS_EINPUT;
		}
		if (release_one(e, succ[k])) {
			struct ccs_op op;
			ccs_sched_get(e->s, succ[k], &op);
			ccs_time at = ccs_time_after(now, op.delay_s);
			if (at == CCS_TIME_MAX) {
				snprintf(e->err, e->errn, "op %llu starts past the simulator's horizon (2^63 ps, about 106 "
				         "days)", (unsigned long long)succ[k]);
				return CCS_EINPUT;
			}
			CCS_TRY(ccs_evq_push(&e->q, at, CCS_ENGINE_READY, succ[k], 0));
		}
	}
	return CCS_OK;
}

/* One of op id's two ends (the model's completion, its floor) at now: the
 * op completes with the second. */
static int end_part(struct ccs_engine *e, uint64_t id, ccs_time now)
{
	if (e->waits[id]) {
		e->waits[id] = 0;
		return CCS_OK;
	}
	return complete(e, id, now);
}

/* One event at now: an op starting, its floor passing, or the model's. */
static int apply(struct ccs_engine *e, const struct ccs_event *ev, ccs_time now)
{
	const struct ccs_engine_model *m = e->m;
	if (ev->kind == CCS_ENGINE_FLOOR)
		return end_part(e, ev->id, now);
	if (ev->kind != CCS_ENGINE_READY) {
		uint64_t done = UINT64_MAX;
		/* after the last op the model's events have nothing left to do */
		if (!ccs_engine_idle(e))
			CCS_TRY(m->fire(m->ctx, e, ev, now, &done, e->err, e->errn));
		return done == UINT64_MAX ? CCS_OK : end_part(e, done, now);
	}
	struct ccs_op op;
	int busy = 0;
	ccs_sched_get(e->s, ev->id, &op);
	CCS_TRY(m->start(m->ctx, e, ev->id, &op, now, &busy, e->err, e->errn));
	if (e->hooks && e->hooks->op_start)
		e->hooks->op_start(e->hooks->ctx, ev->id, &op, now);
	if (op.floor_s > 0) {
		ccs_time at = ccs_time_after(now, op.floor_s);
		if (at == CCS_TIME_MAX) {
			snprintf(e->err, e->errn, "op %llu ends past the simulator's horizon (2^63 ps, about 106 days)",
			         (unsigned long long)ev->id);
			return CCS_EINPUT;
		}
		CCS_TRY(ccs_evq_push(&e->q, at, CCS_ENGINE_FLOOR, ev->id, 0));
		/* the floor is the second end when the op is busy, the only one when not */
		e->waits[ev->id] = (uint8_t)busy;
		return CCS_OK;
	}
	return busy ? CCS_OK : complete(e, ev->id, now);
}

static int loop(struct ccs_engine *e, struct ccs_engine_stats *st)
{
	ccs_time now = 0;
	struct ccs_event ev;
	while (ccs_evq_peek(&e->q) != CCS_TIME_MAX) {
		ccs_time t = ccs_evq_peek(&e->q);
		if (t < now) {
			snprintf(e->err, e->errn, "internal: time went back");
			return CCS_EINTERNAL;
		}
		now = t;
		while (ccs_evq_peek(&e->q) == now) {
			ccs_evq_pop(&e->q, &ev);
			st->events++;
			if (!(st->events % CCS_ENGINE_TICK) && e->hooks && e->hooks->tick)
				e->hooks->tick(e->hooks->tick_ctx, now);
			CCS_TRY(apply(e, &ev, now));
		}
		CCS_TRY(e->m->advance(e->m->ctx, e, now));
	}
	return CCS_OK;
}

int ccs_engine_run(const struct ccs_sched *s, const struct ccs_engine_model *m, const struct ccs_engine_hooks *hooks,
                   struct ccs_engine_stats *st, char *err, size_t errn)
{
	struct ccs_engine e;
	memset(&e, 0, sizeof e);
	memset(st, 0, sizeof *st);
	e.s = s;
	e.m = m;
	e.hooks = hooks;
	e.err = err;
	e.errn = errn;
	ccs_evq_init(&e.q);
	size_t nsucc = s->maxsucc > CCS_SCHED_MAXSUCC ? s->maxsucc : CCS_SCHED_MAXSUCC;
	e.succ = ccs_malloc(nsucc * sizeof *e.succ);
	int rc = e.succ ? queue_roots(&e) : CCS_ENOMEM;
	if (!rc && m->begin)
		rc = m->begin(m->ctx, &e);
	if (!rc)
		rc = loop(&e, st);
	st->ops = e.done_ops;
	/* the last completion: stale events of the model may still have been
	 * queued after it */
	st->time_s = ccs_time_to_s(e.last_done);
	if (!rc && e.done_ops != s->nops) {
		snprintf(err, errn, "deadlock: %llu of %llu ops never became ready",
		         (unsigned long long)(s->nops - e.done_ops), (unsigned long long)s->nops);
		rc = CCS_EINPUT;
	}
	ccs_free(e.waits);
	ccs_free(e.many);
	ccs_free(e.succ);
	ccs_evq_release(&e.q);
	return rc;
}
