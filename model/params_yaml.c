/* model/params_yaml.c: a topology's model: section and the calibration
** files it names, into struct ccs_model_params (params_yaml.h). */
#include "params_yaml.h"
#include "nccl_tables.h"
#include "topo_names.h"
#include "transport.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- model parameters ---- */

/* model.transport_costs: the transport's row overridden (model/transport.h):
 * latencies and the chunk cost as times, the efficiency a fraction in (0, 1],
 * eager_max a size, rdv_trips a count of one-way trips in [0, 16]. */
static int tr_scalar(struct ccs_ydoc *doc, const struct ccs_ynode *v, int k, double lo, double hi, int lo_open,
                     const char *what, double *out)
{
	CCS_TRY(ccs_ytree_kind(doc, v, CCS_Y_SCALAR, ccs_tr_cost_name[k]));
	char *end;
	double x = strtod(v->str, &end);
	if (end == v->str || *end || !(lo_open ? x > lo : x >= lo) || !(x <= hi) ||
	    (ccs_tr_cost_kind[k] == CCS_TR_KIND_COUNT && x != floor(x)))
		return ccs_diag_at(doc->diag, v->mark, "'%s' must be %s, got '%s'", ccs_tr_cost_name[k], what, v->str);
	*out = x;
	return CCS_OK;
}

static int load_transport_costs(struct ccs_ydoc *doc, const struct ccs_ynode *m, struct ccs_model_params *p)
{
	CCS_TRY(ccs_ytree_kind(doc, m, CCS_Y_MAP, "transport_costs"));
	CCS_TRY(ccs_ytree_keys(doc, m, ccs_tr_cost_name, CCS_TR_COSTS, "'model.transport_costs'"));
	for (int k = 0; k < CCS_TR_COSTS; k++) {
		const struct ccs_ynode *v = ccs_ytree_get(m, ccs_tr_cost_name[k]);
		if (!v)
			continue;
		switch (ccs_tr_cost_kind[k]) {
		case CCS_TR_KIND_FRAC:
			CCS_TRY(tr_scalar(doc, v, k, 0, 1, 1, "a fraction in (0, 1]", &p->tr_over[k]));
			break;
		case CCS_TR_KIND_COUNT:
			CCS_TRY(tr_scalar(doc, v, k, 0, 16, 0, "a count of one-way trips from 0 to 16", &p->tr_over[k]));
			break;
		case CCS_TR_KIND_SIZE:
			CCS_TRY(ccs_ytree_qty(doc, m, ccs_tr_cost_name[k], CCS_QTY_SIZE, &p->tr_over[k]));
			break;
		default:
			CCS_TRY(ccs_ytree_qty(doc, m, ccs_tr_cost_name[k], CCS_QTY_TIME, &p->tr_over[k]));
		}
		p->tr_over_set |= 1u << k;
	}
	return CCS_OK;
}

