/* sim/cli/run/sweep.c: sweep axes: topology scalars and workload fields, their combinations and hashes (run.h). */
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

/* ---- sweeps ---- */

/* Whether workload w takes its algorithm or protocol from a list (its own or
 * a sweep axis). */
int ccs_sweep_listed_algo(const struct scen *S, int w)
{
	for (int k = S->lax_off[w]; k < S->lax_off[w + 1]; k++)
		if (!strcmp(S->lax[k].key, "algo") || !strcmp(S->lax[k].key, "proto"))
			return 1;
	for (int a = S->ntopo_ax; a < S->nax; a++)
		if (!strcmp(S->ax[a].key, "workload.algo") || !strcmp(S->ax[a].key, "workload.proto"))
			return 1;
	return 0;
}

void ccs_sweep_topo_hash(const struct ccs_topo *t, char out[24])
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x) do { uint64_t v_; double d_ = (double)(x); memcpy(&v_, &d_, 8); h ^= v_; h *= 1099511628211ull; } while (0)
	MIX(t->ndev);
	MIX(t->nlink);
	for (uint32_t i = 0; i < t->ndev; i++) {
		MIX(t->dev[i].kind);
		MIX(t->dev[i].bw_Bps);
		MIX(t->dev[i].lat_s);
		MIX(t->dev[i].node);
		MIX(t->dev[i].flags);
	}
	for (uint32_t i = 0; i < t->nlink; i++) {
		MIX(t->link[i].a);
		MIX(t->link[i].b);
		MIX(t->link[i].type);
		MIX(t->link[i].bw_Bps);
		MIX(t->link[i].lat_s);
	}
	const struct ccs_model_params *p = &t->params;
	for (int i = 0; i < CCS_LINK_NTYPES; i++)
		MIX(p->eff[i]);
	for (int i = 0; i < 3; i++)
		MIX(p->step_s[i]);
	MIX(p->nvls_channels);
	MIX(p->channels);
	MIX(p->ep_overhead_s);
	MIX(p->shot_overhead_s[0]);
	MIX(p->shot_overhead_s[1]);
	MIX(p->twoshot_eff);
	MIX(p->transport);
#undef MIX
	snprintf(out, 24, "%016llx", (unsigned long long)h);
}

void ccs_sweep_file_hash(const char *text, size_t len, char out[24])
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 1099511628211ull;
	}
	snprintf(out, 24, "%016llx", (unsigned long long)h);
}

/* An axis from key: [values] (values: scalars). */
int ccs_sweep_axis_from(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a)
{
	int rc = ccs_ytree_kind(d, v, CCS_Y_SEQ, k->str);
	if (rc)
		return rc;
	if (!v->n)
		return ccs_scenario_error(d, v, "'%s' needs at least one value", k->str);
	a->key = k->str;
	a->at = k;
	a->n = v->n;
	a->val = ccs_calloc(v->n, sizeof *a->val);
	if (!a->val)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < v->n; i++) {
		if ((rc = ccs_ytree_kind(d, v->v[i], CCS_Y_SCALAR, k->str))) {
			ccs_free(a->val);   /* the caller keeps only axes that loaded */
			a->val = NULL;
			return rc;
		}
		a->val[i] = v->v[i];
	}
	return CCS_OK;
}

/* sizes: {from: 8B, to: 8GiB, factor: 2} as a list of scalar nodes made in
 * the document's arena (marked at the 'sizes' value). */
