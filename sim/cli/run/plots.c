/* sim/cli/run/plots.c: the study's plots: busbw vs size, time vs an axis, where time goes, heatmaps (run.h). */
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

static const char *me = "ccsim run";

int ccs_plot_add(struct plots *P, const char *name)
{
	if (ccs_grow(&P->name, &P->cap, P->n + 1, sizeof *P->name))
		return -1;
	snprintf(P->name[P->n++], sizeof P->name[0], "%s", name);
	return 0;
}

FILE *ccs_plots_dat_open(const struct scen *S, const char *name)
{
	char path[1400];
	snprintf(path, sizeof path, "%s/%s.dat", S->outdir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: cannot write '%s': %s\n", me, path, strerror(errno));
	return f;
}

/* busbw against size, one line per series (the workload's other axes, and
 * the simulator beside the closed form), per workload and design instance */
/* A series' label: its axes without the size, values only ("ring ll128"). */
void ccs_plots_series_label(const char *ax, char *txt, size_t n)
{
	txt[0] = 0;
	for (const char *p = ax; *p;) {
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		const char *eq = memchr(p, '=', l);
		if (strncmp(p, "bytes=", 6)) {
			size_t tl = strlen(txt);
			size_t off = eq ? (size_t)(eq + 1 - p) : 0;
			snprintf(txt + tl, n - tl, "%s%.*s", tl ? " " : "", (int)(l - off), p + off);
		}
		p += l;
		while (*p == ' ')
			p++;
	}
}

/* The gnuplot script of a busbw plot: nser series (with their simulated
 * points beside when both engines ran). */
static int busbw_script(const struct scen *S, struct plots *P, int w, size_t in, const char *name, size_t nser, int both)
{
	char body[8192], title[400];
	size_t last = 2 + nser * (both ? 2 : 1);
	/* a series' closed form and its simulated points in one colour */
	if (both)
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\nset xlabel 'message size (bytes, nccl-tests size)'\n"
		         "set ylabel 'bus bandwidth (GB/s)'\nset key autotitle columnhead noenhanced\n"
		         "plot for [i=3:%zu:2] '%s.dat' using 1:i:xtic(2) with linespoints lw 2 pt 7 lc (i-1)/2, \\\n"
		         "     for [i=4:%zu:2] '%s.dat' using 1:i with linespoints dt 2 lw 1.5 pt 6 ps 1.5 lc (i-2)/2\n",
		         last, name, last, name);
	else
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\nset xlabel 'message size (bytes, nccl-tests size)'\n"
		         "set ylabel 'bus bandwidth (GB/s)'\nset key autotitle columnhead noenhanced\n"
		         "plot for [i=3:%zu] '%s.dat' using 1:i:xtic(2) with linespoints lw 2\n",
		         last, name);
	char ax[300];
	ccs_label_axes(S->inst[in].axes, ax, sizeof ax);
	snprintf(title, sizeof title, "%s: %s bus bandwidth on %s%s%s", S->name, S->ws[w].name,
	         S->gs[S->inst[in].design].name, ax[0] ? ", " : "", ax);
	if (ccs_plot_script(S->outdir, name, title, body) || ccs_plot_add(P, name))
		return -1;
	return 0;
}

/* Workload w's busbw against size (axis sz) on design instance in: one
 * .dat with a column per series, and its script. */
/* Each series' busbw (and simulated busbw with both engines) per size into
 * val; keep[s] whether series s has any value.  Returns how many have. */
size_t ccs_plots_busbw_values(const struct scen *S, const struct ccs_result **res, size_t in, size_t first,
                              size_t stride, uint32_t nsz, size_t nser, int both, double *val, char *keep)
{
	int wcol = both ? 2 : 1;
	size_t nkeep = 0;
	for (size_t s = 0; s < nser; s++) {
		size_t outer = s / stride, inner = s % stride;
		for (uint32_t zi = 0; zi < nsz; zi++) {
			size_t k = first + outer * stride * nsz + zi * stride + inner;
			const struct ccs_result *r = ccs_output_res_at(S, res, in, k);
			double v = r ? (S->engine == 1 ? r->bw_sim_Bps : r->bw_model_Bps) / 1e9 : DNAN;
			double vs = r && r->bw_sim_Bps == r->bw_sim_Bps ? r->bw_sim_Bps / 1e9 : DNAN;
			val[(zi * nser + s) * (size_t)wcol] = v;
			if (both)
				val[(zi * nser + s) * 2 + 1] = vs;
			if (v == v)
				keep[s] = 1;
		}
		nkeep += keep[s];
	}
	return nkeep;
}

