/*
** sim/cli/cmd_report.c: `ccsim compare` and `ccsim report`.
**
** compare -t A.yaml -t B.yaml -c COLL [-b MIN] [-e MAX] [-f F] [-n RANKS]
**     two designs side by side by the closed form (NCCL's choice of
**     algorithm), per size: times, busbw and the ratio B / A
** compare [--db DB] SCENARIO_A SCENARIO_B
**     two stored scenario results: rows with the same workload, design and
**     axes, their times and the ratio B / A
** compare [--db DB] SCENARIO --design A --design B
**     two designs of one stored scenario: rows with the same workload and
**     axes
** report [--db DB] SCENARIO [--format md|html] [-o FILE] [--out PLOTDIR]
**     one Markdown or HTML file: what was run, a table per workload (a row
**     per axis combination, a column per design) and the plots found in
**     PLOTDIR (default ccsim-out/NAME, where `ccsim run` draws them)
** A scenario is named by its name (the newest stored under it) or its number.
*/
#define _DEFAULT_SOURCE
#include "cli.h"

#include "../../calibrate/store.h"
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"
#include "plot.h"
#include "report_html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *me = "ccsim";

static int open_db(const char *path, struct ccs_store **s)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_open(path, s, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return -1;
	}
	return 0;
}

static int find_scen(struct ccs_store *s, const char *what, struct ccs_scenario_info *out)
{
	struct ccs_scenario_info *v = NULL;
	size_t n = 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_scenarios(s, &v, &n, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return -1;
	}
	char *end;
	long long id = strtoll(what, &end, 10);
	int numeric = *what && !*end;
	long hit = -1;
	for (size_t i = 0; i < n; i++)
		if ((numeric && v[i].id == id) || (!numeric && !strcmp(v[i].name, what)))
			hit = (long)i;   /* the newest of that name */
	if (hit < 0) {
		fprintf(stderr, "%s: no scenario '%s' in the database (%zu stored", me, what, n);
		for (size_t i = 0; i < n && i < 8; i++)
			fprintf(stderr, "%s%s", i ? ", " : ": ", v[i].name);
		fprintf(stderr, ")\n");
		ccs_free(v);
		return -1;
	}
	*out = v[hit];
	ccs_free(v);
	return 0;
}

static int load_results(struct ccs_store *s, const struct ccs_scenario_info *sc, struct ccs_result **r, size_t *n)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_results(s, sc->id, r, n, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return -1;
	}
	return 0;
}

/* compare's two designs (-t, at most two) */
struct two_topos {
	const char **topo;
	int *n;
};

static int take_topo(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	struct two_topos *tt = o->dest;
	if (*tt->n == 2) {
		fprintf(stderr, "%s compare: two designs (-t) at most\n", me_);
		return -1;
	}
	tt->topo[(*tt->n)++] = v;
	return 0;
}

/* Both designs size by size: times, busbw and algorithms, B against A. */
static void compare_rows(struct ccs_topo *const *t, const struct ccs_comm *c, int coll, uint64_t lo, uint64_t hi,
                         int fac)
{
	printf("# %s compare: %s, closed form, NCCL's choice of algorithm\n", me, ccs_coll_name[coll]);
	printf("# A: %s (%d ranks)   B: %s (%d ranks)\n", t[0]->name, c[0].n, t[1]->name, c[1].n);
	printf("#%13s %14s %14s %12s %12s %8s  %-22s %-22s\n", "size", "A time (us)", "B time (us)", "A busbw",
	       "B busbw", "B / A", "A algo", "B algo");
	printf("#%13s %14s %14s %12s %12s %8s\n", "(B)", "", "", "(GB/s)", "(GB/s)", "(time)");
	for (uint64_t sz = lo; sz <= hi; sz *= (uint64_t)fac) {
		double tt[2], bb[2];
		char al[2][40];
		for (int k = 0; k < 2; k++) {
			int a, q;
			struct ccs_cost cc;
			if (ccs_select(&c[k], coll, sz, ~0u, ~0u, 1, &a, &q) || ccs_cost_eval(&c[k], coll, a, q, 0, sz, &cc, NULL)) {
				tt[k] = NAN;
				bb[k] = NAN;
				snprintf(al[k], sizeof al[k], "-");
				continue;
			}
			tt[k] = cc.time_s;
			bb[k] = (double)sz / cc.time_s * ccs_busbw_factor(coll, c[k].n);
			snprintf(al[k], sizeof al[k], "%s/%s", ccs_algo_desc[a].name, ccs_proto_name[q]);
		}
		printf("%14llu %14.2f %14.2f %12.2f %12.2f %8.3f  %-22s %-22s\n", (unsigned long long)sz, tt[0] * 1e6,
		       tt[1] * 1e6, bb[0] / 1e9, bb[1] / 1e9, tt[1] / tt[0], al[0], al[1]);
		if (sz > UINT64_MAX / (uint64_t)fac)
			break;
	}
	printf("# %s / %s: B / A < 1 means B is faster\n", t[1]->name, t[0]->name);
}

