/* sim/cli/run/cell.c: one point: a design's communicator against one workload, closed form and simulator (run.h). */
#include "../../sched/build.h"
#include "../../synth/synth.h"
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Run s (released here) on a fresh fabric of c: its time in *t; link
 * utilisation over time into tl when not NULL. */
static int sim_sched(const struct ccs_comm *c, struct ccs_sched *s, double *t, struct timeline *tl, char *err,
                     size_t errn)
{
	struct ccs_fabric *fab = NULL;
	struct ccs_sim_stats st;
	int rc = ccs_fabric_new(c, &fab);
	if (!rc)
		rc = tl ? ccs_timeline_run(tl, fab, s, &st, err, errn) : ccs_sim_run(fab, s, &st, NULL, err, errn);
	ccs_fabric_free(fab);
	ccs_sched_release(s);
	if (!rc)
		*t = st.time_s;
	return rc;
}

/* A kvcache cell: time until the last layer lands, the rate a decode rank
 * receives at. */
static int kv_cell(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                   size_t errn)
{
	struct ccs_kv_cfg cfg = w->kvc;
	struct ccs_kv_plan p;
	struct ccs_kv_cost kc;
	int rc = ccs_kv_plan(c, &cfg, &p, err, errn);
	if (rc)
		return rc;
	rc = ccs_kv_eval(c, &cfg, &p, &kc);
	if (!rc) {
		snprintf(out->algo, sizeof out->algo, "%d->%d%s", cfg.prefill, cfg.decode, cfg.replicated ? " repl" : "");
		out->t_model = kc.time_s;
		out->bw = kc.time_s > 0 ? kc.recv_max / kc.time_s : 0;
	}
	if (!rc && engine) {
		struct ccs_sched s;
		const char *why = NULL;
		rc = ccs_sched_kvcache(c, &cfg, &p, &s, &why);
		if (rc && rc != CCS_ENOMEM)
			snprintf(err, errn, "%s", why);
		if (!rc)
			rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
	}
	ccs_kv_plan_release(&p);
	return rc;
}

/* Whether a kvcache workload fits the design (its ranks), before anything
 * runs: 0, or -1 with the reason in err. */
int ccs_cell_kv_check(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, char *err,
                    size_t errn)
{
	struct ccs_comm c;
	const struct ccs_comm *cp = gc;
	int own = w->ranks && w->ranks != gc->n;
	if (own) {
		if (ccs_comm_build(t, (int)w->ranks, (int)ppn, &c, err, errn))
			return -1;
		cp = &c;
	}
	struct ccs_kv_cfg cfg = w->kvc;
	struct ccs_kv_plan p;
	int rc = ccs_kv_plan(cp, &cfg, &p, err, errn);
	if (rc == CCS_ENOMEM)
		snprintf(err, errn, "out of memory");
	if (!rc)
		ccs_kv_plan_release(&p);
	if (own)
		ccs_comm_release(&c);
	return rc ? -1 : 0;
}

/* The workload on communicator c (the design's, or its first ranks). */
/* A collective at a size: NCCL's choice (or the workload's), its closed
 * form, and simulated where asked. */
static int coll_cell(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                     size_t errn)
{
	unsigned amask = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
	unsigned pmask = w->proto >= 0 ? 1u << w->proto : (1u << CCS_PROTO_N) - 1;
	int a, q;
	struct ccs_cost cc;
	if (ccs_select(c, w->coll, w->bytes, amask, pmask, w->algo < 0, &a, &q) ||
	    ccs_cost_eval(c, w->coll, a, q, 0, w->bytes, &cc, NULL)) {
		snprintf(err, errn, "no algorithm applies");
		return CCS_EINPUT;
	}
	snprintf(out->algo, sizeof out->algo, "%s/%s", ccs_algo_desc[a].name, ccs_proto_name[q]);
	out->t_model = cc.time_s;
	out->bw = (double)w->bytes / cc.time_s * ccs_busbw_factor(w->coll, c->n);
	out->bwterm_s = cc.bw_s;
	out->step_s = cc.step_s;
	out->lat_s = cc.time_s - cc.bw_s - cc.step_s;
	out->bound = cc.bound;
	if (engine) {
		struct ccs_sched s;
		const char *why;
		/* no schedule for NCCL's pick (NVLS AllGather ...): with the
		 * algorithm left to the tool, simulate NCCL's next choice that
		 * has one, and say so */
		int sa = a, sq = q;
		if (ccs_sched_build_next(c, w->coll, w->bytes, w->algo < 0 ? amask : 0, pmask, &sa, &sq, &s, &why)) {
			snprintf(err, errn, "%s", why);
			return CCS_EINPUT;
		}
		if (sa != a || sq != q)
			snprintf(out->algo, sizeof out->algo, "%s/%s (sim %s/%s)", ccs_algo_desc[a].name, ccs_proto_name[q],
			         ccs_algo_desc[sa].name, ccs_proto_name[sq]);
		int rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
		if (rc)
			return rc;
	}
	return CCS_OK;
}

