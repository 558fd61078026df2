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
	uint32_t *idx;
};

/* A step's outcome: go on, or stop with the scenario's positioned message
 * (E_DIAG), out of memory, or a message already printed (rc kept). */
enum { E_OK, E_DIAG, E_OOM, E_FAIL, E_DONE };

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
		return E_FAIL;
	}
	char *text = NULL;
	size_t tlen = 0;
	if (ccs_ingest_read_file(R->path, &text, &tlen, &R->diag)) {
		fprintf(stderr, "%s\n", R->diag.msg);
		return E_FAIL;
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
		return E_DIAG;
	R->S.name = name;
	if (R->engine_s)
		eng = R->engine_s;
	R->S.engine = !strcmp(eng, "model") ? 0 : !strcmp(eng, "sim") ? 1 : !strcmp(eng, "both") ? 2 : -1;
	if (R->S.engine < 0) {
		if (R->engine_s)
			fprintf(stderr, "%s: unknown engine '%s'; one of: model, sim, both\n", me, eng);
		else {
			ccs_scenario_error(&R->doc, ccs_ytree_get(R->root, "engine"), "unknown engine '%s'; one of: model, sim, both", eng);
			return E_DIAG;
		}
		return E_FAIL;
	}
	return E_OK;
}

/* The designs and the global sweep axes (topology ones first), each
 * checked where it stands. */
static int load_designs(struct run *R)
{
	const struct ccs_ynode *dy = ccs_ytree_get(R->root, "designs"), *wy = ccs_ytree_get(R->root, "workloads");
	const struct ccs_ynode *sy = ccs_ytree_get(R->root, "sweep"), *qy = ccs_ytree_get(R->root, "quick");
	if (ccs_ytree_kind(&R->doc, dy, CCS_Y_SEQ, "designs") || ccs_ytree_kind(&R->doc, wy, CCS_Y_SEQ, "workloads") ||
	    (sy && ccs_ytree_kind(&R->doc, sy, CCS_Y_MAP, "sweep")) || (qy && ccs_ytree_kind(&R->doc, qy, CCS_Y_MAP, "quick")))
		return E_DIAG;
	for (uint32_t k = 0; qy && k < qy->n; k++)
		if (!sy || !ccs_ytree_get(sy, qy->k[k]->str)) {
			ccs_scenario_error(&R->doc, qy->k[k], "'%s' is not a sweep axis: 'quick' gives an axis's values for --quick runs "
			      "(a design's topology overrides go under the design's own 'quick')", qy->k[k]->str);
			return E_DIAG;
		}
	if (!dy->n || !wy->n) {
		ccs_ytree_error(&R->doc, !dy->n ? dy : wy, "needs at least one entry");
		return E_DIAG;
	}
	if (sy && sy->n > CCS_RUN_MAX_AXES) {
		ccs_scenario_error(&R->doc, sy, "%u sweep axes; at most %d", sy->n, CCS_RUN_MAX_AXES);
		return E_DIAG;
	}
	R->S.gs = ccs_calloc(dy->n, sizeof *R->S.gs);
	R->S.ws = ccs_calloc(wy->n, sizeof *R->S.ws);
	R->S.ax = ccs_calloc(sy ? sy->n + 1 : 1, sizeof *R->S.ax);
	R->S.lax_off = ccs_calloc(wy->n + 1, sizeof *R->S.lax_off);
	R->S.nwy = (int)wy->n;
	if (!R->S.gs || !R->S.ws || !R->S.ax || !R->S.lax_off)
		return E_OOM;
	for (uint32_t i = 0; i < dy->n; i++, R->S.ng++)
		if (ccs_scenario_load_design(&R->doc, dy->v[i], R->dir, R->quick, &R->S.gs[i]))
			return E_DIAG;
	/* global axes: topology ones first */
	for (int pass = 0; pass < 2 && sy; pass++)
		for (uint32_t k = 0; k < sy->n; k++) {
			int wl = !strncmp(sy->k[k]->str, "workload.", 9);
			if (wl != pass)
				continue;
			struct axis *a = &R->S.ax[R->S.nax];
			if (ccs_sweep_axis_from(&R->doc, sy->k[k], sy->v[k], a))
				return E_DIAG;
			a->workload = wl;
			/* a quick run: the scenario's 'quick' values of the axis, else
			 * its first and last */
			const struct ccs_ynode *qv = R->quick && qy ? ccs_ytree_get(qy, sy->k[k]->str) : NULL;
			if (qv) {
				ccs_free(a->val);
				a->val = NULL;
				if (ccs_sweep_axis_from(&R->doc, sy->k[k], qv, a))
					return E_DIAG;
			} else if (R->quick && a->n > 2) {
				a->val[1] = a->val[a->n - 1];
				a->n = 2;
			}
			R->S.nax++;
			R->S.ntopo_ax += !wl;
		}
	return E_OK;
}