static int compare_designs(int argc, char **argv)
{
	const char *topo[2] = { 0 }, *coll_s = NULL, *b_s = "1M", *e_s = "1G", *f_s = "4";
	int nt = 0, ranks = 0;
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	struct two_topos tt = { topo, &nt };
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_FN, &tt, 0, 0, NULL, 0, NULL, take_topo },
		{ "-c", CCS_ARGS_STR, &coll_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-b", CCS_ARGS_STR, &b_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-e", CCS_ARGS_STR, &e_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-f", CCS_ARGS_STR, &f_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-n", CCS_ARGS_INT, &ranks, 1, 1 << 24, NULL, 0, NULL, NULL },
	};
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&sets, argc, argv, &i);
		if (r < 0)
			return 2;
		if (r)
			continue;
		if (ccs_args_take(me, "compare", opts, sizeof opts / sizeof opts[0], argc, argv, &i)) {
			ccs_args_sets_release(&sets);
			return 2;
		}
	}
	int rc = 2;
	uint64_t lo, hi;
	int fac;
	int coll = coll_s ? ccs_coll_parse(coll_s) : -1;
	struct ccs_topo *t[2] = { 0 };
	struct ccs_comm c[2];
	int built[2] = { 0 };
	if (nt != 2 || coll < 0 || coll > CCS_COLL_REDUCE) {
		fprintf(stderr, "usage: %s compare -t A.yaml -t B.yaml -c allreduce|allgather|reducescatter|broadcast|reduce "
		                "[-b 1M] [-e 1G] [-f 4] [-n RANKS]\n", me);
		goto out;
	}
	if (ccs_parse_nccl_size(b_s, &lo) || ccs_parse_nccl_size(e_s, &hi) || hi < lo || !lo ||
	    ccs_args_int(me, "-f", f_s, 2, 1024, &fac)) {
		fprintf(stderr, "%s compare: sizes -b %s -e %s are not a range of sizes\n", me, b_s, e_s);
		goto out;
	}
	rc = 1;
	for (int k = 0; k < 2; k++) {
		if (ccs_args_topo("ccsim report", topo[k], &sets, &t[k]))
			goto out;
		char err[256];
		if (ccs_comm_build(t[k], ranks, 0, &c[k], err, sizeof err)) {
			fprintf(stderr, "%s compare: %s: %s\n", me, t[k]->name, err);
			goto out;
		}
		built[k] = 1;
	}
	compare_rows(t, c, coll, lo, hi, fac);
	rc = ccs_args_flush() ? 1 : 0;
out:
	for (int k = 0; k < 2; k++) {
		if (built[k])
			ccs_comm_release(&c[k]);
		ccs_topo_free(t[k]);
	}
	ccs_args_sets_release(&sets);
	return rc;
}

/* The rows two stored studies (or two designs of one) have in common, A
 * against B: how many. */
static size_t compare_results(const struct ccs_scenario_info *sc, struct ccs_result *const *r, const size_t *n,
                              int two_designs, const char *const *des)
{
	printf("# %s compare: A = %s, B = %s\n", me, two_designs ? des[0] : sc[0].name, two_designs ? des[1] : sc[1].name);
	printf("# %-26s %-26s %-34s %12s %12s %8s\n", "workload", two_designs ? "" : "design", "axes", "A (us)", "B (us)",
	       "ratio");
	size_t matched = 0;
	for (size_t j = 0; j < n[1]; j++) {
		const struct ccs_result *y = &r[1][j];
		if (two_designs && strcmp(y->design, des[1]))
			continue;
		for (size_t i = 0; i < n[0]; i++) {
			const struct ccs_result *x = &r[0][i];
			if (strcmp(x->workload, y->workload) || strcmp(x->axes, y->axes))
				continue;
			if (two_designs ? strcmp(x->design, des[0]) : strcmp(x->design, y->design))
				continue;
			double ta = ccs_report_shown_t(x), tb = ccs_report_shown_t(y);
			printf("  %-26.26s %-26.26s %-34.34s %12.2f %12.2f %8.3f\n", y->workload, two_designs ? "" : y->design,
			       y->axes[0] ? y->axes : "-", ta * 1e6, tb * 1e6, tb / ta);
			matched++;
			break;
		}
	}
	return matched;
}

