/*
** tests/validate/logo.c: the constants of the parameter table that were set
** from rows of published.csv, each refit without a hardware group and that
** group scored with the value it gives (leave one group out).
*/
#include "validate.h"
#include "../../model/topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Constants set from rows of published.csv, and leave-one-group-out ----
 *
 * A constant of model/topo.c that was set from rows of published.csv: the
 * --set keys that carry it, the rule that gives it from its source rows
 * (the median of measured / wire over them, rounded as shipped; or, for the
 * EP kernel's fixed cost, the median of what the rows measure beyond the
 * model's time without it), and the value shipped.  For each scored group
 * the rule is applied again without the rows of the group's machine and the
 * group is scored with that value: its error is then one the constant did
 * not learn.  The DeepEP rows are one machine, so there each EP size is the
 * group left out. */
struct konst {
	const char *name;
	const char *keys[4];
	int which;                  /* its field of ccs_model_params: a link type, or -1 the EP cost */
	double round_to;
	const char *src[16];        /* source row ids, or one id prefix with resid */
	double wire;                /* GB/s each source row is measured against */
	int resid;                  /* 1: the EP rule (time_us rows, residual) */
	int arch;                   /* it applies only to rows whose NVLink is this generation's (enum ccs_arch); -1: all */
};

static const struct konst konsts[] = {
	/* a row of the parameter table (model/params.c) whose source is also a
	 * row here: it sets Hopper's NVLink (and UB, HCCS, its stand-ins) only;
	 * other generations have their own rows */
	{ "NVLink 4 efficiency (Hopper)", { "model.efficiency.nvlink", "model.efficiency.ub", "model.efficiency.hccs", NULL },
	  CCS_LINK_NVLINK, 0.01, { "I1264-H100-p2p-uni", NULL }, 450.0, 0, CCS_ARCH_HOPPER },
	{ "EP kernel fixed cost (us)", { "model.ep_overhead", NULL }, -1, 1.0, { "DEEPEP1-LL-", NULL }, 0, 1, -1 },
};

/* The value k has in the shipped defaults. */
static double shipped(const struct konst *k)
{
	struct ccs_model_params p;
	ccs_model_params_default(&p);
	return k->which < 0 ? p.ep_overhead_s * 1e6 : p.eff[k->which];
}

/* Row i scored again with extra --set values into *r (r->skip on failure). */
static int rescore(char *const *lines, int i, const char *const *extra, int nextra, struct result *r)
{
	static char buf[16384];
	char *f[MAXF];
	snprintf(buf, sizeof buf, "%s", lines[i]);
	memset(r, 0, sizeof *r);
	if (csv_fields(buf, f, MAXF) < 17)
		return -1;
	return score_row(f, r, extra, nextra);
}

static int is_src(const struct konst *k, const struct result *r)
{
	if (k->resid)
		return !strncmp(r->id, k->src[0], strlen(k->src[0])) && !strcmp(r->metric, "time_us");
	for (int j = 0; k->src[j]; j++)
		if (!strcmp(r->id, k->src[j]))
			return 1;
	return 0;
}

/* What source row i gives for k: measured / wire, or the residual. */
static double src_figure(const struct konst *k, const struct result *res, char *const *lines, int i)
{
	if (!k->resid)
		return res[i].meas / k->wire;
	const char *zero = "model.ep_overhead=0us";
	struct result r0;
	if (rescore(lines, i, &zero, 1, &r0) || r0.skip)
		return NAN;
	return res[i].meas - r0.ours;
}

/* k's rule over its source rows, leaving out those whose id starts with
 * drop_machine (NULL: none) or whose EP size is drop_ep (0: none). */
static double konst_value(const struct konst *k, const struct result *res, char *const *lines, int nres,
                          const char *drop_machine, int drop_ep, int *nsrc)
{
	static double v[1024];
	int n = 0;
	for (int i = 0; i < nres; i++) {
		if (!is_src(k, &res[i]))
			continue;
		if (drop_machine && !strncmp(res[i].id, drop_machine, strlen(drop_machine)))
			continue;
		if (drop_ep && res[i].ep == drop_ep)
			continue;
		double x = src_figure(k, res, lines, i);
		if (!isnan(x))
			v[n++] = x;
	}
	*nsrc = n;
	if (!n)
		return NAN;
	return round(median(v, n) / k->round_to) * k->round_to;
}

/* The median |error| of the scored rows that sel() picks, each scored with
 * k at value (or as shipped when value is NAN). */
static double sel_err(const struct konst *k, double value, const struct result *res, char *const *lines, int nres,
                      const char *group, int ep, int *nrows)
{
	static double e[1024];
	char vals[4][64];
	const char *extra[4];
	int nx = 0;
	for (; !isnan(value) && nx < 4 && k->keys[nx]; nx++) {
		snprintf(vals[nx], sizeof vals[nx], "%s=%g%s", k->keys[nx], value, k->resid ? "us" : "");
		extra[nx] = vals[nx];
	}
	int n = 0;
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip || (group && strcmp(r->group, group)) || (ep && (!r->moe || r->ep != ep)))
			continue;
		struct result t;
		const struct result *u = r;
		if (nx && (k->arch < 0 || r->nvlink_arch == k->arch)) {
			if (rescore(lines, i, extra, nx, &t) || t.skip)
				continue;
			u = &t;
		}
		e[n++] = fabs(u->ours / u->meas - 1);
	}
	*nrows = n;
	return median(e, n);
}