int ccs_sweep_sizes_axis(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a,
                      int quick)
{
	static const char *const keys[] = { "from", "to", "factor" };
	int rc;
	if ((rc = ccs_ytree_kind(d, v, CCS_Y_MAP, "sizes")) || (rc = ccs_ytree_keys(d, v, keys, 3, "'sizes'")) ||
	    (rc = ccs_ytree_need(d, v, "from", "'sizes'")) || (rc = ccs_ytree_need(d, v, "to", "'sizes'")))
		return rc;
	uint64_t lo, hi;
	long f = 2;
	char err[160];
	const struct ccs_ynode *fy = ccs_ytree_get(v, "from"), *ty = ccs_ytree_get(v, "to");
	if ((rc = ccs_ytree_kind(d, fy, CCS_Y_SCALAR, "from")) || (rc = ccs_ytree_kind(d, ty, CCS_Y_SCALAR, "to")) ||
	    (rc = ccs_ytree_long(d, v, "factor", 2, 1024, &f, NULL)))
		return rc;
	if (ccs_parse_size(fy->str, &lo, err, sizeof err) || !lo)
		return ccs_scenario_error(d, fy, "from: '%s': %s", fy->str, lo || err[0] ? err : "a size of at least 1B");
	if (ccs_parse_size(ty->str, &hi, err, sizeof err))
		return ccs_scenario_error(d, ty, "to: '%s': %s", ty->str, err);
	if (hi < lo)
		return ccs_scenario_error(d, ty, "to: '%s' is below from: '%s'", ty->str, fy->str);
	if (quick)
		f = f * f * f < 4096 ? f * f * f : f;   /* every third size */
	uint32_t n = 0;
	for (uint64_t x = lo; x <= hi && n < 64; x *= (uint64_t)f)
		n++;
	if (n >= 64)
		return ccs_scenario_error(d, v, "'sizes' gives more than 63 sizes; use a larger factor");
	a->key = "bytes";
	a->at = k;
	a->n = n;
	a->val = ccs_calloc(n, sizeof *a->val);
	struct ccs_ynode *nodes = ccs_arena_alloc(d->a, n * sizeof *nodes);
	if (!a->val || !nodes) {
		ccs_free(a->val);
		a->val = NULL;
		return CCS_ENOMEM;
	}
	uint64_t x = lo;
	for (uint32_t i = 0; i < n; i++, x *= (uint64_t)f) {
		nodes[i].kind = CCS_Y_SCALAR;
		nodes[i].mark = v->mark;
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
		uint64_t y = x;
		int ui = 0;
		while (ui < 4 && y >= 1024 && y % 1024 == 0) {
			y /= 1024;
			ui++;
		}
		nodes[i].str = ccs_arena_printf(d->a, "%llu%s", (unsigned long long)y, u[ui]);
		if (!nodes[i].str) {
			ccs_free(a->val);
			a->val = NULL;
			return CCS_ENOMEM;
		}
		a->val[i] = &nodes[i];
	}
	return CCS_OK;
}

/* Load workload m with the values of some keys replaced (and 'sizes' and
 * list-valued keys left out): a copy of the map with the new values. */
int ccs_sweep_load_work_with(struct ccs_ydoc *d, const struct ccs_ynode *m, int nov, const char *const *keys,
                          const struct ccs_ynode *const *vals, struct work *w)
{
	struct ccs_ynode copy = *m;
	uint32_t cap = m->n + (uint32_t)nov + 1;
	copy.k = ccs_calloc(cap, sizeof *copy.k);
	copy.v = ccs_calloc(cap, sizeof *copy.v);
	struct ccs_ynode *knodes = ccs_calloc((size_t)nov + 1, sizeof *knodes);
	int rc = CCS_ENOMEM;
	if (copy.k && copy.v && knodes) {
		copy.n = 0;
		for (uint32_t i = 0; i < m->n; i++) {
			if (!strcmp(m->k[i]->str, "sizes") || m->v[i]->kind == CCS_Y_SEQ)
				continue;
			copy.k[copy.n] = m->k[i];
			copy.v[copy.n++] = m->v[i];
		}
		for (int j = 0; j < nov; j++) {
			uint32_t i = 0;
			while (i < copy.n && strcmp(copy.k[i]->str, keys[j]))
				i++;
			if (i == copy.n) {
				knodes[j].kind = CCS_Y_SCALAR;
				knodes[j].str = keys[j];
				knodes[j].mark = vals[j]->mark;
				copy.k[copy.n++] = &knodes[j];
			}
			copy.v[i] = (struct ccs_ynode *)vals[j];
		}
		rc = ccs_scenario_load_work(d, &copy, w);
		w->node = m;
	}
	ccs_free(copy.k);
	ccs_free(copy.v);
	ccs_free(knodes);
	return rc;
}

/* Odometer over the n axes a[0..n): idx advanced; 0 when it wrapped. */
int ccs_sweep_next_combo(const struct axis *a, int n, uint32_t *idx)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++idx[i] < a[i].n)
			return 1;
		idx[i] = 0;
	}
	return 0;
}

int ccs_sweep_axes_text(const struct axis *a, int n, const uint32_t *idx, char *out, size_t outn, int strip_workload)
{
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *k = a[i].key;
		if (strip_workload && !strncmp(k, "workload.", 9))
			k += 9;
		int w = snprintf(out + l, outn - l, "%s%s=%s", l ? " " : "", k, a[i].val[idx[i]]->str);
		if (w < 0 || (size_t)w >= outn - l)
			return 1;
		l += (size_t)w;
	}
	return 0;
}
