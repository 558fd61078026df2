/*
** sim/cli/cmd_synth.c: `ccsim synth`: a schedule synthesized for the
** topology (sim/synth/synth.h), its LP bound, the comparison with NCCL's
** choice and the fastest built-in algorithm, and its exports (MSCCL XML,
** MSCCL++ JSON, ccsim schedule YAML), each read back and simulated again.
*/
#include "cli.h"

#include "../../model/coll.h"
#include "../../model/units.h"
#include "../sched/build.h"
#include "../sim.h"
#include "../synth/synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim synth";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s -t TOPO -c allgather|reducescatter|allreduce|alltoall [options]\n"
	        "  -n N, --ppn P     ranks (default: every GPU), at most P per node\n"
	        "  -b SIZE           the size the schedule is made and exported for (1GiB; nccl-tests' size)\n"
	        "  --sizes LIST      sizes of the comparison table (default: SIZE/64, SIZE/8, SIZE), e.g. 16MiB,1GiB\n"
	        "  --chunks K        chunks per shard (default: one per 64KiB of shard, from 1 to 64)\n"
	        "  --channels C      channels the chunks take turns on (default: K)\n"
	        "  --rounds R        column generation rounds at most (400)\n"
	        "  --xml FILE        write the MSCCL algorithm (XML) within the limits of MSCCL's runtime\n"
	        "                    (blocks past 64 steps in pieces; a lowering it holds where it refuses the fastest)\n"
	        "  --json FILE       write the MSCCL++ execution plan (JSON)\n"
	        "  --yaml FILE       write ccsim's schedule YAML\n"
	        "  --no-compare      only the synthesized schedule, not NCCL's algorithms\n"
	        "  --trees           list the trees: root, share, chunks at SIZE, each rank's parent\n"
	        "  --pick fastest|optimum|rails|first|rings   the packing kept: the one that simulates fastest\n"
	        "                    (default), the LP's optimum, its optimum crossing groups on rails only, the\n"
	        "                    first trees (two levels, on the rails) or chains along rings (crossing on rails)\n"
	        "  --format table|csv   (csv: the table alone, the exports' checks on stderr)   --set key.path=value\n",
	        me);
}

struct sreq {
	const char *topo, *coll_s, *format, *xml, *json, *yaml, *sizes_s;
	int nranks, ppn, chunks, channels, rounds, no_compare, trees, pick;
	double bytes;
	double sizes[16];
	int nsizes;
	struct ccs_args_sets sets;
	struct ccs_topo *t;
	struct ccs_comm comm;
	struct ccs_fabric *fab;
	struct ccs_synth syn;
	struct ccs_synth_plan plan;
};

static int take_size(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char err[160];
	if (ccs_parse_qty(v, CCS_QTY_SIZE, o->dest, err, sizeof err) || !(*(double *)o->dest >= 1)) {
		fprintf(stderr, "%s: '%s': %s\n", me_, o->flag, err[0] ? err : "must be at least 1B");
		return -1;
	}
	return 0;
}

/* --pick: which candidate packing to keep ("fastest": whichever
 * simulates fastest; index - 1 is ccs_synth_make's force) */
static const char *const pick_name[5] = { "fastest", "optimum", "rails", "first", "rings" };

