/* sim/cli/run/points.c: the study's points (run.h). */
#include "run.h"

#include <stdio.h>
#include <string.h>

/* n *= f, unless that passes CCS_RUN_MAX_POINTS: 1 then. */
static int mul_capped(size_t *n, size_t f)
{
	if (f && *n > CCS_RUN_MAX_POINTS / f)
		return 1;
	*n *= f;
	return 0;
}

/* The number of points, checked against CCS_RUN_MAX_POINTS before any
 * topology is built: designs x topology combinations x the workload
 * instances (each workload's global and own combinations). */
int ccs_points_count(struct ccs_points *P)
{
	size_t ninst = (size_t)P->S->ng, nwi = 0, glob = 1;
	int over = 0;
	for (int a = 0; a < P->S->ntopo_ax; a++)
		over |= mul_capped(&ninst, P->S->ax[a].n);
	for (int a = P->S->ntopo_ax; a < P->S->nax; a++)
		over |= mul_capped(&glob, P->S->ax[a].n);
	for (int w = 0; w < P->S->nw && !over; w++) {
		size_t n = glob;
		for (int k = P->S->lax_off[w]; k < P->S->lax_off[w + 1]; k++)
			over |= mul_capped(&n, P->S->lax[k].n);
		nwi += n;
		over |= nwi > CCS_RUN_MAX_POINTS;
	}
	if (over || mul_capped(&ninst, nwi)) {
		const struct ccs_ynode *at = ccs_ytree_get(P->root, "sweep");
		ccs_scenario_error(P->doc, at ? at : P->root, "the scenario has more than %d points (designs x sweep values "
		                   "x workload lists); split it or sweep fewer values", CCS_RUN_MAX_POINTS);
		return CCS_STEP_DIAG;
	}
	return CCS_STEP_OK;
}

/* The --set overrides of design g on the topology axes' values at P->idx:
 * its own, then each axis's (a 'faults' value split into faults+= ones);
 * how many, or -1 with the scenario's positioned message. */
static int inst_sets(struct ccs_points *P, int g, const char **sets, char (*buf)[256], char (*fbuf)[256])
{
	int ns = 0, nf = 0;
	for (int k = 0; k < P->S->gs[g].nsets; k++)
		sets[ns++] = P->S->gs[g].sets[k];
	for (int a = 0; a < P->S->ntopo_ax; a++) {
		const struct ccs_ynode *vy = P->S->ax[a].val[P->idx[a]];
		if ((size_t)snprintf(buf[a], 256, "%s=%s", P->S->ax[a].key, vy->str) >= 256) {
			ccs_scenario_error(P->doc, vy, "a sweep value longer than %d characters", 248);
			return -1;
		}
		if (strcmp(P->S->ax[a].key, "faults")) {
			sets[ns++] = buf[a];
			continue;
		}
		/* the faults axis: 'none', or fault strings joined by ';' */
		char tmp[256];
		snprintf(tmp, sizeof tmp, "%s", vy->str);
		for (char *sv = NULL, *f = strtok_r(tmp, ";", &sv); f; f = strtok_r(NULL, ";", &sv)) {
			while (*f == ' ')
				f++;
			if (!strcmp(f, "none") || !*f)
				continue;
			if (nf == 16) {
				ccs_scenario_error(P->doc, vy, "more than 16 faults in one value of 'faults'");
				return -1;
			}
			snprintf(fbuf[nf], 256, "faults+=%s", f);
			sets[ns++] = fbuf[nf++];
		}
	}
	return ns;
}

/* Design instances: each design on each combination of the topology axes,
 * loaded and built. */
