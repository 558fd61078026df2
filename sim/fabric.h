/*
** sim/fabric.h: the hardware as capacities for the flow solver, and routes.
**
** Resources: each direction of every link (bandwidth x the link type's
** efficiency), and for every GPU in a scale-up domain of two or more an
** out-port and an in-port whose capacity is the sum of its scale-up links
** (a non-blocking switch, or a full mesh used by as many rings as it has
** links, is modelled as ports, not as a shared backplane).
** And per GPU a copy-out and a copy-in port at its scale-up port rate (its
** memory bandwidth / 2 without scale-up peers): the rate at which the SM
** copy loops of kernels such as DeepEP's move data, local copies included,
** crossed only by transfers that say so (ccs_fabric_copy).
** And per GPU its memory (capacity: its memory bandwidth), given only for
** a GPU slower than the communicator's fastest (a straggler), which the
** engine charges for what that GPU's transfers make it read and write
** (ccs_fabric_mem).
** Routes between ranks of a communicator:
**   same scale-up domain   GPU out-port, peer in-port
**   same node, no domain   the shortest host path (PCIe switches, CPUs)
**   across groups          host path to the chosen NIC, the network path
**                          to the peer's NIC (shortest; among equal next hops
**                          one picked by a deterministic hash of the flow's
**                          ends and channel: ECMP), host path to the peer
** Full structs live in fabric_int.h; other modules see only this.
*/
#ifndef CCS_FABRIC_H
#define CCS_FABRIC_H

#include "../model/cost.h"
#include "flow.h"

struct ccs_fabric;

int  ccs_fabric_new(const struct ccs_comm *c, struct ccs_fabric **out);
void ccs_fabric_free(struct ccs_fabric *f);

uint32_t      ccs_fabric_nres(const struct ccs_fabric *f);
int           ccs_fabric_ranks(const struct ccs_fabric *f);   /* the communicator's */
/* The faults applied to the topology, comma separated ("" none). */
void          ccs_fabric_faults(const struct ccs_fabric *f, char *buf, size_t n);
/* How late rank starts (a straggler fault on its GPU) [s]. */
double        ccs_fabric_start_s(const struct ccs_fabric *f, int rank);
const double *ccs_fabric_caps(const struct ccs_fabric *f);
/* A resource's name for reports ("node0/gpu1->node0/nvsw0", "node3/gpu2 scale-up out"). */
void ccs_fabric_res_name(const struct ccs_fabric *f, uint32_t res, char *buf, size_t n);
/* Network tier of a resource (CCS_TIER_LEAF for NIC-leaf and leaf-spine ...)
 * or 0 for links that are not between network switches. */
int  ccs_fabric_res_kind(const struct ccs_fabric *f, uint32_t res);

/* Confine the network flows that GPU g's rank sends to the planes in
 * mask (bit p: plane p of a multi-plane fabric; 0: every plane), for a
 * job on dedicated planes.  CCS_ENOMEM. */
int ccs_fabric_set_planes(struct ccs_fabric *f, uint32_t g, uint32_t mask);

/* Timed faults (model/fault.h, t->timed).  ccs_fabric_rewind restores
 * the healthy capacities before a run; ccs_fabric_next_fault gives the
 * time of the next fault to strike (CCS_TIME_MAX: none); ccs_fabric_strike
 * applies every fault of that time, points *res at the resources whose
 * capacity changed (*n of them; read them with ccs_fabric_caps) and *spec
 * at the first fault's text, and forgets the cached routes, so that new
 * routes go around dead links.  A resource is live while its capacity is
 * above 0 (ccs_fabric_live).  ccs_fabric_epochs: 1 + the distinct strike
 * times (the stretches of a run between strikes). */
void     ccs_fabric_rewind(struct ccs_fabric *f);
uint32_t ccs_fabric_epochs(const struct ccs_fabric *f);
ccs_time ccs_fabric_next_fault(const struct ccs_fabric *f);
int      ccs_fabric_strike(struct ccs_fabric *f, const uint32_t **res, uint32_t *n, const char **spec);
int      ccs_fabric_live(const struct ccs_fabric *f, uint32_t res);

/* nic_a may be CCS_NIC_PXN (sched/sched.h): a schedule's word for PXN. */

/* Route from rank a to rank b for a flow of the given channel; nic_a and
 * nic_b are the NICs to use when they are in different groups (device
 * indices; UINT32_MAX: the ranks' best; nic_a may be CCS_NIC_PXN).  res gets up to CCS_FLOW_MAXPATH
 * resources; *n their count.  Returns CCS_OK or CCS_EINPUT when no path. */
