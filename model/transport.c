/* model/transport.c: the transports' costs (transport.h, docs/model.md
** section 2, "Transports"). */
#include "transport.h"
#include "params.h"

#include <math.h>
#include <stdio.h>

#define ALL_PROTOS 7u
#define SIMPLE_ONLY 4u

/*
** The figures are rows of the parameter table (model/params.c,
** transport.<name>.msg_latency, chunk_cost, efficiency, nccl_latency);
** what each rests on, row by row:
**   ib      NCCL's network latencies (tuning.cc hwLatencies[NET]) are
**           measured over InfiniBand verbs with GPUDirect RDMA: nothing to add.
**   roce    the same verbs transport and ConnectX NICs over Ethernet
**           (NCCL's net_ib.cc serves both); switch latencies come from the graph.
**   efa     SRD through libfabric and the aws-ofi-nccl plugin with RDMA
**           write (EFA v2 and later: p5, p5e, p5en).  One-way small-message
**           latency near 15 us (public MPI ping-pong figures on EFA, against
**           1-2 us on ConnectX InfiniBand); the plugin reports 75 us to NCCL
**           (aws-ofi-nccl src/platform-aws.c, 'latency' of the p4d, p4de and
**           p5-and-later platforms).  Each chunk the plugin carries costs a
**           control message and a completion on the proxy thread: about two
**           libfabric operations of 1.5-2 us each (estimate: libfabric's EFA
**           provider posts and reaps in about 1 us of CPU each, and the
**           plugin's RDMA protocol sends the receiver's buffer address
**           before each write) -> 4 us.
**           No rendezvous on the latency chain: the plugin's RDMA protocol
**           writes into the buffer the receiver announced in a control
**           message, and NCCL's proxy posts its receives up to NCCL_STEPS
**           ahead (src/transport/net.cc recvProxyProgress), so the
**           announcement is there before the data is (rdv_trips 0).
**   efa_sendrecv  EFA v1 without RDMA write (p3dn, p4d, p4de): the plugin's
**           two-sided send/recv protocol, which aws-ofi-nccl runs with
**           NCCL_PROTO=simple (platform-aws.c: LL and LL128 are not safe
**           there); the receive is matched in software (one more operation
**           per chunk: 6 us).  Under it libfabric's EFA provider sends GPU
**           memory eagerly only when it fits one packet; a larger message is
**           read by the receiver (long or runting read, prov/efa/src/
**           efa_hmem.c: min_read_msg_size is one packet's payload + 1 for
**           FI_HMEM_CUDA, the medium protocol off): the request reaches the
**           receiver, the receiver's read request reaches the sender, the
**           data comes back: two one-way trips more than an eager message
**           (rdv_trips 2 above eager_max 8 KiB, one EFA packet).
**   tcpx    GPUDirect-TCPX/TCPXO (GCP A3/A3 Mega): TCP through the kernel
**           with device-memory receive.  Kernel TCP one-way latency on
**           100-200 GbE about 20-25 us (netperf TCP_RR round trips of 40-50
**           us); per chunk the plugin's flow-steering and receive unpacking
**           cost about one kernel round trip of the socket (estimate 10 us);
**           TCP/IP headers and the receive-side unpack leave about 85% of
**           the line rate (estimate); the plugin delivers whole messages, so
**           NCCL runs Simple over it.
**   socket  NCCL's own socket transport (net_socket.cc): host memory on
**           both ends (a copy in and out of the GPU per chunk) and the
**           kernel TCP stack; one-way latency about 25 us as tcpx plus the
**           staging; per chunk the staging copy's synchronisation and the
**           socket threads' hand-off (estimate 15 us); a few kernel TCP
**           streams (NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD) reach
**           about 40% of a 100-400 GbE port (estimate).
*/
/* Which protocols NCCL may run across nodes over each (bit q for LL,
 * LL128, Simple): aws-ofi-nccl sets NCCL_PROTO=simple on EFA v1
 * (platform-aws.cpp: LL and LL128 are not safe there); the TCPX plugin
 * delivers whole messages. */
static const unsigned protos[CCS_TR_N] = {
	[CCS_TR_IB] = ALL_PROTOS, [CCS_TR_ROCE] = ALL_PROTOS, [CCS_TR_EFA] = ALL_PROTOS,
	[CCS_TR_EFA_SENDRECV] = SIMPLE_ONLY, [CCS_TR_TCPX] = SIMPLE_ONLY, [CCS_TR_SOCKET] = ALL_PROTOS,
};

const struct ccs_transport_row ccs_transport_verbs = { 0, 0, 1.0, 0, 0, 0, ALL_PROTOS };

/* A row of the parameter table, or dflt where the transport has none. */
static double row(const char *tr, const char *what, double dflt)
{
	char key[64];
	snprintf(key, sizeof key, "transport.%s.%s", tr, what);
	double v = ccs_param(key);
	return isnan(v) ? dflt : v;
}

void ccs_transport_row_of(int tr, struct ccs_transport_row *out)
{
	const char *nm = ccs_transport_name[tr];
	out->msg_lat_s = row(nm, "msg_latency", 0) * 1e-6;
	out->chunk_s = row(nm, "chunk_cost", 0) * 1e-6;
	out->eff = row(nm, "efficiency", 1.0);
	out->nccl_lat_s = row(nm, "nccl_latency", 0) * 1e-6;
	out->eager_B = row(nm, "eager_max", 0);
	out->trips = row(nm, "rdv_trips", 0);
	out->protos = protos[tr];
}

const char *const ccs_tr_cost_name[CCS_TR_COSTS] = { "msg_latency", "chunk_cost", "efficiency", "nccl_latency",
	                                               "eager_max", "rdv_trips" };
const unsigned char ccs_tr_cost_kind[CCS_TR_COSTS] = {
	[CCS_TR_MSG] = CCS_TR_KIND_TIME, [CCS_TR_CHUNK] = CCS_TR_KIND_TIME, [CCS_TR_EFF] = CCS_TR_KIND_FRAC,
	[CCS_TR_NCCL] = CCS_TR_KIND_TIME, [CCS_TR_EAGER] = CCS_TR_KIND_SIZE, [CCS_TR_TRIPS] = CCS_TR_KIND_COUNT,
};

void ccs_transport_override(struct ccs_transport_row *r, const double *v, unsigned set)
{
	double *f[CCS_TR_COSTS] = { &r->msg_lat_s, &r->chunk_s, &r->eff, &r->nccl_lat_s, &r->eager_B, &r->trips };
	for (int k = 0; k < CCS_TR_COSTS; k++)
		if (set >> k & 1)
			*f[k] = v[k];
}

const char *const ccs_transport_name[CCS_TR_N] = {
	[CCS_TR_IB] = "ib", [CCS_TR_ROCE] = "roce", [CCS_TR_EFA] = "efa", [CCS_TR_EFA_SENDRECV] = "efa_sendrecv",
	[CCS_TR_TCPX] = "tcpx", [CCS_TR_SOCKET] = "socket",
};