int ccs_points_designs(struct ccs_points *P)
{
	/* design instances: each design on each combination of the topology axes */
	P->idx = ccs_calloc((size_t)P->S->nax + 32, sizeof *P->idx);
	if (!P->idx)
		return CCS_STEP_OOM;
	size_t ncombo = 1;
	for (int a = 0; a < P->S->ntopo_ax; a++)
		ncombo *= P->S->ax[a].n;
	P->S->inst = ccs_calloc((size_t)P->S->ng * ncombo, sizeof *P->S->inst);
	if (!P->S->inst)
		return CCS_STEP_OOM;
	for (int g = 0; g < P->S->ng; g++) {
		memset(P->idx, 0, (size_t)P->S->nax * sizeof *P->idx);
		do {
			struct inst *in = &P->S->inst[P->S->ninst++];
			in->design = g;
			if (ccs_sweep_axes_text(P->S->ax, P->S->ntopo_ax, P->idx, in->axes, sizeof in->axes, 0)) {
				ccs_scenario_error(P->doc, ccs_ytree_get(P->root, "sweep"), "the sweep values of one design "
				                   "take more than %d characters (\"%.60s...\")", CCS_RUN_AXES_MAX, in->axes);
				return CCS_STEP_DIAG;
			}
			const char *sets[32 + CCS_RUN_MAX_AXES + 16];
			char buf[CCS_RUN_MAX_AXES][256], fbuf[16][256];
			int ns = inst_sets(P, g, sets, buf, fbuf);
			if (ns < 0)
				return CCS_STEP_DIAG;
			struct ccs_diag td;
			memset(&td, 0, sizeof td);
			if (ccs_topo_yaml_load(P->S->gs[g].path, sets, ns, &in->t, &td)) {
				const struct ccs_ynode *at = ccs_ytree_get(P->S->gs[g].node, "topology");
				for (int a = 0; a < P->S->ntopo_ax; a++)
					if (strstr(td.msg, strcmp(P->S->ax[a].key, "faults") ? buf[a] : P->S->ax[a].val[P->idx[a]]->str))
						at = P->S->ax[a].val[P->idx[a]];
				char msg[1200];
				snprintf(msg, sizeof msg, "design '%.80s'%s%.200s: %.800s", P->S->gs[g].name, in->axes[0] ? " with " : "", in->axes,
				         td.msg);
				ccs_escape_utf8_fix(msg);   /* a name cut to fit keeps whole characters */
				ccs_ytree_error(P->doc, at, msg);
				return CCS_STEP_DIAG;
			}
			char err[256];
			if (in->t->ntimed) {
				snprintf(err, sizeof err, "fault '%.120s' strikes during a run ('@'); a scenario's faults apply from "
				         "the start", in->t->timed[0].spec);
				ccs_escape_utf8_fix(err);   /* a name cut to fit keeps whole characters */
				ccs_ytree_error(P->doc, P->S->gs[g].node, err);
				return CCS_STEP_DIAG;
			}
			if (ccs_comm_build(in->t, (int)P->S->gs[g].ranks, (int)P->S->gs[g].ppn, &in->c, err, sizeof err)) {
				ccs_ytree_error(P->doc, P->S->gs[g].node, err);
				return CCS_STEP_DIAG;
			}
			in->built = 1;
			ccs_sweep_topo_hash(in->t, in->hash);
		} while (P->S->ntopo_ax && ccs_sweep_next_combo(P->S->ax, P->S->ntopo_ax, P->idx));
	}
	return CCS_STEP_OK;
}

/* Workload instances: each workload on each combination of the global
 * workload axes and its own lists. */
int ccs_points_workloads(struct ccs_points *P)
{
	/* workload instances: each workload on each combination of the global
	 * workload axes and its own lists */
	for (int w = 0; w < P->S->nw; w++) {
		struct axis all[CCS_RUN_MAX_AXES + 16];
		int na = 0;
		for (int a = P->S->ntopo_ax; a < P->S->nax; a++) {   /* at most CCS_RUN_MAX_AXES */
			all[na] = P->S->ax[a];
			all[na].key = P->S->ax[a].key + 9;
			na++;
		}
		for (int k = P->S->lax_off[w]; k < P->S->lax_off[w + 1]; k++)   /* at most 16 */
			all[na++] = P->S->lax[k];
		memset(P->idx, 0, 48 * sizeof *P->idx < ((size_t)P->S->nax + 32) * sizeof *P->idx ? 48 * sizeof *P->idx : ((size_t)P->S->nax + 32) * sizeof *P->idx);
		uint32_t wid[48] = { 0 };
		do {
			struct winst *nw2 = ccs_realloc(P->S->wi, (P->S->nwi + 1) * sizeof *P->S->wi);
			if (!nw2)
				return CCS_STEP_OOM;
			P->S->wi = nw2;
			struct winst *wi = &P->S->wi[P->S->nwi];
			memset(wi, 0, sizeof *wi);
			wi->work = w;
			if (ccs_sweep_axes_text(all, na, wid, wi->axes, sizeof wi->axes, 0)) {
				ccs_scenario_error(P->doc, P->S->ws[w].node, "the sweep values of workload '%s' take more than %d "
				                   "characters (\"%.60s...\")", P->S->ws[w].name, CCS_RUN_AXES_MAX, wi->axes);
				return CCS_STEP_DIAG;
			}
			const char *ok[48];
			const struct ccs_ynode *ov[48];
			for (int k = 0; k < na; k++) {
				ok[k] = all[k].key;
				ov[k] = all[k].val[wid[k]];
			}
			if (ccs_sweep_load_work_with(P->doc, P->S->ws[w].node, na, ok, ov, &wi->w))
				return CCS_STEP_DIAG;
			P->S->nwi++;
		} while (na && ccs_sweep_next_combo(all, na, wid));
	}
	return CCS_STEP_OK;
}

