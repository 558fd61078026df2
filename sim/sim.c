/*
** sim/sim.c: a run of a schedule on a fabric (sim.h): as classes where they
** apply (sim_class.c), else per flow (sim_flow.c), and what the run leaves.
*/
#include "sim.h"

#include "sim_class.h"
#include "sim_flow.h"

#include <stdio.h>
#include <string.h>

/* ---- a run ---- */

static int solver_caps(struct ccs_simrun *r)
{
	r->caps = ccs_malloc(((size_t)ccs_fabric_nres(r->fab) + 1) * sizeof *r->caps);
	if (!r->caps)
		return CCS_ENOMEM;
	ccs_simrun_caps(r, r->caps);
	return CCS_OK;
}

static int open_flows(struct ccs_simrun *r)
{
	return ccs_flows_new(&r->fl, ccs_fabric_nres(r->fab), r->caps);
}

/* Per flow, or as classes where they apply. */
static int run_any(struct ccs_simrun *r, const struct ccs_engine_model *model, const struct ccs_engine_hooks *eh,
                   struct ccs_engine_stats *es, char *err, size_t errn)
{
	int apply = ccs_sim_class_apply(r);
	r->st->per_flow_why = apply ? NULL : "classes off (per flow asked, observers, spraying, or no lanes)";
	if (apply) {
		int ran;
		CCS_TRY(ccs_sim_class_try(r, es, &ran, err, errn));
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
	struct ccs_simrun r;
	memset(&r, 0, sizeof r);
	memset(st, 0, sizeof *st);
	r.fab = fab;
	r.s = s;
	r.hooks = hooks;
	r.st = st;
	ccs_fabric_rewind(fab);
	r.spray = ccs_fabric_spray(fab);
	struct ccs_engine_model model;
	ccs_sim_flow_model(&r, &model);
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
		if (r.fl)
			ccs_flows_regions(r.fl, &st->region_max, &st->region_mean);
		/* a class run counts the ops its class ops stand for */
		st->ops = !r.cls ? es.ops : rc ? 0 : s->nops;
	}
	ccs_free(r.parts);
	if (r.cls && flows_out && rc == CCS_OK) {
		/* a class run: each resource gets its class's statistics, and
		 * the capacity it has at the end (after the faults that struck) */
		ccs_simrun_caps(&r, r.caps);
		rc = ccs_flows_expand(r.fl, ccs_fabric_nres(fab), r.caps, ccs_classes_of_res(r.cls), flows_out);
		ccs_sim_class_drop(&r);
	} else if (flows_out && rc == CCS_OK)
		*flows_out = r.fl;
	else {
		ccs_flows_free(r.fl);
		ccs_classes_free(r.cls);
	}
	ccs_free(r.caps);
	return rc;
}
