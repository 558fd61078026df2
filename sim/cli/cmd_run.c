/*
** sim/cli/cmd_run.c: `ccsim run SCENARIO.yaml`: several designs (a topology,
** its overrides, ranks) against several workloads (MoE dispatch/combine,
** or a collective at a size), printed side by side.
**
**   name: ...            description: ...      engine: model | sim | both
**   designs:   - {name, topology, set: {key.path: value}, ranks, ppn}
**   workloads: - {name, collective, algo, bytes,            (collectives)
**                 tokens, hidden, dtype, topk, experts,      (dispatch, combine)
**                 routing, skew, hot, hot_share, expert_groups, topk_groups,
**                 placement, replicas, seed,
**                 prefill, decode, layers, kv_dim, kv_replicated,  (kvcache)
**                 page_tokens, layer_time}
** A topology path is taken relative to the scenario's folder.  The whole
** file is checked (keys, values, topologies load, algorithms apply) before
** anything runs; errors name file:line:column.  Sweeps, a results database
** The parts it runs live in sim/cli/run/ (run.h).
*/
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *me = "ccsim run";

/* ---- the command ---- */

static void run_usage(FILE *f)
{
	fprintf(f,
	        "usage: %s SCENARIO.yaml [--engine model|sim|both] [--format table|csv] [--db ccsim.db]\n"
	        "       [--out DIR] [-j N] [--quick] [--no-plots]\n"
	        "  --db      results database (SQLite; ':memory:' keeps nothing); points stored there for this\n"
	        "            scenario file and ccsim version are not run again\n"
	        "  --out     where the plots go (default ccsim-out/NAME): NAME.dat, NAME.gp, NAME.png, NAME.svg\n"
	        "  -j        worker processes (default 1)\n"
	        "  --quick   a reduced run: every third size, the first and last value of each sweep axis,\n"
	        "            and the scenario's 'quick:' overrides of every design's topology\n",
	        me);
}

