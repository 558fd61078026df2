/*
** model/params.h: the table of the model's physical constants, each with
** what it belongs to, its value and unit, the kind of figure it is and its
** public source.  ccs_model_params_default (topo.h) reads its defaults from
** here, and a topology's NVLink efficiency is the row of its GPUs' NVLink
** generation unless the topology (or --set) gives one:
**   eff(NVLink) = efficiency.nvlink.<arch>   arch: the oldest NVLink GPU's
** Kinds:
**   spec      a vendor specification
**   code      a constant in public source (repository, file, commit)
**   ubench    a component microbenchmark (p2pBandwidthLatencyTest, nvbandwidth)
**   maint     a statement by the component's maintainer
**   derived   computed from spec constants by a published model (the
**             derivation in the source column)
**   fitted    set by a rule from rows of shared/validation/published.csv;
**             docs/validation.md shows it left out group by group
**   stand-in  no public figure found: another row's value or an assumption,
**             said so in the source column
** `ccsim params [-t TOPO]` prints the table and what a topology resolves.
*/
#ifndef CCS_PARAMS_H
#define CCS_PARAMS_H

#include <stddef.h>

struct ccs_param {
	const char *key;            /* as `model:` / --set spell it, or a table-only key */
	const char *belongs;        /* what it belongs to */
	double value;               /* in unit */
	const char *unit;           /* "" (a fraction), "us" */
	const char *kind;           /* spec, code, ubench, maint, fitted, stand-in */
	const char *source;
};

/* The table and its length. */
const struct ccs_param *ccs_params_table(size_t *n);

/* A row's value by key; NaN for an unknown key (a defect: tests check every
 * key the defaults read). */
double ccs_param(const char *key);

/* The NVLink efficiency of a GPU architecture by name (topo.h
 * ccs_arch_name: "volta" .. "blackwell"; an unknown one gets Hopper's), and
 * in *key (may be NULL) its row's key, valid until the next call. */
double ccs_params_nvlink_eff(const char *arch, const char **key);

#endif