/* A schedule synthesized for the design (sim/synth/synth.h): the kept
 * packing's LP bound as the closed form, its schedule simulated where
 * asked (the candidates simulated to choose it: ccs_synth_make). */
static int synth_cell(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                      size_t errn)
{
	struct ccs_fabric *fab = NULL;
	struct ccs_synth s;
	struct ccs_synth_cfg cfg = { w->coll, (double)w->bytes, 0, 0, 0, 0 };
	int rc = ccs_fabric_new(c, &fab);
	if (!rc)
		rc = engine ? ccs_synth_make(fab, c, &cfg, 0, 0, -1, &s, err, errn) : ccs_synth_pack(fab, c, &cfg, &s, err, errn);
	ccs_fabric_free(fab);
	if (rc)
		return rc;
	snprintf(out->algo, sizeof out->algo, "synth/Simple");
	out->t_model = s.lp_s;
	out->bw = (double)w->bytes / s.lp_s * ccs_busbw_factor(w->coll, c->n);
	if (engine)
		out->t_sim = s.cand_sim_s[s.kept];
	ccs_synth_release(&s);
	return CCS_OK;
}

/* MoE traffic: the fastest algorithm that applies (or the workload's) by
 * the closed form, and simulated where asked. */
static int moe_cell(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                    size_t errn)
{
	if (ccs_moe_check(&w->cfg, c->n, err, errn))
		return CCS_EINPUT;
	struct ccs_moe_routing r;
	if (ccs_moe_route(&w->cfg, c, NULL, &r))
		return CCS_ENOMEM;
	int best = -1, rc = CCS_OK;
	struct ccs_moe_cost bc;
	memset(&bc, 0, sizeof bc);
	for (int a = 0; a < CCS_MOE_ALGO_N; a++) {
		if (w->algo >= 0 && a != w->algo)
			continue;
		struct ccs_moe_plan p;
		struct ccs_moe_cost mc;
		/* an algorithm that does not apply is skipped; out of memory is not that */
		if ((rc = ccs_moe_plan(c, &w->cfg, &r, NULL, w->op, a, &p, err, errn)) == CCS_ENOMEM)
			break;
		if (rc) {
			rc = CCS_OK;
			continue;
		}
		rc = ccs_moe_eval(c, &p, &mc);
		ccs_moe_plan_release(&p);
		if (rc)
			break;
		if (best < 0 || mc.time_s < bc.time_s) {
			best = a;
			bc = mc;
		}
	}
	if (!rc && best < 0) {
		rc = CCS_EINPUT;
		if (w->algo < 0)
			snprintf(err, errn, "no algorithm applies");
	}
	if (!rc) {
		snprintf(out->algo, sizeof out->algo, "%s", ccs_moe_algo_name[best]);
		out->t_model = bc.time_s;
		out->bw = bc.bottleneck_Bps;
		out->lat_s = bc.lat_s;
		out->bwterm_s = bc.time_s - bc.lat_s;
		out->step_s = 0;
		out->bound = bc.bound;
		if (engine) {
			struct ccs_moe_plan p;
			struct ccs_sched s;
			const char *why;
			rc = ccs_moe_plan(c, &w->cfg, &r, NULL, w->op, best, &p, err, errn);
			if (!rc) {
				rc = ccs_sched_expert(c, &p, &s, &why);
				ccs_moe_plan_release(&p);
				if (rc)
					snprintf(err, errn, "%s", why);
			}
			if (!rc)
				rc = sim_sched(c, &s, &out->t_sim, out->tl, err, errn);
		}
	}
	ccs_moe_routing_release(&r);
	return rc;
}

static int on_comm(const struct ccs_comm *c, const struct work *w, int engine, struct cell *out, char *err,
                   size_t errn)
{
	struct timeline *tl = out->tl;
	memset(out, 0, sizeof *out);
	out->tl = tl;
	out->t_model = out->t_sim = -1;
	out->lat_s = out->bwterm_s = out->step_s = DNAN;
	out->bound = -1;
	if (w->kv)
		return kv_cell(c, w, engine, out, err, errn);
	if (w->synth)
		return synth_cell(c, w, engine, out, err, errn);
	return w->moe ? moe_cell(c, w, engine, out, err, errn) : coll_cell(c, w, engine, out, err, errn);
}

/* A workload with its own rank count runs on the design's first ranks. */
int ccs_cell_run(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, int engine,
                    struct cell *out, char *err, size_t errn)
{
	if (!w->ranks || w->ranks == gc->n)
		return on_comm(gc, w, engine, out, err, errn);
	struct ccs_comm c;
	if (ccs_comm_build(t, (int)w->ranks, (int)ppn, &c, err, errn))
		return CCS_EINPUT;
	int rc = on_comm(&c, w, engine, out, err, errn);
	ccs_comm_release(&c);
	return rc;
}