int ccs_params_yaml_model(struct ccs_ydoc *doc, const struct ccs_ynode *m, struct ccs_model_params *p)
{
	static const char *const keys[] = { "efficiency", "step_overhead", "nvls_channels", "channels", "ep_overhead",
	                                    "oneshot_overhead", "twoshot_overhead", "twoshot_efficiency", "transport",
	                                    "nccl_version", "nccl_collnet", "transport_costs" };
	static const char *const pkeys[] = { "ll", "ll128", "simple" };
	CCS_TRY(ccs_ytree_kind(doc, m, CCS_Y_MAP, "model"));
	CCS_TRY(ccs_ytree_keys(doc, m, keys, 12, "'model'"));
	if (ccs_ytree_get(m, "transport_costs"))
		CCS_TRY(load_transport_costs(doc, ccs_ytree_get(m, "transport_costs"), p));
	if (ccs_ytree_get(m, "nccl_collnet"))
		CCS_TRY(ccs_ytree_bool(doc, m, "nccl_collnet", &p->nccl_collnet, NULL));
	struct ccs_ynode *nv = ccs_ytree_get(m, "nccl_version");
	if (nv) {
		CCS_TRY(ccs_ytree_kind(doc, nv, CCS_Y_SCALAR, "nccl_version"));
		p->nccl_version = ccs_nccl_version_parse(nv->str);
		if (p->nccl_version < 0)
			return ccs_diag_at(doc->diag, nv->mark,
			                   "'nccl_version' must be an NCCL release from %s to %s (2.21 or 2.21.5), got '%s'",
			                   CCS_NCCL_VERSION_MIN_S, CCS_NCCL_VERSION_S, nv->str);
	}
	CCS_TRY(ccs_ytree_enum(doc, m, "transport", ccs_transport_name, NULL, CCS_TR_N, &p->transport));
	if (ccs_ytree_get(m, "ep_overhead"))
		CCS_TRY(ccs_ytree_qty(doc, m, "ep_overhead", CCS_QTY_TIME, &p->ep_overhead_s));
	if (ccs_ytree_get(m, "oneshot_overhead"))
		CCS_TRY(ccs_ytree_qty(doc, m, "oneshot_overhead", CCS_QTY_TIME, &p->shot_overhead_s[0]));
	if (ccs_ytree_get(m, "twoshot_overhead"))
		CCS_TRY(ccs_ytree_qty(doc, m, "twoshot_overhead", CCS_QTY_TIME, &p->shot_overhead_s[1]));
	long v = 0;
	if (ccs_ytree_get(m, "nvls_channels")) {
		CCS_TRY(ccs_ytree_long(doc, m, "nvls_channels", 1, 64, &v, NULL));
		p->nvls_channels = (int)v;
	}
	if (ccs_ytree_get(m, "channels")) {
		CCS_TRY(ccs_ytree_long(doc, m, "channels", 1, 64, &v, NULL));
		p->channels = (int)v;
	}
	struct ccs_ynode *te = ccs_ytree_get(m, "twoshot_efficiency");
	if (te) {
		CCS_TRY(ccs_ytree_kind(doc, te, CCS_Y_SCALAR, "twoshot_efficiency"));
		char *end;
		double x = strtod(te->str, &end);
		if (end == te->str || *end || !(x > 0) || x > 1)
			return ccs_diag_at(doc->diag, te->mark, "'twoshot_efficiency' must be a fraction in (0, 1], got '%s'",
			                   te->str);
		p->twoshot_eff = x;
	}
	struct ccs_ynode *e = ccs_ytree_get(m, "efficiency");
	if (e) {
		CCS_TRY(ccs_ytree_kind(doc, e, CCS_Y_MAP, "efficiency"));
		CCS_TRY(ccs_ytree_keys(doc, e, ccs_link_type_name, CCS_LINK_NTYPES, "'model.efficiency' (link types)"));
		for (uint32_t i = 0; i < e->n; i++) {
			int ty = 0;
			while (strcmp(ccs_link_type_name[ty], e->k[i]->str))
				ty++;
			CCS_TRY(ccs_ytree_kind(doc, e->v[i], CCS_Y_SCALAR, e->k[i]->str));
			char *end;
			double x = strtod(e->v[i]->str, &end);
			if (end == e->v[i]->str || *end || !(x > 0) || x > 1)
				return ccs_diag_at(doc->diag, e->v[i]->mark,
				                   "efficiency of '%s' must be a fraction in (0, 1], got '%s'",
				                   e->k[i]->str, e->v[i]->str);
			p->eff[ty] = x;
			p->eff_set |= 1u << ty;
		}
	}
	struct ccs_ynode *so = ccs_ytree_get(m, "step_overhead");
	if (so) {
		CCS_TRY(ccs_ytree_kind(doc, so, CCS_Y_MAP, "step_overhead"));
		CCS_TRY(ccs_ytree_keys(doc, so, pkeys, 3, "'model.step_overhead' (protocols)"));
		for (int i = 0; i < 3; i++)
			CCS_TRY(ccs_ytree_qty(doc, so, pkeys[i], CCS_QTY_TIME, &p->step_s[i]));
	}
	return CCS_OK;
}

/* ---- calibration files (written by `ccsim calibrate fit`) ---- */


/* A quantity that may be negative (a fitted intercept) or 'unbounded'. */
static int check_fit_qty(struct ccs_ydoc *doc, const struct ccs_ynode *y, enum ccs_qty q, int unbounded_ok, const char *key)
{
	CCS_TRY(ccs_ytree_kind(doc, y, CCS_Y_SCALAR, key));
	if (unbounded_ok && !strcmp(y->str, "unbounded"))
		return CCS_OK;
	const char *s = y->str[0] == '-' && q == CCS_QTY_TIME ? y->str + 1 : y->str;
	char err[256];
	double v;
	if (ccs_parse_qty(s, q, &v, err, sizeof err))
		return ccs_diag_at(doc->diag, y->mark, "%s: %s", key, err);
	return CCS_OK;
}

