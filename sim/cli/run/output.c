/* sim/cli/run/output.c: the summary tables printed after a study (run.h). */
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

/* ---- the summary and the plots ---- */

int ccs_output_by_key(const void *a, const void *b)
{
	const struct ccs_result *x = a, *y = b;
	int c = strcmp(x->point, y->point);
	return c ? c : strcmp(x->topo_hash, y->topo_hash);
}

/* The stored result of a point on its topology, from rs sorted by by_key. */
const struct ccs_result *ccs_output_find_result(const struct ccs_result *rs, size_t n, const char *key, const char *hash)
{
	if (!n)
		return NULL;
	struct ccs_result k;
	snprintf(k.point, sizeof k.point, "%s", key);
	snprintf(k.topo_hash, sizeof k.topo_hash, "%s", hash);
	return bsearch(&k, rs, n, sizeof *rs, ccs_output_by_key);
}

/* The result of (instance, workload instance), NULL when left out. */
const struct ccs_result *ccs_output_res_at(const struct scen *S, const struct ccs_result **res, size_t inst, size_t wi)
{
	int32_t p = S->at[inst * S->nwi + wi];
	return p < 0 ? NULL : res[p];
}

double ccs_output_shown_t(const struct scen *S, const struct ccs_result *r)
{
	return S->engine == 1 ? r->t_sim_s : r->t_model_s;
}

static void cell_text(const struct scen *S, const struct ccs_result *r, char *b, size_t n)
{
	if (!r)
		snprintf(b, n, "-");
	else if (S->engine == 0)
		snprintf(b, n, "%.1f us %s", r->t_model_s * 1e6, r->algo);
	else if (S->engine == 1)
		snprintf(b, n, "%.1f us %s", r->t_sim_s * 1e6, r->algo);
	else
		snprintf(b, n, "%.1f/%.1f us %s", r->t_model_s * 1e6, r->t_sim_s * 1e6, r->algo);
}

/* One table per workload: a row per combination of the axes, a column
 * per design. */
void ccs_output_print_tables(const struct scen *S, const struct ccs_result **res)
{
	printf("# %s: %s (%s)\n", me, S->name,
	       S->engine == 0 ? "closed form" : S->engine == 1 ? "simulator" : "closed form / simulator");
	/* the axes column as wide as its longest text (at least 12) */
	int aw = 12;
	for (size_t i = 0; i < S->npt; i++) {
		int l = (int)(strlen(S->inst[S->pt[i].inst].axes) + 1 + strlen(S->wi[S->pt[i].wi].axes));
		if (l > aw)
			aw = l < 120 ? l : 120;
	}
	for (int w = 0; w < S->nw; w++) {
		printf("#\n# %s\n# %-*s", S->ws[w].name, aw, "axes");
		for (int g = 0; g < S->ng; g++)
			printf(" | %-42.42s", S->gs[g].name);
		printf("\n");
		/* rows: (topology axes, workload axes) in point order */
		for (size_t i = 0; i < S->npt; i++) {
			const struct point *p = &S->pt[i];
			if (S->wi[p->wi].work != w || S->inst[p->inst].design != 0)
				continue;
			char ax[600];
			snprintf(ax, sizeof ax, "%s%s%s", S->inst[p->inst].axes,
			         S->inst[p->inst].axes[0] && S->wi[p->wi].axes[0] ? " " : "", S->wi[p->wi].axes);
			printf("  %-*.*s", aw, aw, ax[0] ? ax : "-");
			for (int g = 0; g < S->ng; g++) {
				/* the same axes on design g: instances go design by design,
				 * each over every combination of the topology axes */
				size_t ncombo = S->ninst / (size_t)S->ng;
				const struct ccs_result *r = ccs_output_res_at(S, res, (size_t)g * ncombo + (size_t)p->inst % ncombo, (size_t)p->wi);
				char b[96];
				cell_text(S, r, b, sizeof b);
				printf(" | %-42.42s", b);
			}
			printf("\n");
		}
	}
}

/* The old side-by-side layout, when nothing is swept (one point per
 * design and workload). */
void ccs_output_print_grid(const struct scen *S, const struct ccs_result **res)
{
	printf("# %s: %s (%s)\n#\n", me, S->name,
	       S->engine == 0 ? "closed form" : S->engine == 1 ? "simulator" : "closed form / simulator");
	printf("# %-24s", "design");
	for (int i = 0; i < S->ng; i++)
		printf(" | %-28.28s", S->gs[i].name);
	printf("\n# %-24s", "ranks (groups x size)");
	for (int i = 0; i < S->ng; i++) {
		char b[64];
		snprintf(b, sizeof b, "%d (%d x %d)", S->inst[i].c.n, S->inst[i].c.G, S->inst[i].c.p);
		printf(" | %-28s", b);
	}
	printf("\n");
	for (int j = 0; j < S->nw; j++) {
		printf("  %-24.24s", S->ws[j].name);
		for (int i = 0; i < S->ng; i++) {
			char b[96];
			cell_text(S, res[(size_t)i * S->nw + j], b, sizeof b);
			printf(" | %-28.28s", b);
		}
		printf("\n");
	}
	printf("#\n# bandwidth: MoE rows DeepEP's bottleneck bandwidth, kvcache what a decode rank receives per second, collectives busbw (GB/s, closed form)\n");
	for (int j = 0; j < S->nw; j++) {
		printf("  %-24.24s", S->ws[j].name);
		for (int i = 0; i < S->ng; i++) {
			const struct ccs_result *r = res[(size_t)i * S->nw + j];
			char b[64];
			snprintf(b, sizeof b, "%.1f GB/s", r && r->bw_model_Bps == r->bw_model_Bps ? r->bw_model_Bps / 1e9 : 0.0);
			printf(" | %-28s", b);
		}
		printf("\n");
	}
}