int ccs_cmd_compare(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s compare -t A.yaml -t B.yaml -c COLL [-b MIN] [-e MAX] [-f F] [-n RANKS]\n"
			       "       %s compare [--db DB] SCENARIO_A SCENARIO_B\n"
			       "       %s compare [--db DB] SCENARIO --design A --design B\n", me, me, me);
			return 0;
		}
		if (!strcmp(argv[i], "-t"))
			return compare_designs(argc, argv);
	}
	const char *db = "ccsim.db", *pos[2] = { 0 }, *des[2] = { 0 };
	int np = 0, nd = 0;
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--db") || !strcmp(argv[i], "--design")) && i + 1 < argc) {
			if (argv[i][2] == 'd' && argv[i][3] == 'b')
				db = argv[++i];
			else if (nd < 2)
				des[nd++] = argv[++i];
			else {
				fprintf(stderr, "%s compare: two --design at most\n", me);
				return 2;
			}
		} else if (argv[i][0] != '-' && np < 2) {
			pos[np++] = argv[i];
		} else {
			fprintf(stderr, "%s compare: unexpected argument '%s' (see %s compare --help)\n", me, argv[i], me);
			return 2;
		}
	}
	int two_designs = np == 1 && nd == 2;
	if (!(np == 2 && nd == 0) && !two_designs) {
		fprintf(stderr, "%s compare: name two scenarios, or one scenario and two --design (see %s compare --help)\n",
		        me, me);
		return 2;
	}
	struct ccs_store *s;
	if (open_db(db, &s))
		return 1;
	struct ccs_scenario_info sc[2];
	struct ccs_result *r[2] = { 0 };
	size_t n[2] = { 0 };
	int rc = 1;
	for (int k = 0; k < (two_designs ? 1 : 2); k++)
		if (find_scen(s, pos[k], &sc[k]) || load_results(s, &sc[k], &r[k], &n[k]))
			goto out;
	if (two_designs) {
		sc[1] = sc[0];
		r[1] = r[0];
		n[1] = n[0];
	}
	size_t matched = compare_results(sc, r, n, two_designs, des);
	if (!matched) {
		fprintf(stderr, "%s compare: nothing in common (no row with the same workload, %saxes)\n", me,
		        two_designs ? "" : "design and ");
		goto out;
	}
	printf("# %zu rows; ratio = B / A of the time (the simulator's where it ran): below 1, B is faster\n", matched);
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_free(r[0]);
	if (!two_designs)
		ccs_free(r[1]);
	ccs_store_close(s);
	return rc;
}

/* ---- report ---- */