int ccs_cmd_run(int argc, char **argv)
{
	const char *path = NULL, *format = "table", *engine_s = NULL, *db_path = "ccsim.db", *out_s = NULL;
	int jobs = 1, quick = 0, plots = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--no-plots")) {
			plots = 0;
		} else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--engine") || !strcmp(argv[i], "--db") ||
		           !strcmp(argv[i], "--out") || !strcmp(argv[i], "-j")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: '%s' needs a value\n", me, argv[i]);
				return 2;
			}
			const char *v = argv[++i], *a = argv[i - 1];
			if (!strcmp(a, "--format"))
				format = v;
			else if (!strcmp(a, "--engine"))
				engine_s = v;
			else if (!strcmp(a, "--db"))
				db_path = v;
			else if (!strcmp(a, "--out"))
				out_s = v;
			else if (ccs_args_int(me, "-j", v, 1, 256, &jobs))
				return 2;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "%s: unexpected argument '%s'\n", me, argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		run_usage(stderr);
		return 2;
	}
	if (strcmp(format, "table") && strcmp(format, "csv")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv\n", me, format);
		return 2;
	}
	struct ccs_ydoc doc;
	struct ccs_ynode *root;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	memset(&doc, 0, sizeof doc);
	struct scen S;
	memset(&S, 0, sizeof S);
	S.path = path;
	S.plots = plots;
	const struct ccs_result **res = NULL;
	struct ccs_result *rows = NULL;
	size_t nrows = 0;
	size_t *todo = NULL;
	struct plots P;
	memset(&P, 0, sizeof P);
	uint32_t *idx = NULL;
	int rc = 1;
	if (ccs_ytree_load(&doc, path, &diag, &root)) {
		fprintf(stderr, "%s\n", diag.msg);
		return 1;
	}
	char *text = NULL;
	size_t tlen = 0;
	char shash[24];
	if (ccs_ingest_read_file(path, &text, &tlen, &diag)) {
		fprintf(stderr, "%s\n", diag.msg);
		ccs_ytree_release(&doc);
		return 1;
	}
	ccs_sweep_file_hash(text, tlen, shash);
	ccs_free(text);
	static const char *const keys[] = { "name", "description", "engine", "designs", "workloads", "sweep", "quick" };
	const char *name = path, *eng = "model";
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (ccs_ytree_keys(&doc, root, keys, 7, "the scenario") || ccs_ytree_need(&doc, root, "designs", "the scenario") ||
	    ccs_ytree_need(&doc, root, "workloads", "the scenario") || ccs_ytree_str(&doc, root, "name", &name) ||
	    ccs_ytree_str(&doc, root, "engine", &eng))
		goto diag;
	S.name = name;
	if (engine_s)
		eng = engine_s;
	S.engine = !strcmp(eng, "model") ? 0 : !strcmp(eng, "sim") ? 1 : !strcmp(eng, "both") ? 2 : -1;
	if (S.engine < 0) {
		if (engine_s)
			fprintf(stderr, "%s: unknown engine '%s'; one of: model, sim, both\n", me, eng);
		else {
			ccs_scenario_error(&doc, ccs_ytree_get(root, "engine"), "unknown engine '%s'; one of: model, sim, both", eng);
			goto diag;
		}
		goto out;
	}
	const struct ccs_ynode *dy = ccs_ytree_get(root, "designs"), *wy = ccs_ytree_get(root, "workloads");
	const struct ccs_ynode *sy = ccs_ytree_get(root, "sweep"), *qy = ccs_ytree_get(root, "quick");
	if (ccs_ytree_kind(&doc, dy, CCS_Y_SEQ, "designs") || ccs_ytree_kind(&doc, wy, CCS_Y_SEQ, "workloads") ||
	    (sy && ccs_ytree_kind(&doc, sy, CCS_Y_MAP, "sweep")) || (qy && ccs_ytree_kind(&doc, qy, CCS_Y_MAP, "quick")))
		goto diag;
	for (uint32_t k = 0; qy && k < qy->n; k++)
		if (!sy || !ccs_ytree_get(sy, qy->k[k]->str)) {
			ccs_scenario_error(&doc, qy->k[k], "'%s' is not a sweep axis: 'quick' gives an axis's values for --quick runs "
			      "(a design's topology overrides go under the design's own 'quick')", qy->k[k]->str);
			goto diag;
		}
	if (!dy->n || !wy->n) {
		ccs_ytree_error(&doc, !dy->n ? dy : wy, "needs at least one entry");
		goto diag;
	}
	S.gs = ccs_calloc(dy->n, sizeof *S.gs);
	S.ws = ccs_calloc(wy->n, sizeof *S.ws);
	S.ax = ccs_calloc(sy ? sy->n + 1 : 1, sizeof *S.ax);
	S.lax_off = ccs_calloc(wy->n + 1, sizeof *S.lax_off);
	if (!S.gs || !S.ws || !S.ax || !S.lax_off)
		goto oom;
	for (uint32_t i = 0; i < dy->n; i++, S.ng++)
		if (ccs_scenario_load_design(&doc, dy->v[i], dir, quick, &S.gs[i]))
			goto diag;
	/* global axes: topology ones first */
	for (int pass = 0; pass < 2 && sy; pass++)
		for (uint32_t k = 0; k < sy->n; k++) {
			int wl = !strncmp(sy->k[k]->str, "workload.", 9);
			if (wl != pass)
				continue;
			struct axis *a = &S.ax[S.nax];
			if (ccs_sweep_axis_from(&doc, sy->k[k], sy->v[k], a))
				goto diag;
			a->workload = wl;
			/* a quick run: the scenario's 'quick' values of the axis, else
			 * its first and last */
			const struct ccs_ynode *qv = quick && qy ? ccs_ytree_get(qy, sy->k[k]->str) : NULL;
			if (qv) {
				ccs_free(a->val);
				a->val = NULL;
				if (ccs_sweep_axis_from(&doc, sy->k[k], qv, a))
					goto diag;
			} else if (quick && a->n > 2) {
				a->val[1] = a->val[a->n - 1];
				a->n = 2;
			}
			S.nax++;
			S.ntopo_ax += !wl;
		}
	/* the workloads as written (names, nodes), and their local axes */
	for (uint32_t i = 0; i < wy->n; i++, S.nw++) {
		const struct ccs_ynode *m = wy->v[i];
		if (ccs_ytree_kind(&doc, m, CCS_Y_MAP, "a workload"))
			goto diag;
		const struct ccs_ynode *szy = ccs_ytree_get(m, "sizes");
		if (szy && ccs_ytree_get(m, "bytes")) {
			ccs_scenario_error(&doc, szy, "'sizes' and 'bytes' cannot both be given");
			goto diag;
		}
		S.lax_off[i + 1] = S.lax_off[i];
		for (uint32_t k = 0; k < m->n; k++) {
			int is_sizes = !strcmp(m->k[k]->str, "sizes");
			if (!is_sizes && m->v[k]->kind != CCS_Y_SEQ)
				continue;
			struct axis *na = ccs_realloc(S.lax, (size_t)(S.lax_off[i + 1] + 1) * sizeof *S.lax);
			if (!na)
				goto oom;
			S.lax = na;
			struct axis *a = &S.lax[S.lax_off[i + 1]];
			memset(a, 0, sizeof *a);
			if (is_sizes ? ccs_sweep_sizes_axis(&doc, m->k[k], m->v[k], a, quick) : ccs_sweep_axis_from(&doc, m->k[k], m->v[k], a))
				goto diag;
			S.lax_off[i + 1]++;
		}
		/* the base load checks keys and values other than the lists */
		int nl = S.lax_off[i + 1] - S.lax_off[i];
		const char *ok[16];
		const struct ccs_ynode *ov[16];
		if (nl > 16) {
			ccs_ytree_error(&doc, m, "at most 16 list-valued keys in a workload");
			goto diag;
		}
		for (int k = 0; k < nl; k++) {
			ok[k] = S.lax[S.lax_off[i] + k].key;
			ov[k] = S.lax[S.lax_off[i] + k].val[0];
		}
		if (ccs_sweep_load_work_with(&doc, m, nl, ok, ov, &S.ws[i]))
			goto diag;
	}
	/* design instances: each design on each combination of the topology axes */
	idx = ccs_calloc((size_t)S.nax + 32, sizeof *idx);
	if (!idx)
		goto oom;
	size_t ncombo = 1;
	for (int a = 0; a < S.ntopo_ax; a++)
		ncombo *= S.ax[a].n;
	S.inst = ccs_calloc((size_t)S.ng * ncombo, sizeof *S.inst);
	if (!S.inst)
		goto oom;
	for (int g = 0; g < S.ng; g++) {
		memset(idx, 0, (size_t)S.nax * sizeof *idx);
		do {
			struct inst *in = &S.inst[S.ninst++];
			in->design = g;
			ccs_sweep_axes_text(S.ax, S.ntopo_ax, idx, in->axes, sizeof in->axes, 0);
			const char *sets[64];
			char buf[32][256], fbuf[16][256];
			int ns = 0, nf = 0;
			for (int k = 0; k < S.gs[g].nsets; k++)
				sets[ns++] = S.gs[g].sets[k];
			for (int a = 0; a < S.ntopo_ax && ns < 64; a++) {
				const char *v = S.ax[a].val[idx[a]]->str;
				snprintf(buf[a], sizeof buf[a], "%s=%s", S.ax[a].key, v);
				if (strcmp(S.ax[a].key, "faults")) {
					sets[ns++] = buf[a];
					continue;
				}
				/* the faults axis: 'none', or fault strings joined by ';' */
				char tmp[256];
				snprintf(tmp, sizeof tmp, "%s", v);
				for (char *sv = NULL, *f = strtok_r(tmp, ";", &sv); f && ns < 64 && nf < 16;
				     f = strtok_r(NULL, ";", &sv)) {
					while (*f == ' ')
						f++;
					if (!strcmp(f, "none") || !*f)
						continue;
					snprintf(fbuf[nf], sizeof fbuf[nf], "faults+=%s", f);
					sets[ns++] = fbuf[nf++];
				}
			}
			struct ccs_diag td;
			memset(&td, 0, sizeof td);
			if (ccs_topo_load(S.gs[g].path, sets, ns, &in->t, &td)) {
				const struct ccs_ynode *at = ccs_ytree_get(S.gs[g].node, "topology");
				for (int a = 0; a < S.ntopo_ax; a++)
					if (strstr(td.msg, strcmp(S.ax[a].key, "faults") ? buf[a] : S.ax[a].val[idx[a]]->str))
						at = S.ax[a].val[idx[a]];
				char msg[1200];
				snprintf(msg, sizeof msg, "design '%.80s'%s%.200s: %.800s", S.gs[g].name, in->axes[0] ? " with " : "", in->axes,
				         td.msg);
				ccs_ytree_error(&doc, at, msg);
				goto diag;
			}
			char err[256];
			if (in->t->ntimed) {
				snprintf(err, sizeof err, "fault '%.120s' strikes during a run ('@'); a scenario's faults apply from "
				         "the start", in->t->timed[0].spec);
				ccs_ytree_error(&doc, S.gs[g].node, err);
				goto diag;
			}
			if (ccs_comm_build(in->t, (int)S.gs[g].ranks, (int)S.gs[g].ppn, &in->c, err, sizeof err)) {
				ccs_ytree_error(&doc, S.gs[g].node, err);
				goto diag;
			}
			in->built = 1;
			ccs_sweep_topo_hash(in->t, in->hash);
		} while (S.ntopo_ax && ccs_sweep_next_combo(S.ax, S.ntopo_ax, idx));
	}
	/* workload instances: each workload on each combination of the global
	 * workload axes and its own lists */
	for (int w = 0; w < S.nw; w++) {
		struct axis all[48];
		int na = 0;
		for (int a = S.ntopo_ax; a < S.nax && na < 32; a++) {
			all[na] = S.ax[a];
			all[na].key = S.ax[a].key + 9;
			na++;
		}
		for (int k = S.lax_off[w]; k < S.lax_off[w + 1] && na < 48; k++)
			all[na++] = S.lax[k];
		memset(idx, 0, 48 * sizeof *idx < ((size_t)S.nax + 32) * sizeof *idx ? 48 * sizeof *idx : ((size_t)S.nax + 32) * sizeof *idx);
		uint32_t wid[48] = { 0 };
		do {
			struct winst *nw2 = ccs_realloc(S.wi, (S.nwi + 1) * sizeof *S.wi);
			if (!nw2)
				goto oom;
			S.wi = nw2;
			struct winst *wi = &S.wi[S.nwi];
			memset(wi, 0, sizeof *wi);
			wi->work = w;
			ccs_sweep_axes_text(all, na, wid, wi->axes, sizeof wi->axes, 0);
			const char *ok[48];
			const struct ccs_ynode *ov[48];
			for (int k = 0; k < na; k++) {
				ok[k] = all[k].key;
				ov[k] = all[k].val[wid[k]];
			}
			if (ccs_sweep_load_work_with(&doc, S.ws[w].node, na, ok, ov, &wi->w))
				goto diag;
			S.nwi++;
		} while (na && ccs_sweep_next_combo(all, na, wid));
	}
	/* points, checked before any runs */
	S.pt = ccs_calloc(S.ninst * S.nwi + 1, sizeof *S.pt);
	if (!S.pt)
		goto oom;
	for (size_t in = 0; in < S.ninst; in++)
		for (size_t k = 0; k < S.nwi; k++) {
			struct point *p = &S.pt[S.npt++];
			p->inst = (int)in;
			p->wi = (int)k;
			p->heat = k + 1 == S.nwi || S.wi[k + 1].work != S.wi[k].work;
			snprintf(p->key, sizeof p->key, "design=%.80s|workload=%.80s|%.100s%s%.100s", S.gs[S.inst[in].design].name,
			         S.ws[S.wi[k].work].name, S.inst[in].axes, S.inst[in].axes[0] && S.wi[k].axes[0] ? " " : "",
			         S.wi[k].axes);
			const struct work *w = &S.wi[k].w;
			const struct inst *I = &S.inst[in];
			char err[256] = "";
			int bad = 0;
			if (w->moe)
				bad = ccs_moe_check(&w->cfg, w->ranks ? (int)w->ranks : I->c.n, err, sizeof err) != 0;
			else if (w->kv)
				bad = ccs_cell_kv_check(I->t, &I->c, S.gs[I->design].ppn, w, err, sizeof err) != 0;
			else {
				struct ccs_comm c2;
				const struct ccs_comm *cp = &I->c;
				int own = w->ranks && w->ranks != I->c.n;
				if (own && ccs_comm_build(I->t, (int)w->ranks, (int)S.gs[I->design].ppn, &c2, err, sizeof err))
					bad = 1;
				else {
					if (own)
						cp = &c2;
					unsigned am = w->algo >= 0 ? 1u << w->algo : (1u << CCS_ALGO_N) - 1;
					unsigned pm = w->proto >= 0 ? 1u << w->proto : (1u << CCS_PROTO_N) - 1;
					int a, q;
					struct ccs_cost cc;
					const char *why = NULL;
					if (ccs_select(cp, w->coll, w->bytes, am, pm, w->algo < 0, &a, &q) ||
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
			if (bad && !w->moe && !w->kv && ccs_sweep_listed_algo(&S, S.wi[k].work)) {
				S.npt--;
				S.skipped++;
				continue;
			}
			if (bad) {
				char msg[900], ax[520];
				snprintf(ax, sizeof ax, "%s%s%s", I->axes, I->axes[0] && S.wi[k].axes[0] ? " " : "", S.wi[k].axes);
				snprintf(msg, sizeof msg, "on design '%s'%s%s%s: %s", S.gs[I->design].name, ax[0] ? " (" : "", ax,
				         ax[0] ? ")" : "", err);
				ccs_ytree_error(&doc, S.ws[S.wi[k].work].node, msg);
				goto diag;
			}
		}
	S.at = ccs_malloc((S.ninst * S.nwi + 1) * sizeof *S.at);
	if (!S.at)
		goto oom;
	for (size_t i = 0; i < S.ninst * S.nwi; i++)
		S.at[i] = -1;
	for (size_t i = 0; i < S.npt; i++)
		S.at[(size_t)S.pt[i].inst * S.nwi + (size_t)S.pt[i].wi] = (int32_t)i;
	/* the database: what is stored already is not run again */
	struct ccs_diag dd;
	memset(&dd, 0, sizeof dd);
	if (ccs_store_open(db_path, &S.db, &dd) ||
	    ccs_store_scenario(S.db, S.name, path, shash, CCS_VERSION, &S.scen_id, &dd) ||
	    ccs_store_results(S.db, S.scen_id, &rows, &nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		goto out;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, ccs_output_by_key);
	todo = ccs_malloc((S.npt + 1) * sizeof *todo);
	if (!todo)
		goto oom;
	size_t ntodo = 0, nold = 0;
	for (size_t i = 0; i < S.npt; i++) {
		S.pt[i].done = ccs_output_find_result(rows, nrows, S.pt[i].key, S.inst[S.pt[i].inst].hash) != NULL;
		if (S.pt[i].done)
			nold++;
		else
			todo[ntodo++] = i;
	}
	if (S.plots) {
		snprintf(S.outdir, sizeof S.outdir, "%s", out_s ? out_s : "ccsim-out");
		if (!out_s) {
			char sl[200];
			ccs_plot_slug(S.name, sl, sizeof sl);
			size_t l = strlen(S.outdir);
			snprintf(S.outdir + l, sizeof S.outdir - l, "/%s", sl);
		}
		if (ccs_plots_mkdirs(S.outdir)) {
			fprintf(stderr, "%s: cannot make '%s': %s\n", me, S.outdir, strerror(errno));
			goto out;
		}
	}
	struct ccs_runner R;
	memset(&R, 0, sizeof R);
	R.jobs = jobs;
	R.result_size = sizeof(struct job);
	R.compute = ccs_exec_compute;
	R.collect = ccs_exec_collect;
	R.ctx = &S;
	R.progress = isatty(2) && ntodo > 0;
	const char *sa = getenv("CCS_RUN_STOP_AFTER");
	R.stop_after = sa ? atol(sa) : 0;
	size_t ndone = 0;
	S.last_flush = ccs_exec_mono_s();
	int how = ccs_runner_run(&R, todo, ntodo, &ndone);
	if (ccs_exec_flush_results(&S))
		how = CCS_RUN_FAILED;
	if (how == CCS_RUN_INTERRUPTED) {
		fprintf(stderr, "%s: interrupted: %zu of %zu points stored in %s (%zu before this run); run the same command again to finish\n",
		        me, nold + S.stored, S.npt, db_path, nold);
		rc = 130;
		goto out;
	}
	if (how != CCS_RUN_DONE || S.failed) {
		fprintf(stderr, "%s: %zu point%s failed; %zu stored\n", me, S.failed, S.failed == 1 ? "" : "s", S.stored);
		goto out;
	}
	/* every point's result, from the database */
	ccs_free(rows);
	rows = NULL;
	if (ccs_store_results(S.db, S.scen_id, &rows, &nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		goto out;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, ccs_output_by_key);
	res = ccs_calloc(S.npt + 1, sizeof *res);
	if (!res)
		goto oom;
	for (size_t i = 0; i < S.npt; i++)
		res[i] = ccs_output_find_result(rows, nrows, S.pt[i].key, S.inst[S.pt[i].inst].hash);
	if (!strcmp(format, "csv")) {
		printf("scenario,workload,design,axes,ranks,algo,size,model_us,sim_us,bandwidth_GBps\n");
		for (size_t i = 0; i < S.npt; i++) {
			const struct ccs_result *r = res[i];
			if (!r)
				continue;
			printf("%s,%s,%s,%s,%d,%s,%llu,%.6g,%.6g,%.6g\n", S.name, r->workload, r->design, r->axes, r->ranks,
			       r->algo, (unsigned long long)r->size, r->t_model_s == r->t_model_s ? r->t_model_s * 1e6 : -1,
			       r->t_sim_s == r->t_sim_s ? r->t_sim_s * 1e6 : -1,
			       (S.engine == 1 ? r->bw_sim_Bps : r->bw_model_Bps) / 1e9);
		}
	} else if (!S.nax && S.nwi == (size_t)S.nw) {
		ccs_output_print_grid(&S, res);
	} else {
		ccs_output_print_tables(&S, res);
	}
	if (!strcmp(format, "table"))
		printf("#\n# %zu points: %zu run now, %zu from %s (scenario %lld)%s\n", S.npt, ndone, nold, db_path,
		       (long long)S.scen_id, S.skipped ? "; algorithm/protocol combinations that do not apply left out" : "");
	if (S.plots) {
		if (ccs_plots_busbw(&S, res, &P) || ccs_plots_axes(&S, res, &P) || ccs_plots_breakdown(&S, res, &P) || ccs_plots_heat(&S, &P))
			goto out;
		int have = ccs_plot_have_gnuplot();
		size_t drawn = 0;
		for (size_t i = 0; i < P.n && have; i++)
			drawn += !ccs_plot_render(S.outdir, P.name[i]);
		if (!strcmp(format, "table")) {
			if (!have)
				printf("# plots: gnuplot is not installed: %zu .dat and .gp files in %s/ (sh .ci/deps installs it)\n",
				       P.n, S.outdir);
			else
				printf("# plots: %zu of %zu drawn in %s/ (.png and .svg, with their .dat and .gp):\n", drawn, P.n,
				       S.outdir);
			for (size_t i = 0; i < P.n && have; i++)
				printf("#   %s/%s.png\n", S.outdir, P.name[i]);
		}
		if (have && drawn < P.n)
			goto out;
	}
	rc = ccs_args_flush() ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", me);
	goto out;
diag:
	fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim run: bad scenario");
out:
	for (size_t i = 0; i < S.ninst; i++) {
		if (S.inst[i].built)
			ccs_comm_release(&S.inst[i].c);
		ccs_topo_free(S.inst[i].t);
	}
	for (int a = 0; a < S.nax; a++)
		ccs_free(S.ax[a].val);
	for (int w = 0; S.lax_off && w < S.nw; w++)
		for (int k = S.lax_off[w]; k < S.lax_off[w + 1]; k++)
			ccs_free(S.lax[k].val);
	ccs_free(S.lax);
	ccs_free(S.lax_off);
	ccs_free(S.ax);
	ccs_free(S.inst);
	ccs_free(S.wi);
	ccs_free(S.pt);
	ccs_free(S.at);
	ccs_free(S.gs);
	ccs_free(S.ws);
	ccs_free(S.pending);
	ccs_free(P.name);
	ccs_free(todo);
	ccs_free(res);
	ccs_free(rows);
	ccs_free(idx);
	ccs_store_close(S.db);
	ccs_ytree_release(&doc);
	return rc;
}
