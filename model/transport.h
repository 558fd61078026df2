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
**   eager_B, trips  a two-sided rendezvous: a message larger than eager_B
**               bytes waits for trips more one-way message latencies before
**               its last byte lands (the receiver learns of it, then fetches
**               it), on each network hop of the latency term:
**                   L += hops_net x trips x msg_lat_s   when m > eager_B,
**               m the bytes one channel puts on the wire per message,
**               min(chunk, M / C) over the protocol's data share (LL 1/2,
**               LL128 120/128), M what one message of the hop carries over
**               all channels (model/cost_term.h msg).  Within a pipeline the next messages' fetches
**               overlap the wire; only the latency chain pays it
** A topology names its transport in scaleout.transport or model.transport;
** without one it follows the NICs' link type (ib -> ib, roce -> roce,
** ethernet -> socket).  GPUDirect RDMA off (gdr:...:off) and P2P off are
** faults on the graph (model/fault.h), not rows: they change the path the
** bytes take, not the transport's software.
*/
#ifndef CCS_TRANSPORT_H
#define CCS_TRANSPORT_H

/* A row's costs in the order model.transport_costs names them
 * (ccs_tr_cost_name): msg_latency, chunk_cost, efficiency, nccl_latency,
 * eager_max, rdv_trips; each cost's kind of value (ccs_tr_cost_kind): a time,
 * a fraction in (0, 1], a size, or a count. */
enum ccs_tr_cost { CCS_TR_MSG, CCS_TR_CHUNK, CCS_TR_EFF, CCS_TR_NCCL, CCS_TR_EAGER, CCS_TR_TRIPS, CCS_TR_COSTS };
enum ccs_tr_kind { CCS_TR_KIND_TIME, CCS_TR_KIND_FRAC, CCS_TR_KIND_SIZE, CCS_TR_KIND_COUNT };
extern const char *const ccs_tr_cost_name[CCS_TR_COSTS];
extern const unsigned char ccs_tr_cost_kind[CCS_TR_COSTS];

enum ccs_transport { CCS_TR_IB, CCS_TR_ROCE, CCS_TR_EFA, CCS_TR_EFA_SENDRECV, CCS_TR_TCPX, CCS_TR_SOCKET,
                     CCS_TR_N };

struct ccs_transport_row {
	double msg_lat_s, chunk_s, eff, nccl_lat_s;
	double eager_B, trips;      /* the rendezvous: above eager_B bytes, trips more one-way latencies */
	unsigned protos;
};

/* What a message of m wire bytes adds on each network hop of the latency
 * term: trips x msg_lat_s when m > eager_B, else 0. */
static inline double ccs_transport_rdv(const struct ccs_transport_row *r, double m)
{
	return r->trips > 0 && m > r->eager_B ? r->trips * r->msg_lat_s : 0;
}

/* Transport tr's row, from the parameter table (model/params.c). */
void ccs_transport_row_of(int tr, struct ccs_transport_row *out);
/* Row r with the costs whose bit (1 << enum ccs_tr_cost) is in set taken
 * from v (model.transport_costs: a topology's or --set's). */
void ccs_transport_override(struct ccs_transport_row *r, const double *v, unsigned set);
/* InfiniBand and RoCE verbs: nothing added to NCCL's own network figures. */
extern const struct ccs_transport_row ccs_transport_verbs;
extern const char *const ccs_transport_name[CCS_TR_N];   /* the rows' names, for parsing and reports */

#endif