int ccs_params_yaml_calibration(struct ccs_ydoc *doc, const struct ccs_ynode *y, struct ccs_model_params *p)
{
	CCS_TRY(ccs_ytree_kind(doc, y, CCS_Y_SCALAR, "calibration"));
	/* relative to the file that names it; from --set, to the working directory */
	const char *from = y->mark.src < doc->nsrcs ? doc->srcs[y->mark.src] : "";
	const char *slash = strncmp(from, "--set", 5) ? strrchr(from, '/') : NULL;
	const char *path = y->str[0] == '/' || !slash ? y->str
	                 : ccs_arena_printf(doc->a, "%.*s/%s", (int)(slash - from), from, y->str);
	if (!path)
		return CCS_ENOMEM;
	char *buf;
	size_t len;
	CCS_TRY(ccs_ytree_read_file(doc, path, &y->mark, &buf, &len));
	int src, keep = doc->cur;
	int rc = ccs_ytree_add_src(doc, path, &src);
	struct ccs_ynode *root = NULL;
	if (!rc) {
		const char *kind = doc->kind;
		doc->cur = src;
		doc->kind = "calibration";
		rc = ccs_ytree_parse(doc, buf, len, &root);
		doc->cur = keep;
		doc->kind = kind;
	}
	ccs_free(buf);
	if (rc)
		return rc;
	static const char *const keys[] = { "calibration", "model", "fits" };
	CCS_TRY(ccs_ytree_keys(doc, root, keys, 3, "a calibration file"));
	struct ccs_ynode *c = ccs_ytree_get(root, "calibration");
	if (!c)
		return ccs_diag_at(doc->diag, root->mark,
		                   "not a calibration file: no 'calibration' block (write one with 'ccsim calibrate fit -o FILE')");
	static const char *const ckeys[] = { "host", "run", "db", "topology" };
	CCS_TRY(ccs_ytree_kind(doc, c, CCS_Y_MAP, "calibration"));
	CCS_TRY(ccs_ytree_keys(doc, c, ckeys, 4, "'calibration'"));
	struct ccs_ynode *fits = ccs_ytree_get(root, "fits");
	if (fits) {
		static const char *const fkeys[] = { "class", "name", "sizes", "alpha", "bandwidth", "alpha_ci",
		                                     "bandwidth_ci", "r2", "rms", "points" };
		CCS_TRY(ccs_ytree_kind(doc, fits, CCS_Y_SEQ, "fits"));
		for (uint32_t i = 0; i < fits->n; i++) {
			const struct ccs_ynode *f = fits->v[i];
			CCS_TRY(ccs_ytree_kind(doc, f, CCS_Y_MAP, "a fit"));
			CCS_TRY(ccs_ytree_keys(doc, f, fkeys, 10, "a fit"));
			CCS_TRY(ccs_ytree_need(doc, f, "alpha", "a fit"));
			CCS_TRY(ccs_ytree_need(doc, f, "bandwidth", "a fit"));
			CCS_TRY(check_fit_qty(doc, ccs_ytree_get(f, "alpha"), CCS_QTY_TIME, 0, "alpha"));
			CCS_TRY(check_fit_qty(doc, ccs_ytree_get(f, "bandwidth"), CCS_QTY_BW, 1, "bandwidth"));
			const struct ccs_ynode *ci[2] = { ccs_ytree_get(f, "alpha_ci"), ccs_ytree_get(f, "bandwidth_ci") };
			for (int k = 0; k < 2; k++) {
				if (!ci[k])
					continue;
				CCS_TRY(ccs_ytree_kind(doc, ci[k], CCS_Y_SEQ, k ? "bandwidth_ci" : "alpha_ci"));
				if (ci[k]->n != 2)
					return ccs_diag_at(doc->diag, ci[k]->mark, "'%s' must be [low, high]", k ? "bandwidth_ci" : "alpha_ci");
				for (int j = 0; j < 2; j++)
					CCS_TRY(check_fit_qty(doc, ci[k]->v[j], k ? CCS_QTY_BW : CCS_QTY_TIME, k, k ? "bandwidth_ci" : "alpha_ci"));
			}
		}
	}
	struct ccs_ynode *m = ccs_ytree_get(root, "model");
	if (m)
		CCS_TRY(ccs_params_yaml_model(doc, m, p));
	return CCS_OK;
}
