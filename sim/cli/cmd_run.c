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
#include "progress.h"

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
	        "       [--out DIR] [-j N] [--quick] [--no-plots] [--check] [--shard K/N | --mpi | --slurm ...]\n"
	        "  --db      results database (SQLite; ':memory:' keeps nothing); points stored there for this\n"
	        "            scenario file and ccsim version are not run again\n"
	        "  --out     where the plots go (default ccsim-out/NAME): NAME.dat, NAME.gp, NAME.png, NAME.svg\n"
	        "  -j        worker processes (default 1)\n"
	        "  --quick   a reduced run: every third size, the first and last value of each sweep axis,\n"
	        "            and the scenario's 'quick:' overrides of every design's topology\n"
	        "  --check   check the scenario (every topology, workload and point) and say how many points\n"
	        "            it has; run nothing and open no database\n"
	        "  --shard K/N   only the points of shard K (0..N-1; a point's shard is the hash of its key), into\n"
	        "            --db (default ccsim.shard-K-of-N.db), no plots; 'ccsim merge' joins the shards\n"
	        "  --mpi     under mpirun: rank 0 hands out the points (slowest first) and alone writes --db\n"
	        "  --slurm   write a Slurm job array (one task per shard) and a merge job that waits for it:\n"
	        "            [--shards N] [--slurm-dir DIR] [--partition P] [--account A] [--time T]\n"
	        "            [--sbatch 'OPTION' ...] [--submit]; shards already complete are left out\n",
	        me);
}

/* A run of a scenario: its options, the document, the study (struct scen,
 * run/run.h) and the results as they come. */
struct run {
	const char *path, *format, *engine_s, *db_path, *out_s;
	int jobs, quick, plots, rc, check, db_given;
	size_t shard_k, shard_n;     /* --shard K/N; shard_n 0: none */
	int mpi, rank, size;         /* --mpi: this process's rank of size */
	int mpi_done;                /* the points were handed out (every rank has stopped asking) */
	struct ccs_slurm slurm;
	char db_buf[96];
	struct ccs_ydoc doc;
	struct ccs_ynode *root;
	struct ccs_diag diag;
	struct scen S;
	char shash[24], dir[1024];
	const struct ccs_result **res;
	struct ccs_result *rows;
	size_t nrows, ntodo, nold, ndone;
	size_t *todo;
	struct plots P;
	struct ccs_points pts;       /* the points' making (run/points.c): the study, the document, the axes' indices */
};


/* --shard K/N: 0 <= K < N. */
static int parse_shard(struct run *R, const char *v)
{
	char *e1, *e2;
	unsigned long long k = strtoull(v, &e1, 10), n = *e1 == '/' ? strtoull(e1 + 1, &e2, 10) : 0;
	if (*e1 != '/' || *e2 || e1 == v || e2 == e1 + 1 || n < 1 || n > 100000 || k >= n || *v == '-' || e1[1] == '-') {
		fprintf(stderr, "%s: '--shard %s': expected K/N with 0 <= K < N <= 100000 (shards count from 0, as Slurm's "
		        "--array=0-N-1)\n", me, v);
		return 1;
	}
	R->shard_k = (size_t)k;
	R->shard_n = (size_t)n;
	return 0;
}

/* --shard, --mpi and --slurm exclude each other; --slurm's options need it. */
static int fan_out_args(struct run *R)
{
	const struct ccs_slurm *o = &R->slurm;
	if ((R->shard_n > 0) + R->mpi + o->on > 1 || (R->check && (R->mpi || o->on))) {
		fprintf(stderr, "%s: one of --shard, --mpi and --slurm at a time, and --check goes with none but --shard\n", me);
		return 2;
	}
	if (!o->on && (o->submit || o->shards || o->dir || o->partition || o->account || o->time || o->nextra)) {
		fprintf(stderr, "%s: --submit, --shards, --slurm-dir, --partition, --account, --time and --sbatch go with "
		        "--slurm\n", me);
		return 2;
	}
	if (R->shard_n) {
		R->plots = 0;
		if (!R->db_given) {
			snprintf(R->db_buf, sizeof R->db_buf, "ccsim.shard-%zu-of-%zu.db", R->shard_k, R->shard_n);
			R->db_path = R->db_buf;
		}
	}
	return 0;
}

