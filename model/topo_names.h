/*
** model/topo_names.h: device names in topology files (topo_names.c).
**
** A name pattern expands to names: "gpu[0-7]" to gpu0..gpu7, "nvsw[0,3]"
** to nvsw0 and nvsw3, "n[0-1]/g[0-3]" to the product, in order; at most
** 1,000,000 names; errors positioned at the pattern.  A body's device
** names are indexed for lookup (duplicates are errors).  Names live in the
** document's arena.
*/
#ifndef CCS_TOPO_NAMES_H
#define CCS_TOPO_NAMES_H

#include "topo_gen.h"
#include "ytree.h"

struct ccs_topo_names {
	uint32_t n, cap;
	char **v;
};

/* open addressing over a body's devices: -1 empty, else the body index */
struct ccs_topo_names_map {
	uint32_t cap;
	int64_t *slot;
};

/* The names pattern y stands for, into *out (positioned errors). */
int ccs_topo_names_expand(struct ccs_ydoc *doc, const struct ccs_ynode *y, struct ccs_topo_names *out);
/* How many names pattern s stands for, without making them (a limit is
 * checked before a large expansion); saturates at 2^40.  A malformed
 * pattern counts as far as it reads (ccs_topo_names_expand reports it). */
uint64_t ccs_topo_names_count(const char *s);
/* The body index of device s, or -1. */
int ccs_topo_names_find(const struct ccs_topo_names_map *m, const struct ccs_body *b, const char *s);
/* Index b's devices by name into m (a duplicate is an error). */
int ccs_topo_names_index(struct ccs_ydoc *doc, struct ccs_topo_names_map *m, const struct ccs_body *b);

#endif
