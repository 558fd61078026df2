/* calibrate/modelerr.c: the model's measured error by scope and size
 * (modelerr.h).  The numbers are docs/validation.md's table of the same
 * name; tests/validate/validate.c --check holds them to it. */
#include "modelerr.h"

const double ccs_modelerr_edge[CCS_MODELERR_BANDS + 1] = { 0, 65536, 1048576, 67108864, 1e30 };

const double ccs_modelerr_med[2][CCS_MODELERR_BANDS] = {
	{ 0.113, 0.361, 0.138, 0.014 },   /* one scale-up domain (110 rows) */
	{ 0.234, 0.272, 0.487, 0.072 },   /* across the network (64 rows) */
};

int ccs_modelerr_band(uint64_t bytes)
{
	int k = 0;
	while (k + 1 < CCS_MODELERR_BANDS && (double)bytes >= ccs_modelerr_edge[k + 1])
		k++;
	return k;
}

double ccs_modelerr_at(int scope, uint64_t bytes)
{
	return ccs_modelerr_med[scope ? 1 : 0][ccs_modelerr_band(bytes)];
}