/* The .dat rows: a size, its label (every tenth of many), each kept
 * series' values. */
void ccs_plots_size_row(FILE *f, const struct scen *S, int sz, uint32_t zi)
{
	uint32_t nsz = S->lax[sz].n, every = nsz > 10 ? (nsz + 9) / 10 : 1;
	const char *lab = S->lax[sz].val[zi]->str;
	uint64_t bytes = 0;
	char err[64];
	ccs_parse_size(lab, &bytes, err, sizeof err);
	fprintf(f, "%llu \"%s\"", (unsigned long long)bytes, zi % every ? "" : lab);
}

static void busbw_rows(FILE *f, const struct scen *S, int sz, uint32_t nsz, size_t nser, int wcol, const double *val,
                       const char *keep)
{
	for (uint32_t zi = 0; zi < nsz; zi++) {
		ccs_plots_size_row(f, S, sz, zi);
		for (size_t s = 0; s < nser; s++)
			for (int c = 0; c < wcol && keep[s]; c++)
				fprintf(f, " %.6g", val[(zi * nser + s) * (size_t)wcol + (size_t)c]);
		fprintf(f, "\n");
	}
}

void ccs_plots_series(const struct scen *S, int w, int sz, size_t *first, size_t *stride, size_t *nser)
{
	size_t per = 0;   /* winsts of w */
	*first = 0;
	for (size_t k = 0; k < S->nwi; k++)
		if (S->wi[k].work == w) {
			if (!per)
				*first = k;
			per++;
		}
	/* winsts are generated with the local axes in order; the size
	 * axis's stride is the product of the later axes' sizes */
	*stride = 1;
	for (int k = sz + 1; k < S->lax_off[w + 1]; k++)
		*stride *= S->lax[k].n;
	*nser = per / S->lax[sz].n;
}

static int busbw_plot(const struct scen *S, const struct ccs_result **res, struct plots *P, int w, int sz, size_t in)
{
	/* series: the winsts of w with the same non-size axes */
	char name[200], a[96], b[96];
	ccs_plot_slug(S->gs[S->inst[in].design].name, a, sizeof a);
	ccs_plot_slug(S->ws[w].name, b, sizeof b);
	snprintf(name, sizeof name, "busbw-%.80s-%.80s%s%zu", b, a, S->ntopo_ax ? "-" : "", S->ntopo_ax ? in : 0);
	if (!S->ntopo_ax)
		name[strlen(name) - 1] = 0;
	FILE *f = ccs_plots_dat_open(S, name);
	if (!f)
		return -1;
	/* rows by size; columns by series */
	uint32_t nsz = S->lax[sz].n;
	size_t first, stride, nser;
	ccs_plots_series(S, w, sz, &first, &stride, &nser);
	int both = S->engine == 2;
	fprintf(f, "# busbw (GB/s) of %s on %s %s; x: size\nsize_B label", S->ws[w].name,
	        S->gs[S->inst[in].design].name, S->inst[in].axes);
	char (*ser)[160] = ccs_calloc(nser ? nser : 1, sizeof *ser);
	if (!ser) {
		fclose(f);
		return -1;
	}
	/* the values first: series without any (a combination left
	 * out at every size) are not drawn */
	int wcol = both ? 2 : 1;
	double *val = ccs_malloc((size_t)nsz * nser * (size_t)wcol * sizeof *val + 1);
	char *keep = ccs_calloc(nser ? nser : 1, 1);
	if (!val || !keep) {
		ccs_free(val);
		ccs_free(keep);
		ccs_free(ser);
		fclose(f);
		return -1;
	}
	size_t nkeep = ccs_plots_busbw_values(S, res, in, first, stride, nsz, nser, both, val, keep);
	for (size_t s = 0; s < nser; s++) {
		if (!keep[s])
			continue;
		/* series s: the winst index with size index 0 */
		size_t outer = s / stride, inner = s % stride;
		size_t k0 = first + outer * stride * nsz + inner;
		char txt[256];
		ccs_plots_series_label(S->wi[k0].axes, txt, sizeof txt);
		/* one engine: the series (or which engine); both: each
		 * series twice, closed form and simulated */
		const char *eng = S->engine == 1 ? "simulated" : "closed form";
		snprintf(ser[s], sizeof ser[s], "%.150s", txt);
		if (!both)
			fprintf(f, " \"%s\"", txt[0] ? ser[s] : eng);
		else
			fprintf(f, " \"%s%sclosed form\" \"%s%ssimulated\"", ser[s], txt[0] ? ", " : "", ser[s], txt[0] ? ", " : "");
	}
	fprintf(f, "\n");
	busbw_rows(f, S, sz, nsz, nser, wcol, val, keep);
	ccs_free(val);
	ccs_free(keep);
	nser = nkeep;
	fclose(f);
	ccs_free(ser);
	return busbw_script(S, P, w, in, name, nser, both);
}