/* The options: 0, 1 after --help, 2 after a usage message. */
static int parse_args(struct run *R, int argc, char **argv)
{
	int sl;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 1;
		}
		if (!strcmp(argv[i], "--quick")) {
			R->quick = 1;
		} else if (!strcmp(argv[i], "--check")) {
			R->check = 1;
		} else if (!strcmp(argv[i], "--no-plots")) {
			R->plots = 0;
		} else if (!strcmp(argv[i], "--mpi")) {
			R->mpi = 1;
		} else if (!strcmp(argv[i], "--shard")) {
			if (i + 1 >= argc || parse_shard(R, argv[++i]))
				return 2;
		} else if ((sl = ccs_slurm_arg(&R->slurm, argc, argv, &i))) {
			if (sl < 0)
				return 2;
		} else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--engine") || !strcmp(argv[i], "--db") ||
		           !strcmp(argv[i], "--out") || !strcmp(argv[i], "-j")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: '%s' needs a value\n", me, argv[i]);
				return 2;
			}
			const char *v = argv[++i], *a = argv[i - 1];
			if (!strcmp(a, "--format"))
				R->format = v;
			else if (!strcmp(a, "--engine"))
				R->engine_s = v;
			else if (!strcmp(a, "--db"))
				R->db_path = v, R->db_given = 1;
			else if (!strcmp(a, "--out"))
				R->out_s = v;
			else if (ccs_args_int(me, "-j", v, 1, 256, &R->jobs))
				return 2;
		} else if (argv[i][0] == '-' || R->path) {
			fprintf(stderr, "%s: unexpected argument '%s'\n", me, argv[i]);
			return 2;
		} else {
			R->path = argv[i];
		}
	}
	if (!R->path) {
		run_usage(stderr);
		return 2;
	}
	if (strcmp(R->format, "table") && strcmp(R->format, "csv")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv\n", me, R->format);
		return 2;
	}
	return fan_out_args(R);
}

