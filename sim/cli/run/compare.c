/* sim/cli/run/compare.c: the study's comparison chart: per workload swept
 * over sizes, every design's bus bandwidth on one chart, each design in its
 * own colour, the closed form solid and the simulator dashed (run.h). */
#include "run.h"

#include <stdio.h>
#include <string.h>

/* One design instance's series of workload w on the chart: their labels
 * written as column heads, their values kept for the rows. */
struct col {
	size_t in, s;               /* instance, series */
};

/* The label of instance in's series s: the design (with its topology axes
 * in words where the study sweeps them) and the series' own axes. */
static void col_label(const struct scen *S, size_t in, const char *ser, char *out, size_t n)
{
	char ax[300];
	ccs_label_axes(S->inst[in].axes, ax, sizeof ax);
	snprintf(out, n, "%s%s%s%s%s", S->gs[S->inst[in].design].name, ax[0] ? ", " : "", ax, ser[0] ? ", " : "", ser);
}

/* The chart's columns: (instance, series) pairs, which have values, and
 * the values (size-major, wcol per column). */
struct cols {
	const struct col *col;
	size_t n;
	const char *keep;
	const double *val;
	size_t first, stride;
	uint32_t nsz;
	int wcol;
};

/* The .dat: a header of the kept columns' labels, a row per size. */
static void write_dat(FILE *f, const struct scen *S, int w, int sz, const struct cols *c)
{
	fprintf(f, "# busbw (GB/s) of %s on every design; x: size\nsize_B label", S->ws[w].name);
	for (size_t k = 0; k < c->n; k++) {
		if (!c->keep[k])
			continue;
		size_t k0 = c->first + (c->col[k].s / c->stride) * c->stride * c->nsz + c->col[k].s % c->stride;
		char ser[256], lab[700];
		ccs_plots_series_label(S->wi[k0].axes, ser, sizeof ser);
		col_label(S, c->col[k].in, ser, lab, sizeof lab);
		for (char *p = lab; *p; p++)
			if (*p == '"')
				*p = '\'';
		if (c->wcol == 2)
			fprintf(f, " \"%s, closed form\" \"%s, simulated\"", lab, lab);
		else
			fprintf(f, " \"%s\"", lab);
	}
	fprintf(f, "\n");
	for (uint32_t zi = 0; zi < c->nsz; zi++) {
		ccs_plots_size_row(f, S, sz, zi);
		for (size_t k = 0; k < c->n; k++)
			for (int e = 0; e < c->wcol && c->keep[k]; e++)
				fprintf(f, " %.6g", c->val[((size_t)zi * c->n + k) * (size_t)c->wcol + (size_t)e]);
		fprintf(f, "\n");
	}
}

static int compare_one(const struct scen *S, const struct ccs_result **res, struct plots *P, int w, int sz)
{
	uint32_t nsz = S->lax[sz].n;
	size_t first, stride, nser;
	ccs_plots_series(S, w, sz, &first, &stride, &nser);
	int both = S->engine == 2, wcol = both ? 2 : 1;
	size_t ncol = S->ninst * nser;
	double *val = ccs_malloc((size_t)nsz * (ncol ? ncol : 1) * (size_t)wcol * sizeof *val);
	char *keep = ccs_calloc(ncol ? ncol : 1, 1);
	struct col *cols = ccs_calloc(ncol ? ncol : 1, sizeof *cols);
	double *one = ccs_malloc((size_t)nsz * (nser ? nser : 1) * (size_t)wcol * sizeof *one);
	int rc = -1;
	FILE *f = NULL;
	if (!val || !keep || !cols || !one)
		goto out;
	/* every instance's series, side by side: column c = (in, s) */
	size_t nk = 0;
	for (size_t in = 0; in < S->ninst; in++) {
		ccs_plots_busbw_values(S, res, in, first, stride, nsz, nser, both, one, keep + in * nser);
		for (size_t s = 0; s < nser; s++) {
			size_t c = in * nser + s;
			cols[c] = (struct col){ in, s };
			nk += keep[c];
			for (uint32_t zi = 0; zi < nsz; zi++)
				for (int e = 0; e < wcol; e++)
					val[((size_t)zi * ncol + c) * (size_t)wcol + (size_t)e] = one[((size_t)zi * nser + s) * (size_t)wcol + (size_t)e];
		}
	}
	if (nk < 2) {
		rc = 0;   /* one line: the design's own chart says it all */
		goto out;
	}
	char name[200], wk[96];
	ccs_plot_slug(S->ws[w].name, wk, sizeof wk);
	snprintf(name, sizeof name, "compare-%s", wk);
	f = ccs_plots_dat_open(S, name);
	if (!f)
		goto out;
	const struct cols cs = { cols, ncol, keep, val, first, stride, nsz, wcol };
	write_dat(f, S, w, sz, &cs);
	if (fclose(f)) {
		f = NULL;
		goto out;
	}
	f = NULL;
	/* a design's colour for both of its lines; the key under the chart in
	 * columns, so six designs (twelve lines) still leave the plot its room */
	char body[4096], title[400];
	size_t last = 2 + nk * (size_t)wcol;
	if (both)
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\n"
		         "set xlabel 'message size (bytes, nccl-tests size)'\nset ylabel 'bus bandwidth (GB/s)'\n"
		         "set key below maxrows %zu autotitle columnhead noenhanced spacing 1.1\n"
		         "plot for [i=3:%zu:2] '%s.dat' using 1:i:xtic(2) with linespoints lw 2 pt 7 lc (i-1)/2, \\\n"
		         "     for [i=4:%zu:2] '%s.dat' using 1:i with linespoints dt 2 lw 1.5 pt 6 ps 1.3 lc (i-2)/2\n",
		         nk < 4 ? nk : (nk + 1) / 2, last, name, last, name);
	else
		snprintf(body, sizeof body,
		         "set datafile missing 'nan'\nset logscale x 2\nset offsets graph 0.03, graph 0.03, 0, 0\n"
		         "set xlabel 'message size (bytes, nccl-tests size)'\nset ylabel 'bus bandwidth (GB/s)'\n"
		         "set key below maxrows %zu autotitle columnhead noenhanced spacing 1.1\n"
		         "plot for [i=3:%zu] '%s.dat' using 1:i:xtic(2) with linespoints lw 2 pt 7 lc i-2\n",
		         nk < 4 ? nk : (nk + 1) / 2, last, name);
	snprintf(title, sizeof title, "%s: %s bus bandwidth, every design (%s)", S->name, S->ws[w].name,
	         both ? "closed form solid, simulated dashed" : S->engine == 1 ? "simulated" : "closed form");
	rc = ccs_plot_script(S->outdir, name, title, body) || ccs_plot_add(P, name) ? -1 : 0;
out:
	if (f)
		fclose(f);
	ccs_free(val);
	ccs_free(keep);
	ccs_free(cols);
	ccs_free(one);
	return rc;
}

int ccs_plots_compare(const struct scen *S, const struct ccs_result **res, struct plots *P)
{
	if (S->ninst < 2)
		return 0;
	for (int w = 0; w < S->nw; w++) {
		int sz = -1;
		for (int k = S->lax_off[w]; k < S->lax_off[w + 1]; k++)
			if (!strcmp(S->lax[k].key, "bytes"))
				sz = k;
		if (sz >= 0 && S->lax[sz].n >= 2 && compare_one(S, res, P, w, sz))
			return -1;
	}
	return 0;
}