int  ccs_fabric_route(struct ccs_fabric *f, int a, int b, uint32_t nic_a, uint32_t nic_b, uint32_t salt,
                      uint32_t *res, int *n);
/* The same for one part of a sprayed transfer: at every choice among equal
 * next hops, part 'way' takes the hashed pick shifted by way, so parts
 * 0..K-1 spread over K of the paths (way 0 is ccs_fabric_route's).  Way
 * CCS_FABRIC_WAY_DST: the network part picks as destination-based routing
 * does (D-mod-k, by b's NIC's number) whatever the fabric's routing: a
 * transfer standing for many hashed flows takes a share of the paths as
 * even as theirs (sched.h, ccs_op.by_dst). */
#define CCS_FABRIC_WAY_DST UINT32_MAX
int  ccs_fabric_route_way(struct ccs_fabric *f, int a, int b, uint32_t nic_a, uint32_t nic_b, uint32_t salt,
                          uint32_t way, uint32_t *res, int *n);
/* The bytes the network's distance tables may take (sim/fabric_dist.c:
 * one byte per network switch per destination NIC, one search each instead
 * of one per route; the default 64 MiB); fewer than all destinations
 * share direct-mapped slots, 0 searches every route.  Routes are the same
 * whatever it is.  CCS_ENOMEM leaves none. */
int      ccs_fabric_set_route_tables(struct ccs_fabric *f, size_t bytes);
/* Sprayed routing (packet spraying, adaptive routing): each transfer
 * between groups moves as K equal parts over K of the equal-cost paths
 * (ccs_fabric_route_way), done when all are; K <= 1: per-flow ECMP (the
 * default). */
void     ccs_fabric_set_spray(struct ccs_fabric *f, uint32_t K);
uint32_t ccs_fabric_spray(const struct ccs_fabric *f);
/* How runs on f lump equivalent transfers (sim/classes.h): not at all,
 * every flow (the reference); as exact classes (the default: restarted on
 * finer ones while a class's members would not start together); or lumped
 * (--fidelity aggregate): the classes the routes give, each class op
 * starting when its last member would, never refined by time (a declared
 * approximation: as if every transfer also waited for what the transfers
 * alike to it wait for). */
enum { CCS_CLASSES_OFF = 0, CCS_CLASSES_EXACT = 1, CCS_CLASSES_LUMP = 2 };
void ccs_fabric_set_classes(struct ccs_fabric *f, int mode);
int  ccs_fabric_classes(const struct ccs_fabric *f);
/* Whether a's and b's transfers cross the network (different groups). */
int  ccs_fabric_crosses(const struct ccs_fabric *f, int a, int b);
/* Rank a's way to the network for in-network reduction: its host path to
 * nic (UINT32_MAX: its best) and the NIC's link to its switch, up (down 0)
 * or the reverse (down 1).  Switch-to-switch links of the aggregation
 * tree are not included. */
int  ccs_fabric_uplink(struct ccs_fabric *f, int a, uint32_t nic, int down, uint32_t *res, int *n);
/* Append to res (n entries already) rank a's copy-out and rank b's
 * copy-in port (a may equal b: a local copy). */
void ccs_fabric_copy(const struct ccs_fabric *f, int a, int b, uint32_t *res, int *n);
/* Cap every copy port at Bps (an EP kernel's SM budget), or back to its
 * port rate with 0; the cap holds across ccs_fabric_rewind. */
void ccs_fabric_cap_copy(struct ccs_fabric *f, double Bps);
/* Whether res is a copy port held at that cap (the bound is then "sm"). */
int  ccs_fabric_copy_capped(const struct ccs_fabric *f, uint32_t res);
/* Whether resource res is a copy port. */
int  ccs_fabric_is_copy(const struct ccs_fabric *f, uint32_t res);
/* Rank a's memory resource (its capacity in ccs_fabric_caps), or
 * UINT32_MAX when its GPU's memory is as fast as any in the communicator. */
uint32_t ccs_fabric_mem(const struct ccs_fabric *f, int a);
int      ccs_fabric_is_mem(const struct ccs_fabric *f, uint32_t res);
/* Resources of an NVLS operation of rank a: its scale-up ports. */
int  ccs_fabric_ports(const struct ccs_fabric *f, int a, uint32_t *res, int *n);

#endif