static void esc(FILE *f, const char *s, int html)
{
	if (html) {
		ccs_html_esc(f, s);
		return;
	}
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

/* A result's cell: time (model / simulator where both ran), bandwidth,
 * algorithm; "-" for none. */
static void cell_text(const struct ccs_result *x, char *cell, size_t n)
{
	if (!x) {
		snprintf(cell, n, "-");
		return;
	}
	int m = x->t_model_s == x->t_model_s, sm = x->t_sim_s == x->t_sim_s;
	char t[64];
	if (m && sm)
		snprintf(t, sizeof t, "%.1f / %.1f", x->t_model_s * 1e6, x->t_sim_s * 1e6);
	else
		snprintf(t, sizeof t, "%.1f", (m ? x->t_model_s : x->t_sim_s) * 1e6);
	double bw = m ? x->bw_model_Bps : x->bw_sim_Bps;
	snprintf(cell, n, "%s us, %.1f GB/s, %s", t, bw == bw ? bw / 1e9 : 0.0, x->algo);
}

/* Workload r[i]'s table (rows: axes, columns: designs), once per workload:
 * nothing when an earlier result had the same workload. */
static void workload_table(FILE *f, const struct ccs_result *r, size_t n, size_t i, int html)
{
	int seen = 0;
	for (size_t j = 0; j < i && !seen; j++)
		seen = !strcmp(r[j].workload, r[i].workload);
	if (seen)
		return;
	const char *wl = r[i].workload;
	const char *des[32];
	int nd = 0;
	for (size_t j = i; j < n; j++) {
		if (strcmp(r[j].workload, wl))
			continue;
		int have = 0;
		for (int k = 0; k < nd && !have; k++)
			have = !strcmp(des[k], r[j].design);
		if (!have && nd < 32)
			des[nd++] = r[j].design;
	}
	if (html) {
		fprintf(f, "<h3>");
		esc(f, wl, 1);
		fprintf(f, "</h3>\n<table><tr><th>axes</th>");
	} else {
		fprintf(f, "## ");
		esc(f, wl, 0);
		fprintf(f, "\n\n| axes |");
	}
	for (int k = 0; k < nd; k++) {
		fprintf(f, html ? "<th>" : " ");
		esc(f, des[k], html);
		fprintf(f, html ? "</th>" : " |");
	}
	fprintf(f, html ? "</tr>\n" : "\n|---|");
	if (!html) {
		for (int k = 0; k < nd; k++)
			fprintf(f, "---|");
		fprintf(f, "\n");
	}
	for (size_t j = i; j < n; j++) {
		if (strcmp(r[j].workload, wl) || strcmp(r[j].design, des[0]))
			continue;
		fprintf(f, html ? "<tr><td>" : "| ");
		esc(f, r[j].axes[0] ? r[j].axes : "-", html);
		fprintf(f, html ? "</td>" : " |");
		for (int k = 0; k < nd; k++) {
			const struct ccs_result *x = NULL;
			for (size_t q = i; q < n && !x; q++)
				if (!strcmp(r[q].workload, wl) && !strcmp(r[q].design, des[k]) && !strcmp(r[q].axes, r[j].axes))
					x = &r[q];
			char cell[160];
			cell_text(x, cell, sizeof cell);
			fprintf(f, html ? "<td>" : " ");
			esc(f, cell, html);
			fprintf(f, html ? "</td>" : " |");
		}
		fprintf(f, html ? "</tr>\n" : "\n");
	}
	fprintf(f, html ? "</table>\n" : "\n");
}

/* The plots found in pdir, or a word that there are none. */
static void plots_section(FILE *f, char **imgs, size_t nimg, const char *pdir, int html)
{
	if (nimg) {
		fprintf(f, html ? "<h2>Plots</h2>\n" : "## Plots\n\n");
		for (size_t i = 0; i < nimg; i++) {
			if (html) {
				fprintf(f, "<p><img src=\"");
				esc(f, imgs[i], 1);
				fprintf(f, "\"></p>\n");
			} else {
				fprintf(f, "![%s](%s)\n\n", strrchr(imgs[i], '/') + 1, imgs[i]);
			}
		}
	} else {
		fprintf(f, html ? "<p>No plots in %s (run the scenario without --no-plots, or give --out).</p>\n"
		                : "No plots in %s (run the scenario without --no-plots, or give --out).\n", pdir);
	}
}

/* The report's title and what it holds. */
static void report_head(FILE *f, const struct ccs_scenario_info *sc, size_t n, int html)
{
	if (html)
		fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ccsim: %s</title>\n"
		           "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse}"
		           "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}th{background:#eee}"
		           "img{max-width:100%%}</style></head><body>\n<h1>ccsim: ", sc->name);
	else
		fprintf(f, "# ccsim: ");
	esc(f, sc->name, html);
	fprintf(f, html ? "</h1>\n<p>" : "\n\n");
	fprintf(f, "Scenario %lld (%s, file hash %s), ccsim %s, created %s; %zu results.%s", (long long)sc->id, sc->path,
	        sc->hash, sc->ccsim_version, sc->created, n, html ? "</p>\n" : "\n\n");
	if (!html)
		fprintf(f, "Times in microseconds: `model / simulator` where both ran; busbw (GB/s) for collectives.\n\n");
}

/* Where a study's plots are: --out, else ccsim-out/SLUG. */
static void plots_dir(const char *plots, const char *name, char *pdir, size_t n)
{
	if (plots) {
		snprintf(pdir, n, "%s", plots);
		return;
	}
	char sl[200];
	ccs_plot_slug(name, sl, sizeof sl);
	snprintf(pdir, n, "ccsim-out/%s", sl);
}

/* The Markdown report: head, a table per workload (rows = axes, columns =
 * designs), the plots linked.  The HTML one is a page in one file: the
 * summary, the comparison charts inline, the tables, where time goes, the
 * designs and their assumptions, the per-design charts (report_html.h);
 * *nimg becomes the charts it holds. */