void write_logo(FILE *out, const struct result *res, char *const *lines, int nres)
{
	fprintf(out, "## Constants set from published rows: leave one group out\n\n"
	             "Two rows of the parameter table (`model/params.c`, `ccsim params`) come from rows of this file (PCIe's efficiency,\n"
	             "fitted here before, is now derived from the TLP model). Each is given by a rule on its\n"
	             "source rows (efficiencies: the median of measured / wire rate, rounded to 0.01; the EP kernel's\n"
	             "fixed cost: the median of what DeepEP's low-latency time rows measure beyond the model's time\n"
	             "without it, rounded to 1 us). For each scored group the rule is applied again without the rows\n"
	             "of that group's machine, and the group is scored with the value it gives; the DeepEP rows are\n"
	             "one machine, so there each EP size is left out in turn. Every other constant has a public\n"
	             "source outside this file (docs/model.md, section 6).\n\n"
	             "| constant | shipped | its rule on all its source rows | source rows |\n|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof konsts / sizeof konsts[0]; k++) {
		const struct konst *K = &konsts[k];
		int ns;
		double v = konst_value(K, res, lines, nres, NULL, 0, &ns);
		fprintf(out, "| %s | %g | %g | %d: ", K->name, shipped(K), v, ns);
		for (int j = 0; K->src[j]; j++)
			fprintf(out, "%s%s%s", j ? ", " : "", K->src[j], K->resid ? "*-lat" : "");
		fprintf(out, " |\n");
	}
	fprintf(out, "\n| group left out | constant | its value without the group | rows | median abs, shipped | "
	             "median abs, left out |\n|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof konsts / sizeof konsts[0]; k++) {
		const struct konst *K = &konsts[k];
		if (K->resid) {
			for (int ep = 8; ep <= 256; ep *= 2) {
				int ns, nr, nr2;
				double v = konst_value(K, res, lines, nres, NULL, ep, &ns);
				const char *dg = "DeepEP on H800 (MoE dispatch/combine)";
				double e0 = sel_err(K, NAN, res, lines, nres, dg, ep, &nr);
				if (!nr)
					continue;
				double e1 = sel_err(K, v, res, lines, nres, dg, ep, &nr2);
				fprintf(out, "| DeepEP EP%d | %s | %g | %d | %.1f%% | %.1f%% |\n", ep, K->name, v, nr, 100 * e0,
				        100 * e1);
			}
			continue;
		}
		for (size_t g = 0; g < nrules; g++) {
			const struct rule *ru = &rules[g];
			if (ru->skip || !ru->machine || !strncmp(ru->prefix, "DEEPEP", 6))
				continue;
			int ns, nr, nr2;
			double v = konst_value(K, res, lines, nres, ru->machine, 0, &ns);
			double e0 = sel_err(K, NAN, res, lines, nres, ru->group, 0, &nr);
			if (!nr)
				continue;
			int uses = K->arch < 0;
			for (int i = 0; i < nres && !uses; i++)
				uses = !res[i].skip && !strcmp(res[i].group, ru->group) && res[i].nvlink_arch == K->arch;
			if (!uses) {
				fprintf(out, "| %s | %s | not used: its GPUs take their own generation's row | %d | %.1f%% | %.1f%% |\n",
				        ru->group, K->name, nr, 100 * e0, 100 * e0);
				continue;
			}
			if (isnan(v)) {
				fprintf(out, "| %s | %s | no source row outside it | %d | %.1f%% | - |\n", ru->group, K->name, nr,
				        100 * e0);
				continue;
			}
			double e1 = fabs(v - shipped(K)) < 1e-9 ? e0 : sel_err(K, v, res, lines, nres, ru->group, 0, &nr2);
			fprintf(out, "| %s | %s | %g%s | %d | %.1f%% | %.1f%% |\n", ru->group, K->name, v,
			        fabs(v - shipped(K)) < 1e-9 ? " (as shipped: no source in this group)" : "", nr, 100 * e0,
			        100 * e1);
		}
	}
	fprintf(out, "\n");
}