static int parse(struct sreq *q, int argc, char **argv)
{
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_STR, &q->topo, 0, 0, NULL, 0, NULL, NULL },
		{ "-c", CCS_ARGS_STR, &q->coll_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-n", CCS_ARGS_INT, &q->nranks, 2, 1 << 20, NULL, 0, NULL, NULL },
		{ "--ppn", CCS_ARGS_INT, &q->ppn, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "-b", CCS_ARGS_FN, &q->bytes, 0, 0, NULL, 0, NULL, take_size },
		{ "--sizes", CCS_ARGS_STR, &q->sizes_s, 0, 0, NULL, 0, NULL, NULL },
		{ "--chunks", CCS_ARGS_INT, &q->chunks, 1, 4096, NULL, 0, NULL, NULL },
		{ "--channels", CCS_ARGS_INT, &q->channels, 1, 64, NULL, 0, NULL, NULL },
		{ "--rounds", CCS_ARGS_INT, &q->rounds, 1, 1000000, NULL, 0, NULL, NULL },
		{ "--xml", CCS_ARGS_STR, &q->xml, 0, 0, NULL, 0, NULL, NULL },
		{ "--json", CCS_ARGS_STR, &q->json, 0, 0, NULL, 0, NULL, NULL },
		{ "--yaml", CCS_ARGS_STR, &q->yaml, 0, 0, NULL, 0, NULL, NULL },
		{ "--no-compare", CCS_ARGS_FLAG, &q->no_compare, 0, 0, NULL, 0, NULL, NULL },
		{ "--trees", CCS_ARGS_FLAG, &q->trees, 0, 0, NULL, 0, NULL, NULL },
		{ "--pick", CCS_ARGS_NAME, &q->pick, 0, 0, pick_name, 5, "candidate", NULL },
		{ "--format", CCS_ARGS_STR, &q->format, 0, 0, NULL, 0, NULL, NULL },
	};
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_shared(&q->sets, argc, argv, &i, usage);
		if (r == CCS_ARGS_TOOK)
			continue;
		if (r)
			return r < 0 ? -1 : 1;
		if (ccs_args_take(me, NULL, opts, sizeof opts / sizeof opts[0], argc, argv, &i))
			return -1;
	}
	return 0;
}

/* --sizes as a list of sizes, or the default three. */
static int read_sizes(struct sreq *q)
{
	if (!q->sizes_s) {
		q->sizes[0] = floor(q->bytes / 64);
		q->sizes[1] = floor(q->bytes / 8);
		q->sizes[2] = q->bytes;
		q->nsizes = 3;
		return 0;
	}
	char buf[512];
	snprintf(buf, sizeof buf, "%s", q->sizes_s);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char err[160];
		if (q->nsizes == 16) {
			fprintf(stderr, "%s: '--sizes': at most 16 sizes\n", me);
			return -1;
		}
		if (ccs_parse_qty(tok, CCS_QTY_SIZE, &q->sizes[q->nsizes], err, sizeof err) || !(q->sizes[q->nsizes] >= 1)) {
			fprintf(stderr, "%s: '--sizes': %s\n", me, err[0] ? err : "a size must be at least 1B");
			return -1;
		}
		q->nsizes++;
	}
	if (!q->nsizes) {
		fprintf(stderr, "%s: '--sizes': no size in '%s'\n", me, q->sizes_s);
		return -1;
	}
	return 0;
}

static int check(struct sreq *q)
{
	if (!q->topo || !q->coll_s) {
		fprintf(stderr, "%s: missing %s (see %s --help)\n", me, !q->topo ? "-t TOPO" : "-c COLL", me);
		return -1;
	}
	int coll = ccs_coll_parse(q->coll_s);
	if (coll != CCS_COLL_ALLGATHER && coll != CCS_COLL_REDUCESCATTER && coll != CCS_COLL_ALLREDUCE && coll != CCS_COLL_ALLTOALL) {
		fprintf(stderr, "%s: cannot synthesize '%s'; one of: allgather, reducescatter, allreduce, alltoall\n", me, q->coll_s);
		return -1;
	}
	if (strcmp(q->format, "table") && strcmp(q->format, "csv")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv\n", me, q->format);
		return -1;
	}
	return read_sizes(q);
}

