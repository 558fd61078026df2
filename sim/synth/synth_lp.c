/*
** sim/synth/synth_lp.c: the master program on GLPK's simplex (synth_lp.h).
** GLPK numbers rows and columns from 1: rows 1..G are the groups, G+1..
** the capacities; column 1 is tau, column j + 2 the j-th added.
*/
#include "synth_lp.h"

#include "../../model/ccs.h"

#include <glpk.h>
#include <stdio.h>

struct ccs_synth_lp {
	glp_prob *p;
	int G, R, ncol;
	int *ind;                   /* scratch for a column: 1 + nz entries */
	double *val;
	int scratch;
};

int ccs_synth_lp_new(int ngroups, int nrows, const double *cap, struct ccs_synth_lp **out)
{
	struct ccs_synth_lp *lp = ccs_calloc(1, sizeof *lp);
	if (!lp)
		return CCS_ENOMEM;
	glp_term_out(GLP_OFF);
	lp->p = glp_create_prob();
	lp->G = ngroups;
	lp->R = nrows;
	glp_set_obj_dir(lp->p, GLP_MIN);
	glp_add_rows(lp->p, ngroups + nrows);
	for (int g = 1; g <= ngroups; g++)
		glp_set_row_bnds(lp->p, g, GLP_FX, 1.0, 1.0);
	for (int e = 1; e <= nrows; e++)
		glp_set_row_bnds(lp->p, ngroups + e, GLP_UP, 0.0, 0.0);
	/* tau: -cap_e on every capacity row */
	glp_add_cols(lp->p, 1);
	glp_set_col_bnds(lp->p, 1, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp->p, 1, 1.0);
	lp->scratch = nrows + 2;
	lp->ind = ccs_malloc((size_t)lp->scratch * sizeof *lp->ind);
	lp->val = ccs_malloc((size_t)lp->scratch * sizeof *lp->val);
	if (!lp->ind || !lp->val) {
		ccs_synth_lp_free(lp);
		return CCS_ENOMEM;
	}
	for (int e = 0; e < nrows; e++) {
		lp->ind[e + 1] = ngroups + e + 1;
		lp->val[e + 1] = -cap[e];
	}
	glp_set_mat_col(lp->p, 1, nrows, lp->ind, lp->val);
	*out = lp;
	return CCS_OK;
}

void ccs_synth_lp_free(struct ccs_synth_lp *lp)
{
	if (!lp)
		return;
	if (lp->p)
		glp_delete_prob(lp->p);
	ccs_free(lp->ind);
	ccs_free(lp->val);
	ccs_free(lp);
}

int ccs_synth_lp_add(struct ccs_synth_lp *lp, int g, int nz, const int *row, const double *a, double cost, int *j)
{
	if (nz + 2 > lp->scratch)
		return CCS_EINTERNAL;
	int c = glp_add_cols(lp->p, 1);
	glp_set_col_bnds(lp->p, c, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp->p, c, cost);
	lp->ind[1] = g + 1;
	lp->val[1] = 1.0;
	for (int k = 0; k < nz; k++) {
		lp->ind[k + 2] = lp->G + row[k] + 1;
		lp->val[k + 2] = a[k];
	}
	glp_set_mat_col(lp->p, c, nz + 1, lp->ind, lp->val);
	*j = lp->ncol++;
	return CCS_OK;
}

int ccs_synth_lp_solve(struct ccs_synth_lp *lp, double *tau, double *y, double *p, char *err, size_t errn)
{
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	int rc = glp_simplex(lp->p, &parm);
	if (rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND) {
		/* a basis gone bad after new columns: start again from the
		 * standard one */
		glp_std_basis(lp->p);
		rc = glp_simplex(lp->p, &parm);
	}
	if (rc || glp_get_status(lp->p) != GLP_OPT) {
		snprintf(err, errn, "the linear program was not solved (GLPK simplex returned %d, status %d)", rc,
		         glp_get_status(lp->p));
		return CCS_EFIT;
	}
	*tau = glp_get_col_prim(lp->p, 1);
	for (int g = 0; g < lp->G; g++)
		y[g] = glp_get_row_dual(lp->p, g + 1);
	for (int e = 0; e < lp->R; e++)
		p[e] = -glp_get_row_dual(lp->p, lp->G + e + 1);
	return CCS_OK;
}

void ccs_synth_lp_second(struct ccs_synth_lp *lp, double tau_max, const double *cost)
{
	glp_set_col_bnds(lp->p, 1, GLP_DB, 0.0, tau_max);
	glp_set_obj_coef(lp->p, 1, 0.0);
	for (int j = 0; j < lp->ncol; j++)
		glp_set_obj_coef(lp->p, j + 2, cost[j]);
}

double ccs_synth_lp_obj(const struct ccs_synth_lp *lp)
{
	return glp_get_obj_val(lp->p);
}

double ccs_synth_lp_x(const struct ccs_synth_lp *lp, int j)
{
	return glp_get_col_prim(lp->p, j + 2);
}
