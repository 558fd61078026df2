/* sim/cli/report_html.c: the self-contained HTML report's parts
** (report_html.h). */
#include "run/run.h"   /* first: it asks for _DEFAULT_SOURCE (open_memstream, strdup) */

#include "report_html.h"
#include "cli.h"
#include "plot.h"

#include "../../model/nccl_tables.h"
#include "../../model/params.h"
#include "../../model/topo_yaml.h"
#include "../../model/transport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ccs_html_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

void ccs_report_html_head(FILE *f, const struct ccs_scenario_info *sc, size_t nresults)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ccsim: ");
	ccs_html_esc(f, sc->name);
	fprintf(f, "</title>\n<style>\n"
	           "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}\n"
	           "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:3px 8px;"
	           "text-align:right}th{background:#eee}td:first-child,th:first-child{text-align:left}\n"
	           ".chart{margin:1em 0;border:1px solid #ddd}.chart svg{width:100%%;height:auto;display:block}\n"
	           "pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:90%%}\n"
	           ".note{color:#555}\n</style></head><body>\n<h1>ccsim: ");
	ccs_html_esc(f, sc->name);
	fprintf(f, "</h1>\n<p class=\"note\">Scenario %lld (", (long long)sc->id);
	ccs_html_esc(f, sc->path);
	fprintf(f, ", file hash %s), ccsim %s, stored %s; %zu results. Times in microseconds: closed form / "
	           "simulator where both ran; bandwidths are nccl-tests' busbw (GB/s) for collectives.</p>\n",
	        sc->hash, sc->ccsim_version, sc->created, nresults);
}

double ccs_report_shown_t(const struct ccs_result *r)
{
	return r->t_sim_s == r->t_sim_s ? r->t_sim_s : r->t_model_s;
}

/* Workload r[i]'s line of the summary (once per workload): at its last
 * point, the designs from fastest to slowest. */
static void summary_line(FILE *f, const struct ccs_result *r, size_t n, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r[j].workload, r[i].workload))
			return;
	/* the last point: the largest place among the workload's points */
	const struct ccs_result *last = &r[i];
	for (size_t j = i; j < n; j++)
		if (!strcmp(r[j].workload, r[i].workload) && r[j].ord > last->ord)
			last = &r[j];
	/* its axes without the design's own (topology) axes: the same
	 * workload point on every design */
	const struct ccs_result *at[32];
	int na = 0;
	for (size_t j = i; j < n && na < 32; j++)
		if (!strcmp(r[j].workload, r[i].workload) && !strcmp(r[j].axes, last->axes) && ccs_report_shown_t(&r[j]) == ccs_report_shown_t(&r[j]))
			at[na++] = &r[j];
	if (!na)
		return;
	for (int a = 1; a < na; a++)   /* fastest first */
		for (int b = a; b > 0 && ccs_report_shown_t(at[b]) < ccs_report_shown_t(at[b - 1]); b--) {
			const struct ccs_result *x = at[b];
			at[b] = at[b - 1];
			at[b - 1] = x;
		}
	char words[500];
	ccs_label_axes(last->axes, words, sizeof words);
	fprintf(f, "<li><b>");
	ccs_html_esc(f, r[i].workload);
	fprintf(f, "</b>%s", words[0] ? " at " : "");
	ccs_html_esc(f, words);
	fprintf(f, ": ");
	ccs_html_esc(f, at[0]->design);
	fprintf(f, " is %s (%.1f us, %s)", na > 1 ? "fastest" : "the only design", ccs_report_shown_t(at[0]) * 1e6, at[0]->algo);
	for (int a = 1; a < na; a++) {
		fprintf(f, "; ");
		ccs_html_esc(f, at[a]->design);
		fprintf(f, " %.2fx slower (%.1f us, %s)", ccs_report_shown_t(at[a]) / ccs_report_shown_t(at[0]), ccs_report_shown_t(at[a]) * 1e6, at[a]->algo);
	}
	fprintf(f, "</li>\n");
}

void ccs_report_html_summary(FILE *f, const struct ccs_result *r, size_t n)
{
	fprintf(f, "<h2>Summary</h2>\n<ul>\n");
	for (size_t i = 0; i < n; i++)
		summary_line(f, r, n, i);
	fprintf(f, "</ul>\n");
}

/* One SVG file inline: from its <svg element on (the XML prolog left out). */
static int inline_svg(FILE *f, const char *path)
{
	FILE *in = fopen(path, "r");
	if (!in)
		return -1;
	char buf[65536];
	size_t got;
	int started = 0;
	fprintf(f, "<div class=\"chart\">\n");
	while ((got = fread(buf, 1, sizeof buf - 1, in)) > 0) {
		buf[got] = 0;
		const char *p = buf;
		if (!started) {
			p = strstr(buf, "<svg");
			if (!p)
				continue;   /* a prolog longer than a buffer: not gnuplot's */
			started = 1;
		}
		fwrite(p, 1, got - (size_t)(p - buf), f);
	}
	fclose(in);
	fprintf(f, "</div>\n");
	return started ? 0 : -1;
}

size_t ccs_report_html_charts(FILE *f, const char *pdir, const char *const *prefixes, const char *h)
{
	char **paths = NULL;
	size_t n = 0, wrote = 0;
	ccs_plot_list(pdir, ".svg", &paths, &n);   /* what it listed, also out of memory */
	/* the prefixes' order, then the names' */
	for (int k = 0; prefixes[k]; k++)
		for (size_t i = 0; i < n; i++) {
			const char *name = strrchr(paths[i], '/') + 1;
			if (strncmp(name, prefixes[k], strlen(prefixes[k])))
				continue;
			if (!wrote)
				fprintf(f, "<h2>%s</h2>\n", h);
			wrote += !inline_svg(f, paths[i]);
		}
	for (size_t i = 0; i < n; i++)
		ccs_free(paths[i]);
	ccs_free(paths);
	return wrote;
}