/* The points, each checked before any runs (one that cannot apply is an
 * error, or left out where its algorithm or protocol came from a list). */
int ccs_points_make(struct ccs_points *P)
{
	/* points, checked before any runs */
	P->S->pt = ccs_calloc(P->S->ninst * P->S->nwi + 1, sizeof *P->S->pt);
	if (!P->S->pt)
		return CCS_STEP_OOM;
	for (size_t in = 0; in < P->S->ninst; in++)
		for (size_t k = 0; k < P->S->nwi; k++) {
			struct point *p = &P->S->pt[P->S->npt];
			p->ord = P->S->npt++;
			p->inst = (int)in;
			p->wi = (int)k;
			p->heat = k + 1 == P->S->nwi || P->S->wi[k + 1].work != P->S->wi[k].work;
			snprintf(p->key, sizeof p->key, "design=%s|workload=%s|%s%s%s", P->S->gs[P->S->inst[in].design].name,
			         P->S->ws[P->S->wi[k].work].name, P->S->inst[in].axes, P->S->inst[in].axes[0] && P->S->wi[k].axes[0] ? " " : "",
			         P->S->wi[k].axes);
			const struct work *w = &P->S->wi[k].w;
			const struct inst *I = &P->S->inst[in];
			char err[256] = "";
			int bad = 0;
			if (w->moe)
				bad = ccs_moe_check(&w->cfg, w->ranks ? (int)w->ranks : I->c.n, err, sizeof err) != 0;
			else if (w->kv)
				bad = ccs_cell_kv_check(I->t, &I->c, P->S->gs[I->design].ppn, w, err, sizeof err) != 0;
			else {
				struct ccs_comm c2;
				const struct ccs_comm *cp = &I->c;
				int own = w->ranks && w->ranks != I->c.n;
				if (own && ccs_comm_build(I->t, (int)w->ranks, (int)P->S->gs[I->design].ppn, &c2, err, sizeof err))
					bad = 1;
				else {
					if (own)
						cp = &c2;
					unsigned am = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
					unsigned pm = w->proto >= 0 ? 1u << w->proto : (1u << CCS_PROTO_N) - 1;
					int a, q;
					struct ccs_cost cc;
					const char *why = NULL;
					if (w->synth && w->proto >= 0 && w->proto != CCS_PROTO_SIMPLE) {
						snprintf(err, sizeof err, "a synthesized schedule runs Simple only");
						bad = 1;
					} else if (w->synth)
						bad = cp->n < 2 ? (snprintf(err, sizeof err, "synth needs two ranks or more"), 1) : 0;
					else if (ccs_select(cp, w->coll, w->bytes, am, pm, w->algo < 0, &a, &q) ||
					    ccs_cost_eval(cp, w->coll, a, q, 0, w->bytes, &cc, &why)) {
						if (w->algo >= 0)
							ccs_cost_eval(cp, w->coll, w->algo, w->proto >= 0 ? w->proto : CCS_PROTO_SIMPLE, 0,
							              w->bytes, &cc, &why);
						snprintf(err, sizeof err, "%s", why ? why : "no algorithm applies");
						bad = 1;
					}
					if (own)
						ccs_comm_release(&c2);
				}
			}
			/* algorithms or protocols given as lists: a combination that
			 * does not apply is left out, not an error */
			if (bad && !w->moe && !w->kv && ccs_sweep_listed_algo(P->S, P->S->wi[k].work)) {
				P->S->npt--;
				P->S->skipped++;
				continue;
			}
			if (bad) {
				char msg[900], ax[520];
				snprintf(ax, sizeof ax, "%s%s%s", I->axes, I->axes[0] && P->S->wi[k].axes[0] ? " " : "", P->S->wi[k].axes);
				snprintf(msg, sizeof msg, "on design '%s'%s%s%s: %s", P->S->gs[I->design].name, ax[0] ? " (" : "", ax,
				         ax[0] ? ")" : "", err);
				ccs_ytree_error(P->doc, P->S->ws[P->S->wi[k].work].node, msg);
				return CCS_STEP_DIAG;
			}
		}
	P->S->at = ccs_malloc((P->S->ninst * P->S->nwi + 1) * sizeof *P->S->at);
	if (!P->S->at)
		return CCS_STEP_OOM;
	for (size_t i = 0; i < P->S->ninst * P->S->nwi; i++)
		P->S->at[i] = -1;
	for (size_t i = 0; i < P->S->npt; i++)
		P->S->at[(size_t)P->S->pt[i].inst * P->S->nwi + (size_t)P->S->pt[i].wi] = (int32_t)i;
	return CCS_STEP_OK;
}
