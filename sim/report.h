/*
** sim/report.h: what a finished run shows: its busiest resources and what
** bounded it.
**
** A resource's mean utilisation over a run of T seconds is
**   u = bytes / (capacity x T)
** (whole bytes: sums of the same transfers settled at different moments
** differ in their last bits and must not reorder ties).  The run's bound is
** the kind of its busiest resource (enum ccs_bound, model/cost.h), or
** latency when none was busy half the run.
*/
#ifndef CCS_REPORT_H
#define CCS_REPORT_H

#include <stddef.h>

struct ccs_comm;
struct ccs_fabric;
struct ccs_flows;

/* The busiest resources of a finished run of T seconds, as `--links`
 * prints them on stdout: bytes, busy time, peak and mean utilisation. */
void ccs_report_links(const struct ccs_fabric *fab, const struct ccs_flows *fl, double T);
/* The busiest resource into name, its mean utilisation in *util; -1 (name
 * "-") when none carried anything. */
int  ccs_report_busiest(const struct ccs_fabric *fab, const struct ccs_flows *fl, double T, char *name, size_t n,
                        double *util);
/* The bound of the run (enum ccs_bound). */
int  ccs_report_bound(const struct ccs_comm *c, const struct ccs_fabric *fab, const struct ccs_flows *fl, double T);

#endif
