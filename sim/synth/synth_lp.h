/*
** sim/synth/synth_lp.h: the packing's master linear program (synth.h), the
** one file that includes <glpk.h>.
**
**   minimize tau                                    (then, second: sum_j c_j x_j
**                                                    with tau held at its optimum)
**   subject to  sum_{j in group g} x_j = 1          for every group g  (dual y_g)
**               sum_j a(e, j) x_j - cap_e tau <= 0  for every row e    (dual -p_e)
**               x >= 0, tau >= 0
** Columns are added as the pricing finds them; each solve starts from the
** last basis (the simplex warm-started), so a round costs a few pivots.
*/
#ifndef CCS_SYNTH_LP_H
#define CCS_SYNTH_LP_H

#include <stddef.h>

struct ccs_synth_lp;

/* ngroups convexity rows and nrows capacity rows (cap[e] > 0).  CCS_ENOMEM. */
int  ccs_synth_lp_new(int ngroups, int nrows, const double *cap, struct ccs_synth_lp **out);
void ccs_synth_lp_free(struct ccs_synth_lp *lp);
/* A column of group g with nz entries a[k] on rows row[k] and objective
 * coefficient cost; its index (from 0) in *j.  CCS_ENOMEM. */
int  ccs_synth_lp_add(struct ccs_synth_lp *lp, int g, int nz, const int *row, const double *a, double cost, int *j);
/* The second program: tau held at most tau_max, and minimize
 * sum_j cost[j] x_j instead (cost per column added so far). */
void ccs_synth_lp_second(struct ccs_synth_lp *lp, double tau_max, const double *cost);
/* Solve; *tau, y[g] and p[e] >= 0 as above.  CCS_EFIT with err when the
 * simplex fails or finds no optimum. */
int  ccs_synth_lp_solve(struct ccs_synth_lp *lp, double *tau, double *y, double *p, char *err, size_t errn);
/* The objective's value at the last optimum. */
double ccs_synth_lp_obj(const struct ccs_synth_lp *lp);
/* Column j's value at the last optimum. */
double ccs_synth_lp_x(const struct ccs_synth_lp *lp, int j);

#endif