/* What the model assumed on t: NCCL's release for its choice, transport,
 * routing, NVLink's efficiency and where it came from. */
static void assumptions(FILE *f, const struct ccs_topo *t)
{
	const struct ccs_model_params *m = &t->params;
	int v = m->nccl_version > 0 ? m->nccl_version : CCS_NCCL_VERSION;
	fprintf(f, "<table><tr><th>assumption</th><th>value</th></tr>\n");
	fprintf(f, "<tr><td>NCCL's choice of algorithm and protocol</td><td>NCCL %d.%d's tuning model%s</td></tr>\n",
	        v / 100, v % 100, m->nccl_collnet ? ", CollNet enabled" : "");
	fprintf(f, "<tr><td>scale-out transport</td><td>%s%s</td></tr>\n",
	        ccs_transport_name[ccs_topo_transport(t, m->transport)],
	        m->transport >= 0 ? " (named by the topology)" : " (from the NICs' link type)");
	if (t->fab.present)
		fprintf(f, "<tr><td>scale-out routing</td><td>%s%s</td></tr>\n", ccs_routing_name[ccs_topo_routing(t)],
		        t->fab.routing >= 0 ? " (named by the topology)" : " (the fabric's default)");
	const char *key = "efficiency.nvlink.hopper";
	if (m->nvlink_arch >= 0)
		ccs_params_nvlink_eff(ccs_arch_name[m->nvlink_arch], &key);
	fprintf(f, "<tr><td>NVLink efficiency</td><td>%.3g (%s)</td></tr>\n", m->eff[CCS_LINK_NVLINK],
	        m->eff_set >> CCS_LINK_NVLINK & 1 ? "the topology's model: section" : key);
	fprintf(f, "<tr><td>other constants</td><td>the parameter table (<code>ccsim params -t TOPO</code>)</td></tr>\n"
	           "</table>\n");
}

/* Design g of the scenario as its topology loads (base settings; the
 * study's sweeps vary them). */
static void design_html(FILE *f, const struct design *g)
{
	fprintf(f, "<h3>");
	ccs_html_esc(f, g->name);
	fprintf(f, "</h3>\n<p class=\"note\">");
	ccs_html_esc(f, g->topo);
	for (int i = 0; i < g->nsets; i++) {
		fprintf(f, "%s", i ? ", " : " with ");
		ccs_html_esc(f, g->sets[i]);
	}
	if (g->ranks)
		fprintf(f, "; the first %ld ranks", g->ranks);
	fprintf(f, "</p>\n");
	struct ccs_topo *t = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_topo_yaml_load(g->path, g->sets, g->nsets, &t, &d)) {
		fprintf(f, "<p class=\"note\">Not loaded here: ");
		ccs_html_esc(f, d.set ? d.msg : "out of memory");
		fprintf(f, "</p>\n");
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		ccs_topo_show_text(m, t);
		fclose(m);
		fprintf(f, "<pre>");
		ccs_html_esc(f, text ? text : "");
		fprintf(f, "</pre>\n");
		free(text);
	}
	assumptions(f, t);
	ccs_topo_free(t);
}

void ccs_report_html_designs(FILE *f, const struct ccs_scenario_info *sc)
{
	fprintf(f, "<h2>Designs and assumptions</h2>\n");
	struct ccs_ydoc doc;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	struct ccs_ynode *root = NULL;
	const struct ccs_ynode *dy = NULL;
	if (!ccs_ytree_load(&doc, sc->path, "scenario", &diag, &root))
		dy = ccs_ytree_get(root, "designs");
	if (!dy || dy->kind != CCS_Y_SEQ) {
		fprintf(f, "<p class=\"note\">The scenario file is not readable where it was run (");
		ccs_html_esc(f, diag.set ? diag.msg : sc->path);
		fprintf(f, "): its designs are not summarised.</p>\n");
		ccs_ytree_release(&doc);
		return;
	}
	/* a design's topology is relative to the scenario file's folder */
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", sc->path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	const struct ccs_ynode *sw = ccs_ytree_get(root, "sweep");
	if (sw && sw->kind == CCS_Y_MAP && sw->n) {
		fprintf(f, "<p>The study sweeps ");
		for (uint32_t k = 0; k < sw->n; k++) {
			char words[240];
			ccs_label_key(sw->k[k]->str, words, sizeof words);
			fprintf(f, "%s", k ? (k + 1 == sw->n ? " and " : ", ") : "");
			ccs_html_esc(f, words);
		}
		fprintf(f, "; each design below is shown with its base settings.</p>\n");
	}
	struct design *g = ccs_calloc(1, sizeof *g);
	for (uint32_t i = 0; g && i < dy->n; i++) {
		memset(g, 0, sizeof *g);
		if (ccs_scenario_load_design(&doc, dy->v[i], dir, 0, g)) {
			fprintf(f, "<p class=\"note\">Design %u: ", i + 1);
			ccs_html_esc(f, diag.set ? diag.msg : "not readable");
			fprintf(f, "</p>\n");
			continue;
		}
		design_html(f, g);
	}
	ccs_free(g);
	ccs_ytree_release(&doc);
}

void ccs_report_html_tail(FILE *f)
{
	fprintf(f, "<p class=\"note\">Written by ccsim; every number above can be produced again with "
	           "<code>ccsim run</code> on the scenario file.</p>\n</body></html>\n");
}
