/*
** calibrate/modelerr.h: the closed form's own error, as measured on the
** published rows (docs/validation.md, "The model's own error by scope and
** size"), for tools that must tell a fault from the model's bias.
**
** For a row of S bytes that stays inside one scale-up domain (scope 0) or
** crosses the network (scope 1), the model's median |predicted / measured
** - 1| over the scored published rows of that scope and size band:
**   bands  [0, 64 KiB)  [64 KiB, 1 MiB)  [1 MiB, 64 MiB)  [64 MiB, inf)
** tests/validate/validate.c recomputes the table from published.csv and
** its --check fails when the table here differs from it by more than
** 0.05 points (make test runs it), so the numbers cannot go stale.
*/
#ifndef CCS_MODELERR_H
#define CCS_MODELERR_H

#include <stdint.h>

#define CCS_MODELERR_BANDS 4
extern const double ccs_modelerr_edge[CCS_MODELERR_BANDS + 1];   /* bytes */
extern const double ccs_modelerr_med[2][CCS_MODELERR_BANDS];     /* fractions */

/* The band of a row of bytes: 0 .. CCS_MODELERR_BANDS - 1. */
int ccs_modelerr_band(uint64_t bytes);

/* The model's median error for a row (scope 0: one scale-up domain, 1: the
 * network), a fraction. */
double ccs_modelerr_at(int scope, uint64_t bytes);

#endif