/* Every scored row with every constant refit without the row's group: the
 * machine its rule names (a DeepEP row: its EP size, for the EP cost), a
 * constant with no source row left keeping its shipped value.  The medians
 * of |error| into out: >= 64 MiB and all sizes over the collective rows, and
 * over the DeepEP rows. */
void logo_summary(const struct result *res, char *const *lines, int nres, struct logo_fig *out)
{
	static double big[1024], all[1024], moe[1024], band[CCS_MODELERR_BANDS][1024];
	int nb = 0, na = 0, nm = 0, nband[CCS_MODELERR_BANDS] = { 0 };
	const size_t nk = sizeof konsts / sizeof konsts[0];
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip)
			continue;
		const char *machine = NULL;
		for (size_t g = 0; g < nrules && !machine; g++)
			if (!strcmp(rules[g].group, r->group))
				machine = rules[g].machine;
		int deepep = r->moe && !r->pplx;
		char vals[16][64];
		const char *extra[16];
		int nx = 0;
		for (size_t k = 0; k < nk; k++) {
			const struct konst *K = &konsts[k];
			int ns;
			double v = K->resid && deepep ? konst_value(K, res, lines, nres, NULL, r->ep, &ns)
			                              : konst_value(K, res, lines, nres, machine, 0, &ns);
			if (isnan(v) || fabs(v - shipped(K)) < 1e-9 || (K->arch >= 0 && r->nvlink_arch != K->arch))
				continue;
			for (int j = 0; K->keys[j] && nx < 16; j++, nx++) {
				snprintf(vals[nx], sizeof vals[nx], "%s=%g%s", K->keys[j], v, K->resid ? "us" : "");
				extra[nx] = vals[nx];
			}
		}
		struct result t;
		const struct result *u = r;
		if (nx) {
			if (rescore(lines, i, extra, nx, &t) || t.skip)
				continue;
			u = &t;
		}
		double e = fabs(u->ours / u->meas - 1);
		if (deepep)
			moe[nm++] = e;
		else if (!r->moe) {
			all[na++] = e;
			if (r->bytes >= 64.0 * 1048576)
				big[nb++] = e;
			int k = ccs_modelerr_band((uint64_t)r->bytes);
			band[k][nband[k]++] = e;
		}
	}
	out->big = median(big, nb);
	out->all = median(all, na);
	out->moe = median(moe, nm);
	out->nbig = nb;
	out->nall = na;
	out->nmoe = nm;
	for (int k = 0; k < CCS_MODELERR_BANDS; k++) {
		out->band[k] = median(band[k], nband[k]);
		out->nband[k] = nband[k];
	}
}