/* Topology, communicator, fabric, the packing and its plan. */
static int make(struct sreq *q)
{
	if (ccs_args_topo(me, q->topo, &q->sets, &q->t) || ccs_args_comm(me, q->t, q->nranks, q->ppn, &q->comm))
		return -1;
	if (ccs_fabric_new(&q->comm, &q->fab)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	struct ccs_synth_cfg cfg = { ccs_coll_parse(q->coll_s), q->bytes, q->rounds, 0, 0, 0 };
	char err[256];
	int rc = ccs_synth_make(q->fab, &q->comm, &cfg, q->chunks, q->channels, q->pick - 1, &q->syn, err, sizeof err);
	if (rc) {
		fprintf(stderr, "%s: %s\n", me, err);
		return -1;
	}
	return 0;
}

/* The packing lowered for a run of bytes (its chunks and channels). */
static int lower(struct sreq *q, double bytes)
{
	ccs_synth_plan_release(&q->plan);
	ccs_synth_chunk(&q->syn, ccs_fabric_caps(q->fab), ccs_fabric_nres(q->fab), bytes, q->chunks, q->channels);
	if (!isfinite(q->syn.round_s) || ccs_synth_plan_build(&q->syn, &q->plan)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	return 0;
}

/* Simulate the schedule in text (named name) at bytes: its time, or -1
 * after a message. */
static double sim_loaded(struct sreq *q, struct ccs_sched *s, const char *what);

static double sim_text(struct sreq *q, const char *name, const char *text, size_t len, double bytes)
{
	struct ccs_sched s;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int ranks;
	if (ccs_sched_text_load(name, text, len, &q->comm, bytes, &s, &ranks, &d)) {
		fprintf(stderr, "%s: %s\n", me, d.set ? d.msg : "out of memory");
		return -1;
	}
	return sim_loaded(q, &s, name);
}

/* Run a loaded schedule (released here) on the fabric: its time, or -1
 * after a message naming what it was. */
static double sim_loaded(struct sreq *q, struct ccs_sched *s, const char *what)
{
	struct ccs_sim_stats st;
	char err[256];
	ccs_fabric_rewind(q->fab);
	int rc = ccs_sim_run(q->fab, s, &st, NULL, err, sizeof err);
	ccs_sched_release(s);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", me, what, err);
		return -1;
	}
	return st.time_s;
}

/* The synthesized schedule lowered for bytes and simulated. */
static double sim_synth(struct sreq *q, double bytes)
{
	char err[256];
	double t;
	if (ccs_synth_sim(&q->syn, q->fab, &q->comm, bytes, q->chunks, q->channels, &q->plan, &t, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", me, err);
		return -1;
	}
	return t;
}

/* A built-in algorithm simulated: its time, or HUGE_VAL when it has no
 * schedule here, -1 after a failure. */
static double sim_algo(struct sreq *q, int coll, int algo, int proto, double bytes)
{
	struct ccs_sched s;
	const char *why = NULL;
	if (ccs_sched_build(&q->comm, coll, algo, proto, 0, (uint64_t)bytes, &s, &why))
		return HUGE_VAL;
	char what[96];
	snprintf(what, sizeof what, "%s %s", ccs_algo_desc[algo].name, ccs_coll_name[coll]);
	return sim_loaded(q, &s, what);
}

struct row {
	int K, C;
	double bytes, lp, syn, nccl_cf, nccl_sim, best_sim;
	int nccl_algo, nccl_proto, best_algo, best_proto;
};

/* One size: the synthesized schedule, NCCL's choice (closed form and
 * simulated) and the fastest built-in algorithm simulated (each with our
 * model's protocol for it). */
static int one_row(struct sreq *q, double bytes, struct row *r)
{
	int coll = q->syn.coll;
	memset(r, 0, sizeof *r);
	r->bytes = bytes;
	r->lp = q->syn.lp_s * bytes / q->syn.bytes;
	if ((r->syn = sim_synth(q, bytes)) < 0)
		return -1;
	r->K = q->syn.U - 2 * q->syn.L;   /* --chunks' K (graded: its ends split finer) */
	r->C = q->syn.C;
	r->nccl_cf = r->nccl_sim = r->best_sim = HUGE_VAL;
	r->nccl_algo = r->best_algo = -1;
	if (q->no_compare)
		return 0;
	struct ccs_cost cost;
	const char *why;
	if (!ccs_select(&q->comm, coll, (uint64_t)bytes, ~0u, ~0u, 1, &r->nccl_algo, &r->nccl_proto) &&
	    !ccs_cost_eval(&q->comm, coll, r->nccl_algo, r->nccl_proto, 0, (uint64_t)bytes, &cost, &why)) {
		r->nccl_cf = cost.time_s;
		if ((r->nccl_sim = sim_algo(q, coll, r->nccl_algo, r->nccl_proto, bytes)) < 0)
			return -1;
	}
	for (int a = 0; a < CCS_ALGO_N; a++) {
		int algo, proto;
		if (ccs_select(&q->comm, coll, (uint64_t)bytes, 1u << a, ~0u, 0, &algo, &proto))
			continue;
		double t = sim_algo(q, coll, algo, proto, bytes);
		if (t < 0)
			return -1;
		if (t < r->best_sim) {
			r->best_sim = t;
			r->best_algo = algo;
			r->best_proto = proto;
		}
	}
	return 0;
}

static void head(struct sreq *q)
{
	char res[128], sz[32];
	ccs_fabric_res_name(q->fab, q->syn.bottleneck, res, sizeof res);
	ccs_fmt_size(q->bytes, sz, sizeof sz);
	int nt[2] = { 0, 0 };
	for (int i = 0; i < q->syn.ntree; i++)
		nt[q->syn.tree[i].phase]++;
	printf("# ccsim synth: %s on %s: %d ranks in %d group%s\n", ccs_coll_name[q->syn.coll], q->t->name, q->comm.n, q->comm.G,
	       q->comm.G == 1 ? "" : "s");
	char conv[96];
	if (q->syn.converged == 1)
		snprintf(conv, sizeof conv, "optimal");
	else
		snprintf(conv, sizeof conv, "%s; within %.2f%% of the optimum", q->syn.converged ? "stopped" : "round limit",
		         100 * q->syn.gap);
	printf("# packing: %d trees kept (%d in, %d out) of %d generated in %d rounds (%s)\n", q->syn.ntree, nt[0], nt[1],
	       q->syn.cols, q->syn.iters, conv);
	printf("# LP bound at %s: %.3f us, busiest %s\n", sz, q->syn.lp_s * 1e6, res);
	static const char *const what[CCS_SYNTH_NCAND] = { "the LP's optimum", "its optimum on rails", "the first trees",
		                                             "rings" };
	printf("# candidates simulated at %s:", sz);
	for (int i = 0, k = 0; i < CCS_SYNTH_NCAND; i++)
		if (isfinite(q->syn.cand_sim_s[i]))
			printf("%s %s %.3f us (LP %.3f)", k++ ? ";" : "", what[i], q->syn.cand_sim_s[i] * 1e6, q->syn.cand_lp_s[i] * 1e6);
	/* grade, the choice kept (its lowering was strictly faster, so graded:
	 * L, the last lowering tried, may be a rejected one's) */
	printf("; kept %s%s\n", what[q->syn.kept], q->syn.grade ? ", a shard's first and last chunks graded" : "");
}

/* --trees: each tree's root, kind, share, chunks (as lowered for -b) and
 * parents. */
static void print_trees(struct sreq *q)
{
	for (int i = 0; i < q->syn.ntree; i++) {
		const struct ccs_synth_tree *t = &q->syn.tree[i];
		printf("# tree %d: root %d, %s, share %.4f, %d of %d chunks; parents:", i, t->root, t->phase ? "out" : "in", t->w,
		       t->fine, q->syn.K);
		for (int v = 0; v < q->syn.n; v++)
			printf(" %d", t->parent[v]);
		printf("\n");
	}
}

static void name_of(int algo, int proto, char *b, size_t n)
{
	if (algo < 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%s/%s", ccs_algo_desc[algo].name, ccs_proto_name[proto]);
}

static void print_rows(struct sreq *q, const struct row *rows, int n)
{
	int csv = !strcmp(q->format, "csv");
	if (csv)
		printf("size_B,chunks,channels,lp_us,synth_us,synth_over_lp,nccl_algo,nccl_closed_us,nccl_sim_us,best_algo,best_sim_us\n");
	else
		printf("#       size  K  C      LP(us)   synth(us)   /LP   NCCL's choice     closed(us)     sim(us) NCCL/synth   best built-in        sim(us) best/synth\n");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char na[40], ba[40], sz[32];
		name_of(r->nccl_algo, r->nccl_proto, na, sizeof na);
		name_of(r->best_algo, r->best_proto, ba, sizeof ba);
		ccs_fmt_size(r->bytes, sz, sizeof sz);
		if (csv) {
			printf("%.0f,%d,%d,%.3f,%.3f,%.4f,%s,%.3f,%.3f,%s,%.3f\n", r->bytes, r->K, r->C, r->lp * 1e6, r->syn * 1e6, r->syn / r->lp, na,
			       r->nccl_cf * 1e6, r->nccl_sim * 1e6, ba, r->best_sim * 1e6);
			continue;
		}
		printf("%12s %2d %2d %11.3f %11.3f %5.3f   %-16s %11.3f %11.3f %9.3fx   %-16s %11.3f %9.3fx\n", sz, r->K, r->C, r->lp * 1e6, r->syn * 1e6,
		       r->syn / r->lp, na, r->nccl_cf * 1e6, r->nccl_sim * 1e6, r->nccl_sim / r->syn, ba, r->best_sim * 1e6,
		       r->best_sim / r->syn);
	}
}

/* Where the exports' checks go: stdout beside the table, stderr beside CSV
 * (which has no comment lines). */
static FILE *note(const struct sreq *q)
{
	return strcmp(q->format, "csv") ? stdout : stderr;
}

static int fill_text(FILE *f, void *ctx)
{
	const struct ccs_text *o = ctx;
	return fwrite(o->s, 1, o->n, f) != o->n;
}

/* Write one export, read the file back and simulate it at -b: it must
 * give the time of want (the synthesized schedule it claims to be). */
static int export_one(struct sreq *q, const char *path, const char *what, struct ccs_text *o, double want)
{
	if (o->oom) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	if (ccs_args_write_atomic(me, path, fill_text, o))
		return -1;
	if (!(q->comm.mem_bw > 0) && q->syn.coll != CCS_COLL_ALLGATHER && strcmp(what, "schedule YAML")) {
		fprintf(note(q), "# %s: %s written, not read back: its reductions need the GPUs' memory_bandwidth, which the "
		       "topology does not give\n", what, path);
		return 0;
	}
	struct ccs_sched s;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int ranks;
	if (ccs_sched_file_load(path, &q->comm, q->bytes, &s, &ranks, &d)) {
		fprintf(stderr, "%s: %s read back: %s\n", me, what, d.set ? d.msg : "out of memory");
		return -1;
	}
	double t = sim_loaded(q, &s, path);
	if (t < 0)
		return -1;
	double rel = fabs(t - want) / want;
	fprintf(note(q), "# %s: %s, read back and simulated: %.6f us (%s %.1e)\n", what, path, t * 1e6,
	       rel <= 1e-9 ? "the synthesized schedule's time within" : "DIFFERS from the synthesized schedule's time by", rel);
	return rel <= 1e-9 ? 0 : -1;
}

/* For --xml: when MSCCL's runtime refuses the kept lowering (synth.h),
 * the lowerings tried again, one it holds first: *syn_s becomes its time
 * and q->plan its plan.  A note says what the exports asks of the runtime,
 * and a warning when it still refuses it.  0, or -1 after a message. */
static int msccl_fit(struct sreq *q, double *syn_s)
{
	struct ccs_synth_fit f;
	char why[200], err[256];
	if (ccs_synth_fit_of(&q->plan, &f)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	if (ccs_synth_fit_check(&f, why, sizeof why)) {
		double t;
		int fit;
		if (ccs_synth_lower_fit(&q->syn, q->fab, &q->comm, q->bytes, q->chunks, q->channels, &t, &fit, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", me, err);
			return -1;
		}
		if (fit)
			fprintf(note(q), "# MSCCL runtime: the fastest lowering (%.3f us) asks %s; the exports are the fastest "
			                 "lowering it holds: %.3f us (%+.1f%%)\n", *syn_s * 1e6, why, t * 1e6, 100 * (t / *syn_s - 1));
		*syn_s = t;
		if (lower(q, q->bytes) || ccs_synth_fit_of(&q->plan, &f)) {
			fprintf(stderr, "%s: out of memory\n", me);
			return -1;
		}
	}
	fprintf(note(q), "# MSCCL runtime: %u thread blocks a rank (at most %d), %u steps a block (%d), %u blocks a channel "
	                 "each way (%d), %u channels (%d)\n", f.tbs, CCS_SYNTH_MSCCL_TBS, f.steps, CCS_SYNTH_MSCCL_STEPS,
	        f.per_chan, CCS_SYNTH_MSCCL_PER_CHAN, f.chans, CCS_SYNTH_MSCCL_CHANS);
	if (ccs_synth_fit_check(&f, why, sizeof why))
		fprintf(stderr, "%s: warning: MSCCL's runtime would refuse this algorithm: %s; no lowering tried fits "
		                "(fewer chunks, --chunks, may)\n", me, why);
	return 0;
}

static int exports(struct sreq *q, double syn_s)
{
	int bad = 0;
	if (lower(q, q->bytes) || (q->xml && msccl_fit(q, &syn_s)))
		return -1;
	struct ccs_text o;
	if (q->yaml) {
		memset(&o, 0, sizeof o);
		ccs_synth_yaml(&q->plan, "synth", q->bytes, q->comm.mem_bw > 0, &o);
		bad |= export_one(q, q->yaml, "schedule YAML", &o, syn_s);
		ccs_free(o.s);
	}
	if (q->xml) {
		memset(&o, 0, sizeof o);
		ccs_synth_xml(&q->plan, "synth", &o);
		bad |= export_one(q, q->xml, "MSCCL XML", &o, syn_s);
		ccs_free(o.s);
	}
	if (q->json && !bad) {
		/* the plan's own ops (puts, signals, waits) simulated from their
		 * YAML, then the plan written and read back */
		struct ccs_text y;
		memset(&o, 0, sizeof o);
		memset(&y, 0, sizeof y);
		int rc = ccs_synth_json(&q->plan, "synth", q->bytes, &o, &y);
		double pp = -1;
		if (rc == CCS_EINPUT)
			fprintf(stderr, "%s: --json: an MSCCL++ plan of allreduce is not written yet (its second phase's sends "
			                "would wait on another block's reduction); allgather and reducescatter are\n", me);
		else if (rc || y.oom)
			fprintf(stderr, "%s: out of memory\n", me);
		else if (!(q->comm.mem_bw > 0) && q->syn.coll != CCS_COLL_ALLGATHER)
			pp = 1;   /* not timed: written only (export_one says so) */
		else if ((pp = sim_text(q, "the MSCCL++ plan's ops", y.s, y.n, q->bytes)) >= 0)
			fprintf(note(q), "# MSCCL++ plan as it runs (put, signal, wait): %.6f us, %+.2f%% against the MSCCL algorithm\n", pp * 1e6,
			       100 * (pp / syn_s - 1));
		bad |= pp < 0 || export_one(q, q->json, "MSCCL++ JSON", &o, pp);
		ccs_free(o.s);
		ccs_free(y.s);
	}
	return bad ? -1 : 0;
}

int ccs_cmd_synth(int argc, char **argv)
{
	struct sreq q;
	memset(&q, 0, sizeof q);
	q.format = "table";
	q.bytes = 1024.0 * 1024 * 1024;
	int rc = parse(&q, argc, argv);
	if (!rc)
		rc = check(&q);
	if (!rc)
		rc = make(&q);
	struct row rows[16];
	double syn_at_b = -1;
	if (!rc) {
		if (strcmp(q.format, "csv"))
			head(&q);
		for (int i = 0; i < q.nsizes && !rc; i++) {
			rc = one_row(&q, q.sizes[i], &rows[i]);
			if (q.sizes[i] == q.bytes)
				syn_at_b = rows[i].syn;
		}
		if (!rc)
			print_rows(&q, rows, q.nsizes);
		if (!rc && q.trees && strcmp(q.format, "csv") && !lower(&q, q.bytes))
			print_trees(&q);
	}
	if (!rc && (q.xml || q.yaml || q.json) && syn_at_b < 0 && (syn_at_b = sim_synth(&q, q.bytes)) < 0)
		rc = -1;
	if (!rc && (q.xml || q.yaml || q.json))
		rc = exports(&q, syn_at_b);
	ccs_synth_plan_release(&q.plan);
	ccs_synth_release(&q.syn);
	ccs_fabric_free(q.fab);
	ccs_comm_release(&q.comm);
	ccs_topo_free(q.t);
	ccs_args_sets_release(&q.sets);
	if (rc == 1)
		return 0;
	if (!rc && ccs_args_flush())
		rc = -1;
	return rc ? 1 : 0;
}
