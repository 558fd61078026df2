/*
** model/topo_state.h: a topology's state put aside and back, so that faults
** can be tried on one loaded topology in turn (calibrate/diagnose.h).
**
** What a fault (model/fault.h) or a parameter change writes: the devices
** (a NIC's port speed), the links (bandwidth, latency), the GPUs (delay,
** GPUDirect, P2P, forced NIC), the model's parameters (the transport) and
** the lists of faults applied and timed.  The rest (names, adjacency,
** nodes, the fabric's description) no fault changes.  Restoring copies
** them back and re-derives the GPUs' NIC paths (ccs_topo_refresh), so the
** topology is the saved one again, bit for bit in what the model reads.
** Strings a fault added stay in the topology's arena until it is freed.
*/
#ifndef CCS_TOPO_STATE_H
#define CCS_TOPO_STATE_H

#include "topo.h"

struct ccs_topo_state;

/* t's state into *out (ccs_topo_state_free after); CCS_ENOMEM. */
int ccs_topo_state_save(const struct ccs_topo *t, struct ccs_topo_state **out);

/* t back to s (saved from t: the same devices and links); CCS_ENOMEM from
 * the refresh leaves t unusable. */
int ccs_topo_state_restore(struct ccs_topo *t, const struct ccs_topo_state *s);

void ccs_topo_state_free(struct ccs_topo_state *s);

#endif
