/*
** sim/cli/report_html.h: the parts of `ccsim report --format html` beyond
** the tables, so that the page is one file a planner can send:
**   head       title, styles, what was run and when
**   summary    per workload, at its last point (largest size, last axes):
**              the fastest design and how much slower each other is
**   charts     the plot folder's SVGs inline, by kind: the comparisons
**              (compare-*, time-*-vs-*), where time goes (breakdown-*),
**              then per design (busbw-*) and the link heatmaps (links-*)
**   designs    each design of the scenario file as the topology it loads
**              (`topo show`'s counts, bandwidths and fabric) and what the
**              model assumed there: NCCL's release for its choice, the
**              transport, the routing, NVLink's efficiency and its source
** Only the command line calls these; they print, they decide nothing.
*/
#ifndef CCS_REPORT_HTML_H
#define CCS_REPORT_HTML_H

#include "../../calibrate/store.h"

#include <stdio.h>

/* The time a result shows: the simulator's where it ran, else the closed
 * form's. */
double ccs_report_shown_t(const struct ccs_result *r);
/* s with <, > and & escaped. */
void ccs_html_esc(FILE *f, const char *s);
void ccs_report_html_head(FILE *f, const struct ccs_scenario_info *sc, size_t nresults);
void ccs_report_html_summary(FILE *f, const struct ccs_result *r, size_t n);
/* The SVGs in pdir whose names start with one of the prefixes (NULL
 * ended), under heading h; how many were written. */
size_t ccs_report_html_charts(FILE *f, const char *pdir, const char *const *prefixes, const char *h);
/* The scenario file's designs (sc->path; a note where it cannot be read). */
void ccs_report_html_designs(FILE *f, const struct ccs_scenario_info *sc);
void ccs_report_html_tail(FILE *f);

#endif