int ccs_plots_busbw(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int w = 0; w < S->nw; w++) {
		int sz = -1;
		for (int k = S->lax_off[w]; k < S->lax_off[w + 1]; k++)
			if (!strcmp(S->lax[k].key, "bytes"))
				sz = k;
		if (sz < 0 || S->lax[sz].n < 2)
			continue;
		for (size_t in = 0; in < S->ninst; in++) {
			if (busbw_plot(S, res, P, w, sz, in))
				return -1;
		}
	}
	return 0;
}

/* time against each global axis with two values or more: per workload, a
 * line per design (the other axes at every combination) */
/* A series' label: the design (with several) and the point's other axes
 * (those not starting with prefix, axis a's key=). */
static void axis_label(const struct scen *S, const struct point *p, int a, char *ax, const char *prefix, char *lab,
                       size_t n)
{
	lab[0] = 0;
	if (S->ng > 1)
		snprintf(lab, n, "%s", S->gs[S->inst[p->inst].design].name);
	for (char *tok = ax; *tok;) {
		while (*tok == ' ')
			tok++;
		char *e = strchr(tok, ' ');
		size_t l = e ? (size_t)(e - tok) : strlen(tok);
		if (l && strncmp(tok, prefix, strlen(prefix) - strlen(S->ax[a].val[0]->str)) != 0) {
			char one[240], words[300];
			snprintf(one, sizeof one, "%.*s", (int)l, tok);
			ccs_label_axes(one, words, sizeof words);
			size_t ll = strlen(lab);
			snprintf(lab + ll, n - ll, "%s%s", ll ? ", " : "", words);
		}
		tok += l;
	}
}

