/*
** model/transport.h: how NCCL's bytes cross the network: the transport (the
** net plugin and what runs under it) and its costs, one row per transport.
**
** On top of the wire (bytes / port rate x link efficiency) and the graph's
** latencies (NICs, links, switches), a transport adds:
**   msg_lat_s   its one-way software latency of one message, added to each
**               network hop of the latency term (verbs post to completion is
**               what NCCL's own per-hop network figures already hold, so it is
**               0 for ib and roce)
**   chunk_s     the cost of each chunk a channel moves across the network (the
**               proxy thread posting it and reaping its completion through the
**               plugin), paid on the network side of the pipeline:
**                   t_net = max(W / B_net, (K - 1) chunk_s),  K the chunks per
**               channel (the first chunk's handling is in msg_lat_s)
**   eff         the share of the NICs' rate the transport reaches; it scales
**               the network links' efficiency, in both engines
**   protos      the protocols NCCL may run across nodes over it (bit q for
**               LL, LL128, Simple)
**   nccl_lat_s  the latency the plugin reports to NCCL (its network property
**               'latency'); NCCL's tuning model adds it to every network hop
**               (twice for Simple), so it moves NCCL's choice only
** A topology names its transport in scaleout.transport or model.transport;
** without one it follows the NICs' link type (ib -> ib, roce -> roce,
** ethernet -> socket).  GPUDirect RDMA off (gdr:...:off) and P2P off are
** faults on the graph (model/fault.h), not rows: they change the path the
** bytes take, not the transport's software.
*/
#ifndef CCS_TRANSPORT_H
#define CCS_TRANSPORT_H

/* A row's costs in the order model.transport_costs names them
 * (ccs_tr_cost_name): msg_latency, chunk_cost, efficiency, nccl_latency. */
enum ccs_tr_cost { CCS_TR_MSG, CCS_TR_CHUNK, CCS_TR_EFF, CCS_TR_NCCL, CCS_TR_COSTS };
extern const char *const ccs_tr_cost_name[CCS_TR_COSTS];

enum ccs_transport { CCS_TR_IB, CCS_TR_ROCE, CCS_TR_EFA, CCS_TR_EFA_SENDRECV, CCS_TR_TCPX, CCS_TR_SOCKET,
                     CCS_TR_N };

struct ccs_transport_row {
	double msg_lat_s, chunk_s, eff, nccl_lat_s;
	unsigned protos;
};

/* Transport tr's row, from the parameter table (model/params.c). */
void ccs_transport_row_of(int tr, struct ccs_transport_row *out);
/* Row r with the costs whose bit (1 << enum ccs_tr_cost) is in set taken
 * from v (model.transport_costs: a topology's or --set's). */
void ccs_transport_override(struct ccs_transport_row *r, const double *v, unsigned set);
/* InfiniBand and RoCE verbs: nothing added to NCCL's own network figures. */
extern const struct ccs_transport_row ccs_transport_verbs;
extern const char *const ccs_transport_name[CCS_TR_N];   /* the rows' names, for parsing and reports */

#endif
