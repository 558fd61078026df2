/*
** sim/sim_class.h: a run as flow classes (classes.h): each class op one
** weighted flow, its members starting whole or the run restarting on
** finer classes (at most CCS_SIM_RESTARTS times; after CCS_SIM_DEPS_AFTER
** the dependencies split the rest at once).
*/
#ifndef CCS_SIM_CLASS_H
#define CCS_SIM_CLASS_H

#include "simrun.h"

/* Whether r's schedule may run as classes at all: lanes, no observer of
 * single ops, no spraying, not switched off. */
int ccs_sim_class_apply(const struct ccs_simrun *r);
/* Run r as classes: *ran 1 when it did (r->cls and r->fl then hold the
 * run), 0 when the classes do not apply or pay (nothing kept). */
int ccs_sim_class_try(struct ccs_simrun *r, struct ccs_engine_stats *es, int *ran, char *err, size_t errn);
/* Drop a class run's state. */
void ccs_sim_class_drop(struct ccs_simrun *r);

#endif
