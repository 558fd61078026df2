/*
** sim/cli/moe_io.h: reading the text inputs of expert-parallel runs (formats in
** moe_io.c): a routing trace (expert ids per token) and an AllToAllv byte
** matrix.  Errors carry file:line:column in diag; nothing is returned then.
*/
#ifndef CCS_MOE_IO_H
#define CCS_MOE_IO_H

#include "../../model/ccs.h"

#include <stdint.h>

/* n x tokens x topk expert ids, each in [0, experts), distinct per token. */
int ccs_moe_trace_load(const char *path, int n, int tokens, int topk, int experts, int32_t **out,
                       struct ccs_diag *d);
/* n x n bytes, row = sender; whole, not negative. */
int ccs_moe_matrix_load(const char *path, int n, double **out, struct ccs_diag *d);

#endif