/* The workloads as written (names, nodes), and their local axes. */
static int load_workloads(struct run *R)
{
	const struct ccs_ynode *wy = ccs_ytree_get(R->root, "workloads");
	/* the workloads as written (names, nodes), and their local axes */
	for (uint32_t i = 0; i < wy->n; i++, R->S.nw++) {
		const struct ccs_ynode *m = wy->v[i];
		if (ccs_ytree_kind(&R->doc, m, CCS_Y_MAP, "a workload"))
			return E_DIAG;
		const struct ccs_ynode *szy = ccs_ytree_get(m, "sizes");
		if (szy && ccs_ytree_get(m, "bytes")) {
			ccs_scenario_error(&R->doc, szy, "'sizes' and 'bytes' cannot both be given");
			return E_DIAG;
		}
		R->S.lax_off[i + 1] = R->S.lax_off[i];
		for (uint32_t k = 0; k < m->n; k++) {
			int is_sizes = !strcmp(m->k[k]->str, "sizes");
			if (!is_sizes && m->v[k]->kind != CCS_Y_SEQ)
				continue;
			struct axis *na = ccs_realloc(R->S.lax, (size_t)(R->S.lax_off[i + 1] + 1) * sizeof *R->S.lax);
			if (!na)
				return E_OOM;
			R->S.lax = na;
			struct axis *a = &R->S.lax[R->S.lax_off[i + 1]];
			memset(a, 0, sizeof *a);
			if (is_sizes ? ccs_sweep_sizes_axis(&R->doc, m->k[k], m->v[k], a, R->quick) : ccs_sweep_axis_from(&R->doc, m->k[k], m->v[k], a))
				return E_DIAG;
			R->S.lax_off[i + 1]++;
		}
		/* the base load checks keys and values other than the lists */
		int nl = R->S.lax_off[i + 1] - R->S.lax_off[i];
		const char *ok[16];
		const struct ccs_ynode *ov[16];
		if (nl > 16) {
			ccs_ytree_error(&R->doc, m, "at most 16 list-valued keys in a workload");
			return E_DIAG;
		}
		for (int k = 0; k < nl; k++) {
			ok[k] = R->S.lax[R->S.lax_off[i] + k].key;
			ov[k] = R->S.lax[R->S.lax_off[i] + k].val[0];
		}
		if (ccs_sweep_load_work_with(&R->doc, m, nl, ok, ov, &R->S.ws[i]))
			return E_DIAG;
	}
	return E_OK;
}

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
static int count_points(struct run *R)
{
	size_t ninst = (size_t)R->S.ng, nwi = 0, glob = 1;
	int over = 0;
	for (int a = 0; a < R->S.ntopo_ax; a++)
		over |= mul_capped(&ninst, R->S.ax[a].n);
	for (int a = R->S.ntopo_ax; a < R->S.nax; a++)
		over |= mul_capped(&glob, R->S.ax[a].n);
	for (int w = 0; w < R->S.nw && !over; w++) {
		size_t n = glob;
		for (int k = R->S.lax_off[w]; k < R->S.lax_off[w + 1]; k++)
			over |= mul_capped(&n, R->S.lax[k].n);
		nwi += n;
		over |= nwi > CCS_RUN_MAX_POINTS;
	}
	if (over || mul_capped(&ninst, nwi)) {
		const struct ccs_ynode *at = ccs_ytree_get(R->root, "sweep");
		ccs_scenario_error(&R->doc, at ? at : R->root, "the scenario has more than %d points (designs x sweep values "
		                   "x workload lists); split it or sweep fewer values", CCS_RUN_MAX_POINTS);
		return E_DIAG;
	}
	return E_OK;
}

/* The --set overrides of design g on the topology axes' values at R->idx:
 * its own, then each axis's (a 'faults' value split into faults+= ones);
 * how many, or -1 with the scenario's positioned message. */