/* Series point p0's time (and simulated time) at value v of axis a. */
static void axis_value(const struct scen *S, const struct ccs_result **res, int a, int w, const struct point *p0,
                       uint32_t v, double *t_, double *ts_)
{
	char want[600], from[220], to[220];
	snprintf(from, sizeof from, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
	         S->ax[a].val[0]->str);
	snprintf(to, sizeof to, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
	         S->ax[a].val[v]->str);
	char base[600];
	snprintf(base, sizeof base, " %s %s ", S->inst[p0->inst].axes, S->wi[p0->wi].axes);
	char *at = strstr(base, from);
	if (at)
		snprintf(want, sizeof want, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	else
		snprintf(want, sizeof want, "%s", base);
	double t = DNAN, ts = DNAN;
	for (size_t q = 0; q < S->npt; q++) {
		const struct point *p = &S->pt[q];
		if (S->wi[p->wi].work != w || S->inst[p->inst].design != S->inst[p0->inst].design)
			continue;
		char ax[600];
		snprintf(ax, sizeof ax, " %s %s ", S->inst[p->inst].axes, S->wi[p->wi].axes);
		if (!strcmp(ax, want) && res[q]) {
			t = ccs_output_shown_t(S, res[q]) * 1e6;
			ts = res[q]->t_sim_s * 1e6;
			break;
		}
	}
	*t_ = t;
	*ts_ = ts;
}

/* The gnuplot script of a time-against-axis plot of ns series. */
static int axis_script(const struct scen *S, struct plots *P, int a, int w, const char *name, size_t ns)
{
	char body[4096], title[400], xl[240];
	ccs_label_key(S->ax[a].key, xl, sizeof xl);
	for (char *c = xl; *c; c++)
		if (*c == '\'')
			*c = ' ';
	/* the key under the chart, clear of the axis label; a series'
	 * closed form and simulated points in one colour */
	if (S->engine == 2)
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset xlabel '%s' noenhanced\nset ylabel 'time (us)'\nset logscale y\n"
		         "set key below autotitle columnhead noenhanced spacing 1.2\nset offsets 0.3, 0.3, 0, 0\n"
		         "plot for [i=3:%zu:2] '%s.dat' using 1:i:xtic(2) with linespoints lw 2 pt 7 lc (i-1)/2, \\\n"
		         "     for [i=4:%zu:2] '%s.dat' using 1:i with linespoints dt 2 lw 1.5 pt 6 lc (i-2)/2\n",
		         xl, 2 + 2 * ns, name, 2 + 2 * ns, name);
	else
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset xlabel '%s' noenhanced\nset ylabel 'time (us)'\nset logscale y\n"
		         "set key below autotitle columnhead noenhanced spacing 1.2\nset offsets 0.3, 0.3, 0, 0\n"
		         "plot for [i=3:%zu] '%s.dat' using 1:i:xtic(2) with linespoints lw 2\n",
		         xl, 2 + ns, name);
	snprintf(title, sizeof title, "%s: %s against %s (%s)", S->name, S->ws[w].name, xl,
	         S->engine == 2 ? "closed form solid, simulated dashed" : S->engine == 1 ? "simulated" : "closed form");
	if (ccs_plot_script(S->outdir, name, title, body) || ccs_plot_add(P, name))
		return -1;
	return 0;
}

int ccs_plots_axes(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int a = 0; a < S->nax; a++) {
		if (S->ax[a].n < 2)
			continue;
		for (int w = 0; w < S->nw; w++) {
			char name[200], ak[96], wk[96];
			ccs_plot_slug(S->ax[a].key, ak, sizeof ak);
			ccs_plot_slug(S->ws[w].name, wk, sizeof wk);
			snprintf(name, sizeof name, "time-%s-vs-%s", wk, ak);
			FILE *f = ccs_plots_dat_open(S, name);
			if (!f)
				return -1;
			/* series: points of w whose value of axis a is the first one */
			char prefix[200];
			snprintf(prefix, sizeof prefix, "%s=%s", a < S->ntopo_ax ? S->ax[a].key : S->ax[a].key + 9,
			         S->ax[a].val[0]->str);
			fprintf(f, "# time (us) of %s against %s\nindex value", S->ws[w].name, S->ax[a].key);
			size_t *series = ccs_calloc(S->npt + 1, sizeof *series);
			size_t ns = 0;
			if (!series) {
				fclose(f);
				return -1;
			}
			for (size_t i = 0; i < S->npt; i++) {
				const struct point *p = &S->pt[i];
				if (S->wi[p->wi].work != w)
					continue;
				char ax[600];
				snprintf(ax, sizeof ax, " %s %s ", S->inst[p->inst].axes, S->wi[p->wi].axes);
				char pat[220];
				snprintf(pat, sizeof pat, " %s ", prefix);
				if (!strstr(ax, pat))
					continue;
				series[ns++] = i;
				char lab[700];
				axis_label(S, p, a, ax, prefix, lab, sizeof lab);
				for (int e = 0; e < (S->engine == 2 ? 2 : 1); e++) {
					fprintf(f, " \"");
					for (const char *c = lab; *c; c++)
						if (*c != '"')
							fputc(*c, f);
					const char *eng = S->engine == 2 ? (e ? "simulated" : "closed form") : NULL;
					if (!lab[0])
						fprintf(f, "%s\"", eng ? eng : S->ws[w].name);
					else
						fprintf(f, "%s%s\"", eng ? ", " : "", eng ? eng : "");
				}
			}
			fprintf(f, "\n");
			for (uint32_t v = 0; v < S->ax[a].n; v++) {
				fprintf(f, "%u \"%s\"", v, S->ax[a].val[v]->str);
				for (size_t s = 0; s < ns; s++) {
					const struct point *p0 = &S->pt[series[s]];
					double t, ts;
					axis_value(S, res, a, w, p0, v, &t, &ts);
					fprintf(f, " %.6g", t);
					if (S->engine == 2)
						fprintf(f, " %.6g", ts);
				}
				fprintf(f, "\n");
			}
			fclose(f);
			ccs_free(series);
			if (axis_script(S, P, a, w, name, ns))
				return -1;
		}
	}
	return 0;
}