static void report_body(FILE *f, const struct ccs_scenario_info *sc, const struct ccs_result *r, size_t n, char **imgs,
                        size_t *nimg, const char *pdir, int html)
{
	if (!html) {
		report_head(f, sc, n, 0);
		for (size_t i = 0; i < n; i++)
			workload_table(f, r, n, i, 0);
		plots_section(f, imgs, *nimg, pdir, 0);
		return;
	}
	static const char *const cmp[] = { "compare-", "time-", NULL }, *const brk[] = { "breakdown-", NULL },
	                         *const per[] = { "busbw-", "links-", NULL };
	ccs_report_html_head(f, sc, n);
	ccs_report_html_summary(f, r, n);
	size_t k = ccs_report_html_charts(f, pdir, cmp, "Designs compared");
	fprintf(f, "<h2>Results</h2>\n");
	for (size_t i = 0; i < n; i++)
		workload_table(f, r, n, i, 1);
	k += ccs_report_html_charts(f, pdir, brk, "Where the time goes");
	ccs_report_html_designs(f, sc);
	k += ccs_report_html_charts(f, pdir, per, "Each design");
	if (!k) {
		fprintf(f, "<p class=\"note\">No charts in ");
		ccs_html_esc(f, pdir);
		fprintf(f, " (run the scenario without --no-plots, or give --out).</p>\n");
	}
	ccs_report_html_tail(f);
	*nimg = k;
}

/* The report file written whole: tmp renamed to out, or removed (-1 after
 * a message). */
static int close_report(FILE *f, const char *tmp, const char *out)
{
	int bad = ferror(f);
	errno = 0;
	if (fclose(f) || bad || rename(tmp, out)) {
		fprintf(stderr, "%s report: cannot write '%s'%s%s\n", me, out, errno ? ": " : "", errno ? strerror(errno) : "");
		unlink(tmp);
		return -1;
	}
	return 0;
}

int ccs_cmd_report(int argc, char **argv)
{
	const char *db = "ccsim.db", *format = "md", *out = NULL, *plots = NULL, *name = NULL;
	const struct ccs_args_opt opts[] = {
		{ "--db", CCS_ARGS_STR, &db, 0, 0, NULL, 0, NULL, NULL },
		{ "--format", CCS_ARGS_STR, &format, 0, 0, NULL, 0, NULL, NULL },
		{ "-o", CCS_ARGS_STR, &out, 0, 0, NULL, 0, NULL, NULL },
		{ "--out", CCS_ARGS_STR, &plots, 0, 0, NULL, 0, NULL, NULL },
	};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s report [--db DB] SCENARIO [--format md|html] [-o FILE] [--out PLOTDIR]\n", me);
			return 0;
		}
		if (argv[i][0] != '-') {
			if (name) {
				fprintf(stderr, "%s report: one scenario at a time\n", me);
				return 2;
			}
			name = argv[i];
			continue;
		}
		if (ccs_args_take(me, "report", opts, sizeof opts / sizeof opts[0], argc, argv, &i))
			return 2;
	}
	int html = !strcmp(format, "html");
	if (!name || (!html && strcmp(format, "md"))) {
		fprintf(stderr, "usage: %s report [--db DB] SCENARIO [--format md|html] [-o FILE] [--out PLOTDIR]\n", me);
		return 2;
	}
	struct ccs_store *s;
	if (open_db(db, &s))
		return 1;
	struct ccs_scenario_info sc;
	struct ccs_result *r = NULL;
	size_t n = 0;
	char **imgs = NULL;
	size_t nimg = 0;
	FILE *f = stdout;
	char tmp[1100] = "";
	int rc = 1;
	if (find_scen(s, name, &sc) || load_results(s, &sc, &r, &n))
		goto out;
	char pdir[1024];
	plots_dir(plots, sc.name, pdir, sizeof pdir);
	if (ccs_plot_list(pdir, ".png", &imgs, &nimg))
		goto oom;
	if (out) {
		snprintf(tmp, sizeof tmp, "%s.tmp", out);
		if (!(f = fopen(tmp, "w"))) {
			fprintf(stderr, "%s report: cannot write '%s': %s\n", me, tmp, strerror(errno));
			goto out;
		}
	}
	size_t shown = nimg;
	report_body(f, &sc, r, n, imgs, &shown, pdir, html);
	if (out) {
		int bad = close_report(f, tmp, out);
		f = NULL;
		if (bad)
			goto out;
		printf("wrote %s (%zu results, %zu %s)\n", out, n, shown, html ? "charts inline" : "plots");
	}
	rc = ccs_args_flush() ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s report: out of memory\n", me);
out:
	if (f && f != stdout) {
		fclose(f);
		unlink(tmp);
	}
	for (size_t i = 0; i < nimg; i++)
		ccs_free(imgs[i]);
	ccs_free(imgs);
	ccs_free(r);
	ccs_store_close(s);
	return rc;
}
