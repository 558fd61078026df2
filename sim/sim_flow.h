/*
** sim/sim_flow.h: the per-flow model of a run (simrun.h): the engine's
** callbacks that make each op's transfer a flow of the max-min solver over
** its route (a sprayed transfer as K parts over K equal paths, done when
** all are), and move the flows that a timed fault cuts to live routes.
*/
#ifndef CCS_SIM_FLOW_H
#define CCS_SIM_FLOW_H

#include "simrun.h"

/* The per-flow model on r. */
void ccs_sim_flow_model(struct ccs_simrun *r, struct ccs_engine_model *m);

#endif