/* s into a gnuplot double-quoted string at b[*o] (newlines as \n) */
static void gp_str(char *b, size_t n, int *o, const char *s)
{
	for (; *s && *o < (int)n - 4; s++) {
		if (*s == '\n') {
			b[(*o)++] = '\\';
			b[(*o)++] = 'n';
			continue;
		}
		if (*s == '"' || *s == '\\')
			b[(*o)++] = '\\';
		b[(*o)++] = *s;
	}
	b[*o] = 0;
}

/* where time goes: per workload, a stacked bar per design at its last point
 * (the largest size or the last value of every axis), each bar named by
 * its design and that point (wrapped to fit under it) */
int ccs_plots_breakdown(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	for (int w = 0; w < S->nw; w++) {
		char name[200], wk[96];
		ccs_plot_slug(S->ws[w].name, wk, sizeof wk);
		snprintf(name, sizeof name, "breakdown-%s", wk);
		FILE *f = ccs_plots_dat_open(S, name);
		if (!f)
			return -1;
		fprintf(f, "# where time goes (us) at each design's last point of %s: latency (the closed\n"
		           "# form's fixed costs), sync (its per-chunk synchronisation), bandwidth (its bytes\n"
		           "# over rates), contention (what the simulator adds on top)\n"
		           "\"design\" \"latency: fixed costs\" \"sync: a wait per pipeline step\" \"bandwidth: bytes over rates\" "
		           "\"contention: simulated above the closed form\" \"axes\"\n",
		        S->ws[w].name);
		char xt[4096];
		int xo = snprintf(xt, sizeof xt, "set xtics (");
		/* the key goes under the chart, so each bar has the chart's width
		 * over the designs: about 110 characters in all */
		int width = 100 / (S->ng > 0 ? S->ng : 1) - 4;
		width = width < 12 ? 12 : width > 40 ? 40 : width;
		int maxl = 1;   /* the most lines a bar's name takes */
		for (int g = 0; g < S->ng; g++) {
			const struct ccs_result *r = NULL;
			for (size_t i = S->npt; i-- > 0 && !r;)
				if (S->wi[S->pt[i].wi].work == w && S->inst[S->pt[i].inst].design == g)
					r = res[i];
			double lat = DNAN, bw = DNAN, con = 0, sync = 0;
			if (r && r->t_model_s == r->t_model_s) {
				bw = r->bwterm_s == r->bwterm_s ? r->bwterm_s : r->t_model_s;
				sync = r->step_s == r->step_s ? r->step_s : 0;
				lat = r->t_model_s - bw - sync;
				if (r->t_sim_s == r->t_sim_s && r->t_sim_s > r->t_model_s)
					con = r->t_sim_s - r->t_model_s;
			} else if (r) {
				bw = r->t_sim_s;
				lat = 0;
			}
			fprintf(f, "\"");
			for (const char *c = S->gs[g].name; *c; c++)
				if (*c != '"')
					fputc(*c, f);
			fprintf(f, "\" %.6g %.6g %.6g %.6g \"%s\"\n", lat * 1e6, sync * 1e6, bw * 1e6, con * 1e6,
			        r ? r->axes : "");
			/* the bar's name: the design, and the point in words */
			char ax[300], lab[600], wr[700];
			ccs_label_axes(r ? r->axes : "", ax, sizeof ax);
			snprintf(lab, sizeof lab, "%s%s%s", S->gs[g].name, ax[0] ? "\n" : "", ax);
			ccs_label_wrap(lab, width, wr, sizeof wr);
			int lines = 1;
			for (const char *c = wr; *c; c++)
				lines += *c == '\n';
			maxl = lines > maxl ? lines : maxl;
			xo += snprintf(xt + xo, sizeof xt - (size_t)xo, "%s\"", g ? ", " : "");
			gp_str(xt, sizeof xt - 16, &xo, wr);
			xo += snprintf(xt + xo, sizeof xt - (size_t)xo, "\" %d", g);
		}
		fclose(f);
		snprintf(xt + xo, sizeof xt - (size_t)xo, ") noenhanced\n");
		char body[8192], title[400];
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset style data histograms\nset style histogram rowstacked\n"
		         "set style fill solid 0.85 border -1\nset boxwidth 0.6\nset ylabel 'time (us)'\nset yrange [0:*]\n"
		         "%sset bmargin %d\nset key above autotitle columnhead noenhanced maxrows 2\n"
		         "plot '%s.dat' using 2, '' using 3, '' using 4, '' using 5\n",
		         xt, maxl + 3, name);
		snprintf(title, sizeof title, "%s: where the time of %s goes, at each design's last point", S->name,
		         S->ws[w].name);
		if (ccs_plot_script(S->outdir, name, title, body) || ccs_plot_add(P, name))
			return -1;
	}
	return 0;
}

