/*
** sim/engine.h: the event loop: times, events and callbacks.
**
** The loop pops every event of the earliest time and applies it, then asks
** the model (what the ops move over, and how fast) to advance to that time,
** once per time.  An op becomes ready delay_s after its last dependency
** completed (a root op: after its own delay plus the model's late start);
** the model then starts it, and it completes either at once (a DELAY) or
** when one of the model's own events says so, and in either case no
** sooner than its floor_s after the start (the engine's own CCS_ENGINE_FLOOR
** event: max(the model's time, floor)).  Completing an op releases
** the ops that wait for it (ccs_sched_succ).
** Time is integer picoseconds (ccs_time) and never goes back; ties follow
** the sequence of the pushes (evq.h), so a run is reproducible to the byte.
** The engine knows times, events, ops and these callbacks: nothing of
** links, routes or rates (sim.h plugs the fabric and the flow solver in).
** A schedule whose ops never all complete ends with CCS_EINPUT and
** "deadlock: K of N ops never became ready": the queue empties first.
*/
#ifndef CCS_ENGINE_H
#define CCS_ENGINE_H

#include "evq.h"
#include "sched/sched.h"

struct ccs_engine;

/* Event kinds: CCS_ENGINE_READY and CCS_ENGINE_FLOOR are the engine's own
 * (an op ready to start; an op's floor passed); a model numbers its kinds from CCS_ENGINE_MODEL up. */
enum { CCS_ENGINE_READY = 0, CCS_ENGINE_FLOOR = 1, CCS_ENGINE_MODEL = 2 };

/* What ops move over.  Every callback returns a status; on CCS_EINPUT it
 * writes a one-line reason into err. */
struct ccs_engine_model {
	void *ctx;
	/* before the first event (root ops already queued): queue the model's
	 * first events */
	int (*begin)(void *ctx, struct ccs_engine *e);
	/* how much later than its delay a root op starts [s] (a straggler) */
	double (*late_s)(void *ctx, const struct ccs_op *op);
	/* op id becomes ready at now: start what it moves; *busy 1 when it
	 * completes later (through fire), 0 when it completes now */
	int (*start)(void *ctx, struct ccs_engine *e, uint64_t id, const struct ccs_op *op, ccs_time now, int *busy,
	             char *err, size_t errn);
	/* one of the model's events fires at now; *done the op it completes,
	 * UINT64_MAX when none */
	int (*fire)(void *ctx, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now, uint64_t *done,
	            char *err, size_t errn);
	/* after every event of time now */
	int (*advance)(void *ctx, struct ccs_engine *e, ccs_time now);
};

/* Optional observers (a trace writer): as ops start and complete. */
struct ccs_engine_hooks {
	void *ctx;
	void (*op_start)(void *ctx, uint64_t op, const struct ccs_op *o, ccs_time t);
	void (*op_end)(void *ctx, uint64_t op, ccs_time t);
	/* every CCS_ENGINE_TICK events, the time reached (a progress line) */
	void *tick_ctx;
	void (*tick)(void *tick_ctx, ccs_time t);
};
#define CCS_ENGINE_TICK 1024

struct ccs_engine_stats {
	double time_s;              /* the last completion */
	uint64_t events, ops;
};

/* Run schedule s against model m (hooks may be NULL); *st filled. */
int ccs_engine_run(const struct ccs_sched *s, const struct ccs_engine_model *m, const struct ccs_engine_hooks *hooks,
                   struct ccs_engine_stats *st, char *err, size_t errn);

/* For the model: queue an event of kind (>= CCS_ENGINE_MODEL) at t. */
int ccs_engine_push(struct ccs_engine *e, ccs_time t, uint32_t kind, uint64_t id, uint32_t ver);
/* For the model: 1 once every op of the schedule has completed. */
int ccs_engine_idle(const struct ccs_engine *e);

#endif