static int inst_sets(struct run *R, int g, const char **sets, char (*buf)[256], char (*fbuf)[256])
{
	int ns = 0, nf = 0;
	for (int k = 0; k < R->S.gs[g].nsets; k++)
		sets[ns++] = R->S.gs[g].sets[k];
	for (int a = 0; a < R->S.ntopo_ax; a++) {
		const struct ccs_ynode *vy = R->S.ax[a].val[R->idx[a]];
		if ((size_t)snprintf(buf[a], 256, "%s=%s", R->S.ax[a].key, vy->str) >= 256) {
			ccs_scenario_error(&R->doc, vy, "a sweep value longer than %d characters", 248);
			return -1;
		}
		if (strcmp(R->S.ax[a].key, "faults")) {
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
				ccs_scenario_error(&R->doc, vy, "more than 16 faults in one value of 'faults'");
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
static int design_instances(struct run *R)
{
	/* design instances: each design on each combination of the topology axes */
	R->idx = ccs_calloc((size_t)R->S.nax + 32, sizeof *R->idx);
	if (!R->idx)
		return E_OOM;
	size_t ncombo = 1;
	for (int a = 0; a < R->S.ntopo_ax; a++)
		ncombo *= R->S.ax[a].n;
	R->S.inst = ccs_calloc((size_t)R->S.ng * ncombo, sizeof *R->S.inst);
	if (!R->S.inst)
		return E_OOM;
	for (int g = 0; g < R->S.ng; g++) {
		memset(R->idx, 0, (size_t)R->S.nax * sizeof *R->idx);
		do {
			struct inst *in = &R->S.inst[R->S.ninst++];
			in->design = g;
			if (ccs_sweep_axes_text(R->S.ax, R->S.ntopo_ax, R->idx, in->axes, sizeof in->axes, 0)) {
				ccs_scenario_error(&R->doc, ccs_ytree_get(R->root, "sweep"), "the sweep values of one design "
				                   "take more than %d characters (\"%.60s...\")", CCS_RUN_AXES_MAX, in->axes);
				return E_DIAG;
			}
			const char *sets[32 + CCS_RUN_MAX_AXES + 16];
			char buf[CCS_RUN_MAX_AXES][256], fbuf[16][256];
			int ns = inst_sets(R, g, sets, buf, fbuf);
			if (ns < 0)
				return E_DIAG;
			struct ccs_diag td;
			memset(&td, 0, sizeof td);
			if (ccs_topo_yaml_load(R->S.gs[g].path, sets, ns, &in->t, &td)) {
				const struct ccs_ynode *at = ccs_ytree_get(R->S.gs[g].node, "topology");
				for (int a = 0; a < R->S.ntopo_ax; a++)
					if (strstr(td.msg, strcmp(R->S.ax[a].key, "faults") ? buf[a] : R->S.ax[a].val[R->idx[a]]->str))
						at = R->S.ax[a].val[R->idx[a]];
				char msg[1200];
				snprintf(msg, sizeof msg, "design '%.80s'%s%.200s: %.800s", R->S.gs[g].name, in->axes[0] ? " with " : "", in->axes,
				         td.msg);
				ccs_escape_utf8_fix(msg);   /* a name cut to fit keeps whole characters */
				ccs_ytree_error(&R->doc, at, msg);
				return E_DIAG;
			}
			char err[256];
			if (in->t->ntimed) {
				snprintf(err, sizeof err, "fault '%.120s' strikes during a run ('@'); a scenario's faults apply from "
				         "the start", in->t->timed[0].spec);
				ccs_escape_utf8_fix(err);   /* a name cut to fit keeps whole characters */
				ccs_ytree_error(&R->doc, R->S.gs[g].node, err);
				return E_DIAG;
			}
			if (ccs_comm_build(in->t, (int)R->S.gs[g].ranks, (int)R->S.gs[g].ppn, &in->c, err, sizeof err)) {
				ccs_ytree_error(&R->doc, R->S.gs[g].node, err);
				return E_DIAG;
			}
			in->built = 1;
			ccs_sweep_topo_hash(in->t, in->hash);
		} while (R->S.ntopo_ax && ccs_sweep_next_combo(R->S.ax, R->S.ntopo_ax, R->idx));
	}
	return E_OK;
}

/* Workload instances: each workload on each combination of the global
 * workload axes and its own lists. */
static int workload_instances(struct run *R)
{
	/* workload instances: each workload on each combination of the global
	 * workload axes and its own lists */
	for (int w = 0; w < R->S.nw; w++) {
		struct axis all[CCS_RUN_MAX_AXES + 16];
		int na = 0;
		for (int a = R->S.ntopo_ax; a < R->S.nax; a++) {   /* at most CCS_RUN_MAX_AXES */
			all[na] = R->S.ax[a];
			all[na].key = R->S.ax[a].key + 9;
			na++;
		}
		for (int k = R->S.lax_off[w]; k < R->S.lax_off[w + 1]; k++)   /* at most 16 */
			all[na++] = R->S.lax[k];
		memset(R->idx, 0, 48 * sizeof *R->idx < ((size_t)R->S.nax + 32) * sizeof *R->idx ? 48 * sizeof *R->idx : ((size_t)R->S.nax + 32) * sizeof *R->idx);
		uint32_t wid[48] = { 0 };
		do {
			struct winst *nw2 = ccs_realloc(R->S.wi, (R->S.nwi + 1) * sizeof *R->S.wi);
			if (!nw2)
				return E_OOM;
			R->S.wi = nw2;
			struct winst *wi = &R->S.wi[R->S.nwi];
			memset(wi, 0, sizeof *wi);
			wi->work = w;
			if (ccs_sweep_axes_text(all, na, wid, wi->axes, sizeof wi->axes, 0)) {
				ccs_scenario_error(&R->doc, R->S.ws[w].node, "the sweep values of workload '%s' take more than %d "
				                   "characters (\"%.60s...\")", R->S.ws[w].name, CCS_RUN_AXES_MAX, wi->axes);
				return E_DIAG;
			}
			const char *ok[48];
			const struct ccs_ynode *ov[48];
			for (int k = 0; k < na; k++) {
				ok[k] = all[k].key;
				ov[k] = all[k].val[wid[k]];
			}
			if (ccs_sweep_load_work_with(&R->doc, R->S.ws[w].node, na, ok, ov, &wi->w))
				return E_DIAG;
			R->S.nwi++;
		} while (na && ccs_sweep_next_combo(all, na, wid));
	}
	return E_OK;
}

/* The points, each checked before any runs (one that cannot apply is an
 * error, or left out where its algorithm or protocol came from a list). */
static int make_points(struct run *R)
{
	/* points, checked before any runs */
	R->S.pt = ccs_calloc(R->S.ninst * R->S.nwi + 1, sizeof *R->S.pt);
	if (!R->S.pt)
		return E_OOM;
	for (size_t in = 0; in < R->S.ninst; in++)
		for (size_t k = 0; k < R->S.nwi; k++) {
			struct point *p = &R->S.pt[R->S.npt];
			p->ord = R->S.npt++;
			p->inst = (int)in;
			p->wi = (int)k;
			p->heat = k + 1 == R->S.nwi || R->S.wi[k + 1].work != R->S.wi[k].work;
			snprintf(p->key, sizeof p->key, "design=%s|workload=%s|%s%s%s", R->S.gs[R->S.inst[in].design].name,
			         R->S.ws[R->S.wi[k].work].name, R->S.inst[in].axes, R->S.inst[in].axes[0] && R->S.wi[k].axes[0] ? " " : "",
			         R->S.wi[k].axes);
			const struct work *w = &R->S.wi[k].w;
			const struct inst *I = &R->S.inst[in];
			char err[256] = "";
			int bad = 0;
			if (w->moe)
				bad = ccs_moe_check(&w->cfg, w->ranks ? (int)w->ranks : I->c.n, err, sizeof err) != 0;
			else if (w->kv)
				bad = ccs_cell_kv_check(I->t, &I->c, R->S.gs[I->design].ppn, w, err, sizeof err) != 0;
			else {
				struct ccs_comm c2;
				const struct ccs_comm *cp = &I->c;
				int own = w->ranks && w->ranks != I->c.n;
				if (own && ccs_comm_build(I->t, (int)w->ranks, (int)R->S.gs[I->design].ppn, &c2, err, sizeof err))
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
			if (bad && !w->moe && !w->kv && ccs_sweep_listed_algo(&R->S, R->S.wi[k].work)) {
				R->S.npt--;
				R->S.skipped++;
				continue;
			}
			if (bad) {
				char msg[900], ax[520];
				snprintf(ax, sizeof ax, "%s%s%s", I->axes, I->axes[0] && R->S.wi[k].axes[0] ? " " : "", R->S.wi[k].axes);
				snprintf(msg, sizeof msg, "on design '%s'%s%s%s: %s", R->S.gs[I->design].name, ax[0] ? " (" : "", ax,
				         ax[0] ? ")" : "", err);
				ccs_ytree_error(&R->doc, R->S.ws[R->S.wi[k].work].node, msg);
				return E_DIAG;
			}
		}
	R->S.at = ccs_malloc((R->S.ninst * R->S.nwi + 1) * sizeof *R->S.at);
	if (!R->S.at)
		return E_OOM;
	for (size_t i = 0; i < R->S.ninst * R->S.nwi; i++)
		R->S.at[i] = -1;
	for (size_t i = 0; i < R->S.npt; i++)
		R->S.at[(size_t)R->S.pt[i].inst * R->S.nwi + (size_t)R->S.pt[i].wi] = (int32_t)i;
	return E_OK;
}

/* --check: the scenario holds; say so and stop before the database. */
static int check_only(struct run *R)
{
	if (!R->check)
		return E_OK;
	char sh[64] = "";
	if (R->shard_n)
		snprintf(sh, sizeof sh, " in shard %zu of %zu", R->shard_k, R->shard_n);
	printf("%s: %s: ok: %zu points%s from %zu design and %zu workload instances%s\n", me, R->path, R->S.npt, sh,
	       R->S.ninst, R->S.nwi, R->S.skipped ? "; combinations NCCL does not offer left out" : "");
	return E_DONE;
}

/* --shard: only the shard's points. */
static int pick_shard(struct run *R)
{
	if (R->shard_n)
		ccs_shard_keep(&R->S, R->shard_k, R->shard_n);
	return E_OK;
}

/* --slurm: the scripts, and stop. */
static int slurm_scripts(struct run *R)
{
	if (!R->slurm.on)
		return E_OK;
	return ccs_slurm_write(&R->S, &R->slurm, R->path, R->shash, R->db_path, R->jobs, R->engine_s, R->quick) ? E_FAIL
	                                                                                                    : E_DONE;
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
		return E_OK;
	set_outdir(R);
	size_t done;
	int how = ccs_mpi_run(&R->S, NULL, 0, &done);
	R->mpi_done = 1;
	return how == CCS_RUN_DONE ? E_DONE : E_FAIL;
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
		return E_FAIL;
	}
	if (R->nrows > 1)
		qsort(R->rows, R->nrows, sizeof *R->rows, ccs_output_by_key);
	R->todo = ccs_malloc((R->S.npt + 1) * sizeof *R->todo);
	if (!R->todo)
		return E_OOM;
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
			return E_FAIL;
		}
	}
	return E_OK;
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
		return E_FAIL;
	}
	if (how != CCS_RUN_DONE || R->S.failed) {
		fprintf(stderr, "%s: %zu point%s failed; %zu stored\n", me, R->S.failed, R->S.failed == 1 ? "" : "s", R->S.stored);
		return E_FAIL;
	}
	return E_OK;
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
		return E_FAIL;
	}
	if (R->nrows > 1)
		qsort(R->rows, R->nrows, sizeof *R->rows, ccs_output_by_key);
	R->res = ccs_calloc(R->S.npt + 1, sizeof *R->res);
	if (!R->res)
		return E_OOM;
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
			return E_FAIL;
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
			return E_FAIL;
	}
	return E_OK;
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
	ccs_free(R->idx);
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
	R->rc = 1;
	if (R->mpi && ccs_mpi_start(&argc, &argv, &R->rank, &R->size)) {
		ccs_free(R);
		return 1;
	}
	static int (*const steps[])(struct run *) = { open_scenario, load_designs, load_workloads, count_points, design_instances,
	                                               workload_instances, make_points, pick_shard, check_only, slurm_scripts,
	                                               mpi_worker, open_results, run_points, report };
	int how = E_OK;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0] && how == E_OK; i++)
		how = steps[i](R);
	if (how == E_OK || how == E_DONE)
		R->rc = ccs_args_flush() ? 1 : 0;
	else if (how == E_OOM)
		fprintf(stderr, "%s: out of memory\n", me);
	else if (how == E_DIAG)
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