/* The scenario file: its hash, its top-level keys, its engine. */
static int open_scenario(struct run *R)
{
	if (ccs_ytree_load(&R->doc, R->path, "scenario", &R->diag, &R->root)) {
		fprintf(stderr, "%s\n", R->diag.msg);
		return CCS_STEP_FAIL;
	}
	char *text = NULL;
	size_t tlen = 0;
	if (ccs_ingest_read_file(R->path, &text, &tlen, &R->diag)) {
		fprintf(stderr, "%s\n", R->diag.msg);
		return CCS_STEP_FAIL;
	}
	ccs_sweep_file_hash(text, tlen, R->shash);
	ccs_free(text);
	static const char *const keys[] = { "name", "description", "engine", "designs", "workloads", "sweep", "quick" };
	const char *name = R->path, *eng = "model";
	snprintf(R->dir, sizeof R->dir, "%s", R->path);
	char *slash = strrchr(R->dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(R->dir, sizeof R->dir, ".");
	if (ccs_ytree_keys(&R->doc, R->root, keys, 7, "the scenario") || ccs_ytree_need(&R->doc, R->root, "designs", "the scenario") ||
	    ccs_ytree_need(&R->doc, R->root, "workloads", "the scenario") || ccs_ytree_str(&R->doc, R->root, "name", &name) ||
	    ccs_ytree_str(&R->doc, R->root, "engine", &eng))
		return CCS_STEP_DIAG;
	R->S.name = name;
	if (R->engine_s)
		eng = R->engine_s;
	R->S.engine = !strcmp(eng, "model") ? 0 : !strcmp(eng, "sim") ? 1 : !strcmp(eng, "both") ? 2 : -1;
	if (R->S.engine < 0) {
		if (R->engine_s)
			fprintf(stderr, "%s: unknown engine '%s'; one of: model, sim, both\n", me, eng);
		else {
			ccs_scenario_error(&R->doc, ccs_ytree_get(R->root, "engine"), "unknown engine '%s'; one of: model, sim, both", eng);
			return CCS_STEP_DIAG;
		}
		return CCS_STEP_FAIL;
	}
	return CCS_STEP_OK;
}

/* The designs and the global sweep axes (topology ones first), each
 * checked where it stands. */
static int load_designs(struct run *R)
{
	const struct ccs_ynode *dy = ccs_ytree_get(R->root, "designs"), *wy = ccs_ytree_get(R->root, "workloads");
	const struct ccs_ynode *sy = ccs_ytree_get(R->root, "sweep"), *qy = ccs_ytree_get(R->root, "quick");
	if (ccs_ytree_kind(&R->doc, dy, CCS_Y_SEQ, "designs") || ccs_ytree_kind(&R->doc, wy, CCS_Y_SEQ, "workloads") ||
	    (sy && ccs_ytree_kind(&R->doc, sy, CCS_Y_MAP, "sweep")) || (qy && ccs_ytree_kind(&R->doc, qy, CCS_Y_MAP, "quick")))
		return CCS_STEP_DIAG;
	for (uint32_t k = 0; qy && k < qy->n; k++)
		if (!sy || !ccs_ytree_get(sy, qy->k[k]->str)) {
			ccs_scenario_error(&R->doc, qy->k[k], "'%s' is not a sweep axis: 'quick' gives an axis's values for --quick runs "
			      "(a design's topology overrides go under the design's own 'quick')", qy->k[k]->str);
			return CCS_STEP_DIAG;
		}
	if (!dy->n || !wy->n) {
		ccs_ytree_error(&R->doc, !dy->n ? dy : wy, "needs at least one entry");
		return CCS_STEP_DIAG;
	}
	if (sy && sy->n > CCS_RUN_MAX_AXES) {
		ccs_scenario_error(&R->doc, sy, "%u sweep axes; at most %d", sy->n, CCS_RUN_MAX_AXES);
		return CCS_STEP_DIAG;
	}
	R->S.gs = ccs_calloc(dy->n, sizeof *R->S.gs);
	R->S.ws = ccs_calloc(wy->n, sizeof *R->S.ws);
	R->S.ax = ccs_calloc(sy ? sy->n + 1 : 1, sizeof *R->S.ax);
	R->S.lax_off = ccs_calloc(wy->n + 1, sizeof *R->S.lax_off);
	R->S.nwy = (int)wy->n;
	if (!R->S.gs || !R->S.ws || !R->S.ax || !R->S.lax_off)
		return CCS_STEP_OOM;
	for (uint32_t i = 0; i < dy->n; i++, R->S.ng++)
		if (ccs_scenario_load_design(&R->doc, dy->v[i], R->dir, R->quick, &R->S.gs[i]))
			return CCS_STEP_DIAG;
	/* global axes: topology ones first */
	for (int pass = 0; pass < 2 && sy; pass++)
		for (uint32_t k = 0; k < sy->n; k++) {
			int wl = !strncmp(sy->k[k]->str, "workload.", 9);
			if (wl != pass)
				continue;
			struct axis *a = &R->S.ax[R->S.nax];
			if (ccs_sweep_axis_from(&R->doc, sy->k[k], sy->v[k], a))
				return CCS_STEP_DIAG;
			a->workload = wl;
			/* a quick run: the scenario's 'quick' values of the axis, else
			 * its first and last */
			const struct ccs_ynode *qv = R->quick && qy ? ccs_ytree_get(qy, sy->k[k]->str) : NULL;
			if (qv) {
				ccs_free(a->val);
				a->val = NULL;
				if (ccs_sweep_axis_from(&R->doc, sy->k[k], qv, a))
					return CCS_STEP_DIAG;
			} else if (R->quick && a->n > 2) {
				a->val[1] = a->val[a->n - 1];
				a->n = 2;
			}
			R->S.nax++;
			R->S.ntopo_ax += !wl;
		}
	return CCS_STEP_OK;
}

/* The workloads as written (names, nodes), and their local axes. */
static int load_workloads(struct run *R)
{
	const struct ccs_ynode *wy = ccs_ytree_get(R->root, "workloads");
	/* the workloads as written (names, nodes), and their local axes */
	for (uint32_t i = 0; i < wy->n; i++, R->S.nw++) {
		const struct ccs_ynode *m = wy->v[i];
		if (ccs_ytree_kind(&R->doc, m, CCS_Y_MAP, "a workload"))
			return CCS_STEP_DIAG;
		const struct ccs_ynode *szy = ccs_ytree_get(m, "sizes");
		if (szy && ccs_ytree_get(m, "bytes")) {
			ccs_scenario_error(&R->doc, szy, "'sizes' and 'bytes' cannot both be given");
			return CCS_STEP_DIAG;
		}
		R->S.lax_off[i + 1] = R->S.lax_off[i];
		for (uint32_t k = 0; k < m->n; k++) {
			int is_sizes = !strcmp(m->k[k]->str, "sizes");
			if (!is_sizes && m->v[k]->kind != CCS_Y_SEQ)
				continue;
			struct axis *na = ccs_realloc(R->S.lax, (size_t)(R->S.lax_off[i + 1] + 1) * sizeof *R->S.lax);
			if (!na)
				return CCS_STEP_OOM;
			R->S.lax = na;
			struct axis *a = &R->S.lax[R->S.lax_off[i + 1]];
			memset(a, 0, sizeof *a);
			if (is_sizes ? ccs_sweep_sizes_axis(&R->doc, m->k[k], m->v[k], a, R->quick) : ccs_sweep_axis_from(&R->doc, m->k[k], m->v[k], a))
				return CCS_STEP_DIAG;
			R->S.lax_off[i + 1]++;
		}
		/* the base load checks keys and values other than the lists */
		int nl = R->S.lax_off[i + 1] - R->S.lax_off[i];
		const char *ok[16];
		const struct ccs_ynode *ov[16];
		if (nl > 16) {
			ccs_ytree_error(&R->doc, m, "at most 16 list-valued keys in a workload");
			return CCS_STEP_DIAG;
		}
		for (int k = 0; k < nl; k++) {
			ok[k] = R->S.lax[R->S.lax_off[i] + k].key;
			ov[k] = R->S.lax[R->S.lax_off[i] + k].val[0];
		}
		if (ccs_sweep_load_work_with(&R->doc, m, nl, ok, ov, &R->S.ws[i]))
			return CCS_STEP_DIAG;
	}
	return CCS_STEP_OK;
}

/* The study's points (run/points.c). */
static int count_points(struct run *R)
{
	R->pts.root = R->root;
	return ccs_points_count(&R->pts);
}
static int design_instances(struct run *R) { return ccs_points_designs(&R->pts); }
static int workload_instances(struct run *R) { return ccs_points_workloads(&R->pts); }
static int make_points(struct run *R) { return ccs_points_make(&R->pts); }

/* --check: the scenario holds; say so and stop before the database. */
static int check_only(struct run *R)
{
	if (!R->check)
		return CCS_STEP_OK;
	char sh[64] = "";
	if (R->shard_n)
		snprintf(sh, sizeof sh, " in shard %zu of %zu", R->shard_k, R->shard_n);
	printf("%s: %s: ok: %zu points%s from %zu design and %zu workload instances%s\n", me, R->path, R->S.npt, sh,
	       R->S.ninst, R->S.nwi, R->S.skipped ? "; combinations NCCL does not offer left out" : "");
	return CCS_STEP_DONE;
}

/* --shard: only the shard's points. */
static int pick_shard(struct run *R)
{
	if (R->shard_n)
		ccs_shard_keep(&R->S, R->shard_k, R->shard_n);
	return CCS_STEP_OK;
}

/* --slurm: the scripts, and stop. */
static int slurm_scripts(struct run *R)
{
	if (!R->slurm.on)
		return CCS_STEP_OK;
	return ccs_slurm_write(&R->S, &R->slurm, R->path, R->shash, R->db_path, R->jobs, R->engine_s, R->quick) ? CCS_STEP_FAIL
	                                                                                                    : CCS_STEP_DONE;
}

/* The plots' folder: --out, else ccsim-out/NAME. */
static void set_outdir(struct run *R)
{
	snprintf(R->S.outdir, sizeof R->S.outdir, "%s", R->out_s ? R->out_s : "ccsim-out");
	if (!R->out_s) {
		char sl[200];
		ccs_plot_slug(R->S.name, sl, sizeof sl);
		size_t l = strlen(R->S.outdir);
		snprintf(R->S.outdir + l, sizeof R->S.outdir - l, "/%s", sl);
	}
}

/* --mpi, ranks but 0: compute what rank 0 hands out, then stop. */
static int mpi_worker(struct run *R)
{
	if (!R->mpi || !R->rank)
		return CCS_STEP_OK;
	set_outdir(R);
	size_t done;
	int how = ccs_mpi_run(&R->S, NULL, 0, &done);
	R->mpi_done = 1;
	return how == CCS_RUN_DONE ? CCS_STEP_DONE : CCS_STEP_FAIL;
}

/* The results database: what is stored already is not run again; the
 * plots' folder. */
static int open_results(struct run *R)
{
	/* the database: what is stored already is not run again */
	struct ccs_diag dd;
	memset(&dd, 0, sizeof dd);
	if (ccs_store_open(R->db_path, &R->S.db, &dd) ||
	    ccs_store_scenario(R->S.db, R->S.name, R->path, R->shash, CCS_VERSION, &R->S.scen_id, &dd) ||
	    ccs_store_results(R->S.db, R->S.scen_id, &R->rows, &R->nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		return CCS_STEP_FAIL;
	}
	if (R->nrows > 1)
		qsort(R->rows, R->nrows, sizeof *R->rows, ccs_output_by_key);
	R->todo = ccs_malloc((R->S.npt + 1) * sizeof *R->todo);
	if (!R->todo)
		return CCS_STEP_OOM;
	R->ntodo = 0;
	R->nold = 0;
	for (size_t i = 0; i < R->S.npt; i++) {
		R->S.pt[i].done = ccs_output_find_result(R->rows, R->nrows, R->S.pt[i].key, R->S.inst[R->S.pt[i].inst].hash) != NULL;
		if (R->S.pt[i].done)
			R->nold++;
		else
			R->todo[R->ntodo++] = i;
	}
	if (R->S.plots) {
		set_outdir(R);
		if (ccs_plots_mkdirs(R->S.outdir)) {
			fprintf(stderr, "%s: cannot make '%s': %s\n", me, R->S.outdir, strerror(errno));
			return CCS_STEP_FAIL;
		}
	}
	return CCS_STEP_OK;
}

/* The points not stored yet, in workers, stored as they come. */
static int run_points(struct run *R)
{
	struct ccs_runner rn;
	memset(&rn, 0, sizeof rn);
	rn.jobs = R->jobs;
	rn.result_size = sizeof(struct job);
	rn.compute = ccs_exec_compute;
	rn.collect = ccs_exec_collect;
	rn.ctx = &R->S;
	rn.progress = isatty(2) && R->ntodo > 0;
	const char *sa = getenv("CCS_RUN_STOP_AFTER");
	rn.stop_after = sa ? atol(sa) : 0;
	R->ndone = 0;
	R->S.last_flush = ccs_progress_now();
	int how = R->mpi && R->size > 1 ? ccs_mpi_run(&R->S, R->todo, R->ntodo, &R->ndone)
	                                 : ccs_runner_run(&rn, R->todo, R->ntodo, &R->ndone);
	R->mpi_done = how != CCS_RUN_FAILED;
	if (ccs_exec_flush_results(&R->S))
		how = CCS_RUN_FAILED;
	if (how == CCS_RUN_INTERRUPTED) {
		fprintf(stderr, "%s: interrupted: %zu of %zu points stored in %s (%zu before this run); run the same command again to finish\n",
		        me, R->nold + R->S.stored, R->S.npt, R->db_path, R->nold);
		R->rc = 130;
		return CCS_STEP_FAIL;
	}
	if (how != CCS_RUN_DONE || R->S.failed) {
		fprintf(stderr, "%s: %zu point%s failed; %zu stored\n", me, R->S.failed, R->S.failed == 1 ? "" : "s", R->S.stored);
		return CCS_STEP_FAIL;
	}
	return CCS_STEP_OK;
}

/* Every point's result from the database: the tables, then the plots. */
/* A number as a CSV field: "" where there is none (NaN, infinite). */
static const char *csv_num(double v, char buf[32])
{
	if (!isfinite(v))
		return "";
	snprintf(buf, 32, "%.6g", v);
	return buf;
}

static int report(struct run *R)
{
	/* every point's result, from the database */
	struct ccs_diag dd;
	memset(&dd, 0, sizeof dd);
	ccs_free(R->rows);
	R->rows = NULL;
	if (ccs_store_results(R->S.db, R->S.scen_id, &R->rows, &R->nrows, &dd)) {
		fprintf(stderr, "%s\n", dd.msg);
		return CCS_STEP_FAIL;
	}
	if (R->nrows > 1)
		qsort(R->rows, R->nrows, sizeof *R->rows, ccs_output_by_key);
	R->res = ccs_calloc(R->S.npt + 1, sizeof *R->res);
	if (!R->res)
		return CCS_STEP_OOM;
	for (size_t i = 0; i < R->S.npt; i++)
		R->res[i] = ccs_output_find_result(R->rows, R->nrows, R->S.pt[i].key, R->S.inst[R->S.pt[i].inst].hash);
	if (!strcmp(R->format, "csv")) {
		printf("scenario,workload,design,axes,ranks,algo,size,model_us,sim_us,bandwidth_GBps\n");
		for (size_t i = 0; i < R->S.npt; i++) {
			const struct ccs_result *r = R->res[i];
			if (!r)
				continue;
			/* names as CSV fields (a design called "x128 (1,024 GPUs)" has a comma); a
			 * time or rate the engine did not give (or one rank's rate: nothing
			 * moves) is an empty field, never a number that means "none" */
			char f[5][900], n[3][32];
			double bw = (R->S.engine == 1 ? r->bw_sim_Bps : r->bw_model_Bps) / 1e9;
			printf("%s,%s,%s,%s,%d,%s,%llu,%s,%s,%s\n", ccs_escape_csv(R->S.name, f[0], sizeof f[0]),
			       ccs_escape_csv(r->workload, f[1], sizeof f[1]), ccs_escape_csv(r->design, f[2], sizeof f[2]),
			       ccs_escape_csv(r->axes, f[3], sizeof f[3]), r->ranks, ccs_escape_csv(r->algo, f[4], sizeof f[4]),
			       (unsigned long long)r->size, csv_num(r->t_model_s * 1e6, n[0]), csv_num(r->t_sim_s * 1e6, n[1]),
			       csv_num(bw > 0 && r->ranks > 1 ? bw : (double)NAN, n[2]));
		}
	} else if (!R->S.nax && R->S.nwi == (size_t)R->S.nw) {
		ccs_output_print_grid(&R->S, R->res);
	} else {
		ccs_output_print_tables(&R->S, R->res);
	}
	if (!strcmp(R->format, "table"))
		printf("#\n# %zu points: %zu run now, %zu from %s (scenario %lld)%s\n", R->S.npt, R->ndone, R->nold, R->db_path,
		       (long long)R->S.scen_id, R->S.skipped ? "; algorithm/protocol combinations that do not apply left out" : "");
	if (R->S.plots) {
		if (ccs_plots_compare(&R->S, R->res, &R->P) || ccs_plots_busbw(&R->S, R->res, &R->P) || ccs_plots_axes(&R->S, R->res, &R->P) || ccs_plots_breakdown(&R->S, R->res, &R->P) || ccs_plots_heat(&R->S, &R->P))
			return CCS_STEP_FAIL;
		int have = ccs_plot_have_gnuplot();
		size_t drawn = 0;
		for (size_t i = 0; i < R->P.n && have; i++)
			drawn += !ccs_plot_render(R->S.outdir, R->P.name[i]);
		if (!strcmp(R->format, "table")) {
			if (!have)
				printf("# plots: gnuplot is not installed: %zu .dat and .gp files in %s/ (sh .ci/deps installs it)\n",
				       R->P.n, R->S.outdir);
			else
				printf("# plots: %zu of %zu drawn in %s/ (.png and .svg, with their .dat and .gp):\n", drawn, R->P.n,
				       R->S.outdir);
			for (size_t i = 0; i < R->P.n && have; i++)
				printf("#   %s/%s.png\n", R->S.outdir, R->P.name[i]);
		}
		if (have && drawn < R->P.n)
			return CCS_STEP_FAIL;
	}
	return CCS_STEP_OK;
}

static void run_release(struct run *R)
{
	for (size_t i = 0; i < R->S.ninst; i++) {
		if (R->S.inst[i].built)
			ccs_comm_release(&R->S.inst[i].c);
		ccs_topo_free(R->S.inst[i].t);
	}
	for (int a = 0; a < R->S.nax; a++)
		ccs_free(R->S.ax[a].val);
	/* every local axis loaded, a workload's that failed half way included:
	 * lax_off holds running counts, 0 past the last workload read */
	int nlax = 0;
	for (int w = 0; R->S.lax_off && w <= R->S.nwy; w++)
		nlax = R->S.lax_off[w] > nlax ? R->S.lax_off[w] : nlax;
	for (int k = 0; k < nlax; k++)
		ccs_free(R->S.lax[k].val);
	ccs_free(R->S.lax);
	ccs_free(R->S.lax_off);
	ccs_free(R->S.ax);
	ccs_free(R->S.inst);
	ccs_free(R->S.wi);
	ccs_free(R->S.pt);
	ccs_free(R->S.at);
	ccs_free(R->S.gs);
	ccs_free(R->S.ws);
	ccs_free(R->S.pending);
	ccs_free(R->P.name);
	ccs_free(R->todo);
	ccs_free(R->res);
	ccs_free(R->rows);
	ccs_free(R->pts.idx);
	ccs_store_close(R->S.db);
	ccs_ytree_release(&R->doc);
}

/* ccsim run: the options, then each step in turn until one stops. */
int ccs_cmd_run(int argc, char **argv)
{
	struct run *R = ccs_calloc(1, sizeof *R);
	if (!R) {
		fprintf(stderr, "%s: out of memory\n", me);
		return 1;
	}
	R->format = "table";
	R->db_path = "ccsim.db";
	R->jobs = 1;
	R->plots = 1;
	int rc = parse_args(R, argc, argv);
	if (rc) {
		ccs_free(R);
		return rc == 1 ? 0 : 2;
	}
	R->S.path = R->path;
	R->S.plots = R->plots;
	R->pts.S = &R->S;
	R->pts.doc = &R->doc;
	R->rc = 1;
	if (R->mpi && ccs_mpi_start(&argc, &argv, &R->rank, &R->size)) {
		ccs_free(R);
		return 1;
	}
	static int (*const steps[])(struct run *) = { open_scenario, load_designs, load_workloads, count_points, design_instances,
	                                               workload_instances, make_points, pick_shard, check_only, slurm_scripts,
	                                               mpi_worker, open_results, run_points, report };
	int how = CCS_STEP_OK;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0] && how == CCS_STEP_OK; i++)
		how = steps[i](R);
	if (how == CCS_STEP_OK || how == CCS_STEP_DONE)
		R->rc = ccs_args_flush() ? 1 : 0;
	else if (how == CCS_STEP_OOM)
		fprintf(stderr, "%s: out of memory\n", me);
	else if (how == CCS_STEP_DIAG)
		fprintf(stderr, "%s\n", R->diag.set ? R->diag.msg : "ccsim run: bad scenario");
	rc = R->rc;
	int mpi_done = R->mpi_done;
	run_release(R);
	ccs_free(R);
	/* a rank that stops before the points were handed out would leave the
	 * others waiting: MPI_Abort then */
	ccs_mpi_stop(rc && !mpi_done);
	return rc;
}