/* link utilisation heatmaps of the simulated points that wrote one */
int ccs_plots_heat(const struct scen *S, struct plots *P)
{
	for (size_t i = 0; i < S->npt; i++) {
		const struct point *p = &S->pt[i];
		if (!p->heat)
			continue;
		char a[128], b[128], name[300], path[1400];
		ccs_plot_slug(S->gs[S->inst[p->inst].design].name, a, sizeof a);
		ccs_plot_slug(S->ws[S->wi[p->wi].work].name, b, sizeof b);
		snprintf(name, sizeof name, "links-%s-%s-%zu", a, b, (size_t)p->inst);
		snprintf(path, sizeof path, "%s/%s.dat", S->outdir, name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		/* link names for the y axis: the fourth column, once per link */
		char body[8192];
		int o = snprintf(body, sizeof body, "set ytics (");
		char line[512];
		int last = -1, nl = 0;
		while (fgets(line, sizeof line, f)) {
			double t, u;
			int k;
			char nm[200];
			if (line[0] == '#' || sscanf(line, "%lf %d %lf %199s", &t, &k, &u, nm) != 4 || k == last)
				continue;
			last = k;
			if (o < (int)sizeof body - 300)
				o += snprintf(body + o, sizeof body - (size_t)o, "%s\"%s\" %d", nl ? ", " : "", nm, k);
			nl++;
		}
		fclose(f);
		if (!nl)
			continue;
		snprintf(body + o, sizeof body - (size_t)o,
		         ") noenhanced\nset xlabel 'time (us)'\nset ylabel ''\nset cblabel 'utilisation (%%)'\n"
		         "set cbrange [0:100]\nset palette defined (0 'white', 50 'orange', 100 'dark-red')\n"
		         "set yrange [-0.5:%d.5]\nset xrange [0:*]\nunset key\nplot '%s.dat' using 1:2:3 with image\n", nl - 1, name);
		/* the point in words: its design, workload and axes */
		char ax[300], pax[600], title[900];
		snprintf(pax, sizeof pax, "%s %s", S->inst[p->inst].axes, S->wi[p->wi].axes);
		ccs_label_axes(pax, ax, sizeof ax);
		snprintf(title, sizeof title, "%.150s: link utilisation over time\n%s, %s%s%s", S->name,
		         S->gs[S->inst[p->inst].design].name, S->ws[S->wi[p->wi].work].name, ax[0] ? ", " : "", ax);
		if (ccs_plot_script(S->outdir, name, title, body) || ccs_plot_add(P, name))
			return -1;
	}
	return 0;
}

int ccs_plots_mkdirs(const char *path)
{
	char b[1024];
	snprintf(b, sizeof b, "%s", path);
	for (char *p = b + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(b, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(b, 0755) && errno != EEXIST ? -1 : 0;
}
