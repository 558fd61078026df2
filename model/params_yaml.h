/*
** model/params_yaml.h: the YAML a topology's model parameters come from:
** its `model:` section (docs/topology.md: efficiencies per link type, step
** overheads, channels, kernels' fixed costs, the transport and its costs,
** NCCL's release) and a `calibration:` file written by `ccsim calibrate
** fit` (its fits checked for units and shape, its `model:` section read as
** the topology's).  Every value is checked where it stands: a bad one is
** CCS_EINPUT with file:line:column in the document's diag (ytree.h).
*/
#ifndef CCS_PARAMS_YAML_H
#define CCS_PARAMS_YAML_H

#include "topo.h"
#include "ytree.h"

/* The `model:` map m into *p (fields it does not name are left). */
int ccs_params_yaml_model(struct ccs_ydoc *y, const struct ccs_ynode *m, struct ccs_model_params *p);
/* The calibration file that scalar y names (relative to the file naming
 * it; from --set, to the working directory), its `model:` into *p. */
int ccs_params_yaml_calibration(struct ccs_ydoc *y, const struct ccs_ynode *cal, struct ccs_model_params *p);

#endif
