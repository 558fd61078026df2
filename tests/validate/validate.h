/*
** tests/validate/validate.h: what validate.c (rows, rules, scoring) and
** logo.c (constants set from rows, left out group by group) share.
*/
#ifndef CCS_VALIDATE_H
#define CCS_VALIDATE_H

#include "../../calibrate/modelerr.h"
#include <stddef.h>
#include <stdio.h>

#define MAXF 32

struct rule {
	const char *prefix;         /* row id prefix */
	const char *group;          /* summary group */
	const char *topo;           /* under topologies/ */
	const char *sets[3];
	int ppn_from_row;           /* ranks = the row's gpus_per_node x nodes */
	const char *algo;           /* forced algorithm, or NULL: NCCL's choice */
	const char *proto;          /* forced protocol, or NULL */
	int no_nvls;                /* NCCL_NVLS_ENABLE=0 */
	int from_columns;           /* take algo/proto from the row */
	const char *skip;           /* not scored: why */
	const char *machine;        /* the machine its rows ran on (a row id prefix), for leave-one-group-out */
};

struct result {
	char id[64], group[96], coll[32], algo_meas[48], metric[16];
	double bytes, meas, ours, nccl;
	char ours_sel[48], nccl_sel[48];
	const char *skip;
	int moe, ep, target;         /* a DeepEP row; its EP size; inside the EP8-EP32 target */
	int pplx;                    /* a pplx-kernels row (held out) */
	int nodes;                   /* the row's nodes (above 1: it crosses the network) */
	int nvlink_arch;             /* the GPU generation its NVLink efficiency came from (model/params.h), -1: none */
	int want_sim;                /* also run the simulator on the row (set before score_row) */
	double sim;                  /* the simulator's figure on the same algorithm (metric); NaN: not run */
};

extern const struct rule rules[];
extern const size_t nrules;

/* A CSV line cut in place into at most maxf fields: how many. */
int    csv_fields(char *line, char **f, int maxf);
/* The median of v[0 .. n) (sorted in place); NaN when n is 0. */
double median(double *v, int n);
/* One CSV row (its fields f) scored into r with extra --set values, or
 * marked skipped with why: 0, or -1 when its topology does not load. */
int    score_row(char **f, struct result *r, const char *const *extra, int nextra);

/* The section "Constants set from published rows: leave one group out". */
void write_logo(FILE *out, const struct result *res, char *const *lines, int nres);

/* The medians of |error| with every constant set from rows refit without
 * the row's group (logo.c): >= 64 MiB and all sizes (collective rows), and
 * the DeepEP rows. */
struct logo_fig {
	double big, all, moe;
	int nbig, nall, nmoe;
	double band[CCS_MODELERR_BANDS];   /* each size band's median over the collective rows */
	int nband[CCS_MODELERR_BANDS];
};
void logo_summary(const struct result *res, char *const *lines, int nres, struct logo_fig *out);

#endif
