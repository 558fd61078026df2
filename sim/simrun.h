/*
** sim/simrun.h: one run of a schedule on a fabric, as its two models see it
** (sim_flow.h per flow, sim_class.h as classes): what a run reports
** (struct ccs_sim_stats) and who may watch it (struct ccs_sim_hooks), the
** run's state, and what both models share.
*/
#ifndef CCS_SIMRUN_H
#define CCS_SIMRUN_H

#include "classes.h"
#include "engine.h"
#include "fabric.h"
#include "flow.h"
#include "sched/sched.h"

struct ccs_sim_stats {
	double time_s;
	uint64_t events, ops, flows;   /* flows: single transfers, a class's members counted */
	uint32_t max_active;           /* flows in the solver at once (a class counts once) */
	uint32_t region_max;           /* the most flows one rate update recomputed (flow.h's regions) */
	double region_mean;            /* and the mean over the updates */
	double bytes_sent, bytes_received;
	uint32_t classes;              /* lane classes of a class run (classes.h); 0: per flow */
	int lumped;                    /* 1: the class run was lumped (fabric.h, CCS_CLASSES_LUMP) */
	uint64_t class_flows;          /* class flows of a class run */
	uint32_t restarts;             /* class runs split and started again */
	const char *per_flow_why;      /* why a run was per flow (static text), NULL for a class run */
};

/* Optional observers of a run (a trace writer). */
struct ccs_sim_hooks {
	void *ctx;
	void (*op_start)(void *ctx, uint64_t op, const struct ccs_op *o, ccs_time t);
	void (*op_end)(void *ctx, uint64_t op, ccs_time t);
	/* after the rates were recomputed at time t (ccs_flows_touched) */
	void (*rates)(void *ctx, const struct ccs_flows *fl, ccs_time t);
	/* now and then, the simulated time reached (engine.h's tick): a
	 * watcher that needs no single op, so a class run stays one */
	void *tick_ctx;
	void (*tick)(void *tick_ctx, ccs_time t);
};

/* the model's events: a flow's finish (id the flow, ver its version), a
 * timed fault striking */
enum { EV_DONE = CCS_ENGINE_MODEL, EV_FAULT };

/* Parts of sprayed transfers still moving, by op: open addressing. */
struct part_ent {
	uint64_t op;
	uint32_t left;              /* 0: empty slot */
};

struct ccs_simrun {
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

/* The resources of op id's transfer (way: its part of a sprayed one; with
 * the sender's memory when the schedule times it and the fabric has it);
 * CCS_EINPUT when it has no path over live resources. */
int ccs_simrun_route(struct ccs_fabric *fab, const struct ccs_sched *s, uint64_t id, const struct ccs_op *op,
                       uint32_t way, uint32_t *res, int *n);
/* The engine's callbacks both models share: the first timed fault queued,
 * a straggler's late start, the solver's rates brought to now. */
int    ccs_simrun_begin(void *ctx, struct ccs_engine *e);
double ccs_simrun_late_s(void *ctx, const struct ccs_op *op);
int    ccs_simrun_advance(void *ctx, struct ccs_engine *e, ccs_time now);
/* A flow's finish event at now: when flow ev->id is done, it leaves the
 * solver and *op gets the op it moved (its tag) and *bytes its bytes; else
 * *op is UINT64_MAX (the event was replaced by an earlier one, or is
 * queued again for the flow's later end). */
int ccs_simrun_flow_end(struct ccs_simrun *r, struct ccs_engine *e, const struct ccs_event *ev, ccs_time now,
                        uint64_t *op, double *bytes);
/* The solver's capacities: the fabric's, a slow GPU's memory in bytes sent. */
void ccs_simrun_caps(const struct ccs_simrun *r, double *caps);

#endif
