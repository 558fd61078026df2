/* sim/cli/run/exec.c: running the points in workers and storing their results as they come (run.h). */
#include "run.h"
#include "../progress.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *me = "ccsim run";

/* ---- running points ---- */

int ccs_exec_compute(void *ctx, size_t task, void *res)
{
	struct scen *S = ctx;
	const struct point *pt = &S->pt[task];
	const struct inst *in = &S->inst[pt->inst];
	const struct winst *wi = &S->wi[pt->wi];
	const struct design *g = &S->gs[in->design];
	struct job *j = res;
	struct cell ce;
	memset(&ce, 0, sizeof ce);
	struct timeline tl;
	memset(&tl, 0, sizeof tl);
	if (pt->heat && S->plots && S->engine) {
		char a[128], b[128];
		ccs_plot_slug(g->name, a, sizeof a);
		ccs_plot_slug(S->ws[wi->work].name, b, sizeof b);
		snprintf(tl.path, sizeof tl.path, "%.900s/links-%.100s-%.100s-%zu.dat", S->outdir, a, b, (size_t)pt->inst);
		tl.title = pt->key;
		ce.tl = &tl;
	}
	int rc = ccs_cell_run(in->t, &in->c, g->ppn, &wi->w, S->engine, &ce, j->err, sizeof j->err);
	if (rc == CCS_ENOMEM)
		snprintf(j->err, sizeof j->err, "out of memory");
	struct ccs_result *r = &j->r;
	r->ranks = wi->w.ranks ? (int)wi->w.ranks : in->c.n;
	snprintf(r->collective, sizeof r->collective, "%s",
	         wi->w.kv ? "kvcache" : wi->w.moe ? ccs_moe_op_name[wi->w.op] : ccs_coll_cli[wi->w.coll]);
	snprintf(r->algo, sizeof r->algo, "%s", ce.algo);
	snprintf(r->bound, sizeof r->bound, "%s", ce.bound >= 0 ? ccs_bound_name[ce.bound] : "");
	r->size = wi->w.moe || wi->w.kv ? 0 : wi->w.bytes;
	r->t_model_s = S->engine != 1 && ce.t_model >= 0 ? ce.t_model : DNAN;
	r->t_sim_s = S->engine && ce.t_sim >= 0 ? ce.t_sim : DNAN;
	r->bw_model_Bps = S->engine != 1 ? ce.bw : DNAN;
	r->bw_sim_Bps = S->engine && ce.t_sim > 0 && ce.t_model > 0 ? ce.bw * ce.t_model / ce.t_sim : DNAN;
	r->lat_s = ce.lat_s;
	r->bwterm_s = ce.bwterm_s;
	r->step_s = ce.step_s;
	return rc;
}

int ccs_exec_flush_results(struct scen *S)
{
	if (!S->npending)
		return 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_add_results(S->db, S->scen_id, S->pending, S->npending, &d)) {
		fprintf(stderr, "\n%s\n", d.msg);
		return -1;
	}
	S->stored += S->npending;
	S->npending = 0;
	return 0;
}

int ccs_exec_collect(void *ctx, size_t task, int rc, const void *res)
{
	struct scen *S = ctx;
	const struct job *j = res;
	const struct point *pt = &S->pt[task];
	if (rc) {
		fprintf(stderr, "\n%s: %s: %s: %s\n", me, S->path, pt->key, j->err[0] ? j->err : "failed");
		S->failed++;
		return 0;
	}
	if (ccs_grow(&S->pending, &S->cap_pending, S->npending + 1, sizeof *S->pending))
		return 1;
	struct ccs_result *r = &S->pending[S->npending++];
	*r = j->r;
	const struct inst *in = &S->inst[pt->inst];
	snprintf(r->point, sizeof r->point, "%s", pt->key);
	r->ord = (int64_t)pt->ord;
	snprintf(r->topo_hash, sizeof r->topo_hash, "%s", in->hash);
	snprintf(r->design, sizeof r->design, "%s", S->gs[in->design].name);
	snprintf(r->workload, sizeof r->workload, "%s", S->ws[S->wi[pt->wi].work].name);
	snprintf(r->axes, sizeof r->axes, "%s%s%s", in->axes, in->axes[0] && S->wi[pt->wi].axes[0] ? " " : "",
	         S->wi[pt->wi].axes);
	/* each batch is one transaction: at most a quarter second of work is
	 * in memory when a signal comes */
	double now = ccs_progress_now();
	if (S->npending >= 256 || now - S->last_flush > 0.25) {
		S->last_flush = now;
		if (ccs_exec_flush_results(S))
			return 1;
	}
	return 0;
}
