/*
** model/nccl_tables.h: NCCL's published tuning constants (src/graph/tuning.cc
** and src/graph/search.cc, NCCL 2.30.7, as quoted in
** shared/reference/nccl-model.md) and the functions that read them.
**
** Latency of an algorithm with h_i intra hops and h_n network hops:
**   L = base[a][q] + h_i (hw[intra][a][q] + lat_intra) + h_n (net(a, q) + lat_net)
**   intra = NVLINK when the group's hops are scale-up links, else PCI;
**   net(a, q) = hw[NET][a][q], with the tree's row when each group holds one
**   rank, and for Simple the network path latency counted twice (NCCL's
**   "flush extra latency"); ring hops are never cheaper than NCCL's network
**   overhead (1 us, x3 for Simple) when the ranks span groups.
** All in seconds here; NCCL's tables are in microseconds.
*/
#ifndef CCS_NCCL_TABLES_H
#define CCS_NCCL_TABLES_H

#include "coll.h"

#include <stdint.h>

/* What NCCL's tuning model sees of a communicator: its own input, filled
 * by comm.c from the graph once the communicator is built (tests fill it
 * by hand).  The scalars mirror struct ccs_comm's (comm.h); the graph is in
 * NCCL's units, as its topology search would find it. */
struct ccs_nccl_in {
	int n, G, p, arch;          /* ranks, groups (nodes to NCCL), ranks per group, enum ccs_arch */
	int intra_nvl;              /* a group's hops are NVLink (NCCL's NVLINK latency row), else PCI */
	int nvls, sharp;            /* NVLink SHARP in every group; in-network reduction (CollNet) */
	int version;                /* model.nccl_version, 0: CCS_NCCL_VERSION */
	int collnet;                /* NCCL_COLLNET_ENABLE=1 */
	int channels;               /* model.channels: NCCL_MIN/MAX_NCHANNELS fixed, 0: NCCL's own */
	double lat_net, lat_intra;  /* our graph's path latencies [s], added to NCCL's per-hop figures */
	double msg_lat_s;           /* the transport's message latency [s] (model/transport.h) */
	double net_lat_s;           /* the latency the transport's plugin reports to NCCL [s] */
	unsigned net_protos;        /* the protocols the transport offers across groups (bit per enum ccs_proto) */
	/* the graph as NCCL's search sees it */
	double nvl_GBps;            /* per GPU: NVLink links x per-link GB/s */
	double pci_GBps;            /* per GPU: PCIe link GB/s */
	double net_GBps;            /* per group: NIC GB/s (port speed / 8000) */
	int nics;                   /* distinct NICs per group (min) */
	int nch_ring;               /* search channels of the ring graph */
	double intra_GBps, inter_GBps;   /* per search channel */
	double tree_intra_GBps;     /* the tree graph's intra speed after the search's second pass */
	int nvls_channels;
	double nvls_chunk_max;      /* NVLS's largest chunk [bytes]: 32 KiB across groups when NCCL's
	                             * NVLS AllReduce bandwidth is below 150 GB/s, else 128 KiB; 0: unset */
};

/* NCCL's buffer geometry and its default chunks [bytes], typed once here
 * (src/include/device.h: NCCL_STEPS 8 and the LL/LL128 line layouts;
 * src/init.cc DEFAULT_*_BUFFSIZE; src/enqueue.cc calcCollChunking;
 * shared/reference/nccl-model.md's table):
 *   Simple   4 MiB buffer / 8 steps = 512 KiB a step; the ring's AllReduce,
 *            AllGather and ReduceScatter move 2-step slices: 1 MiB
 *   LL       512 KiB / 8 = 64 KiB of lines, half of them data: 32 KiB
 *   LL128    4,915,200 B / 8 = 614,400 B of lines, 15 of 16 words data
 *   NVLS     NCCL_NVLS_CHUNKSIZE, 128 KiB (32 KiB across nodes)
 *   CollNet  128 KiB, where calcCollChunking's halving stops */
#define CCS_NCCL_STEP_SIMPLE     524288.0
#define CCS_NCCL_SLICE_RING      1048576.0
#define CCS_NCCL_CHUNK_LL        32768.0
#define CCS_NCCL_CHUNK_LL128     576000.0
#define CCS_NCCL_CHUNK_NVLS      131072.0
#define CCS_NCCL_CHUNK_NVLS_NET  32768.0
#define CCS_NCCL_CHUNK_COLLNET   131072.0

/* NVLS heads a node's NVLS graph has at most (src/include/device.h
 * NCCL_MAX_NVLS_ARITY; src/graph/search.cc caps the NVLS search's
 * channels at it): one GPU and its NIC each */
#define CCS_NCCL_NVLS_ARITY      32

/* The share of a protocol's bytes on the wire that is data
 * (src/include/device.h, 5067397c): LL lines carry a 4-byte flag beside each
 * 4 bytes of data, 1/2; LL128 lines hold NCCL_LL128_DATAELEMS = 15 of their
 * NCCL_LL128_LINEELEMS = 16 eight-byte words, 120/128; Simple, all of them.
 * Indexed by enum ccs_proto. */
double ccs_nccl_proto_data_share(int proto);

/* The NCCL releases NCCL's model can be (model.nccl_version), major x 100
 * + minor; the tables above are the newest's. */
#define CCS_NCCL_VERSION      230
#define CCS_NCCL_VERSION_S    "2.30"
#define CCS_NCCL_VERSION_MIN  218
#define CCS_NCCL_VERSION_MIN_S "2.18"
/* "2.21" or "2.21.5" -> 221; -1 when it is not a release in that range. */
int ccs_nccl_version_parse(const char *s);

/* NVLS's largest chunk [bytes] (src/enqueue.cc): 128 KiB, and 32 KiB on
 * more than one node when NCCL's own NVLS AllReduce bandwidth (with CollNet
 * on, which NVLS across nodes needs) is below 150 GB/s. */
double ccs_nccl_nvls_chunk_max(const struct ccs_nccl_in *c);

/* Per-link NVLink bandwidth NCCL assumes, GB/s (ncclTopoNVLinkBw). */
double ccs_nccl_nvlink_bw(int arch);
/* The GB/s NCCL gives a GPU's PCIe link of link_GBps (after its coding;
 * 0: none found, NCCL's PCI_BW default), src/graph/topo.cc ncclTopoAddPci
 * and topo.h PCI_BW (5067397c). */
double ccs_nccl_pci_bw(double link_GBps);
/* Search speed arrays (GB/s per channel), fastest first. */
const double *ccs_nccl_speed_intra(int arch);
int ccs_nccl_speed_intra_n(int arch);
const double *ccs_nccl_speed_inter(int arch);
int ccs_nccl_speed_inter_n(int arch);
/* Protocol caps, GB/s: LL per GPU; LL128 per channel (ring, tree). */
double ccs_nccl_ll_max_bw(int arch, int nnodes);
double ccs_nccl_ring_ll128_max(int arch, int nodes_idx);
double ccs_nccl_tree_ll128_max(int arch, int nodes_idx);
/* NCCL's empirical tree correction for medium sizes (treeCorrectionFactor,
 * per power of two from 64 B to 256 MiB), interpolated in log2(bytes) so it
 * is continuous and grows slower than the size. */
double ccs_nccl_tree_correction(int proto, double bytes);
/* The share of a channel's rate NCCL's tree AllReduce reaches by protocol
 * (src/graph/tuning.cc, 5067397c): x 0.92, and LL / 3.8, LL128 x 7/9 on one
 * node and x 120/128 across nodes; the caps beside them are separate. */
double ccs_nccl_tree_proto_eff(int proto, int nnodes);

/* L for our model, as in the header (algo selects NCCL's latency row:
 * ring for the MPI classics). */
double ccs_nccl_latency(const struct ccs_nccl_in *c, int algo, int proto, int hops_intra, int hops_net);

/* NCCL's tuning model (src/graph/tuning.cc, NCCL 2.30), reimplemented on its
 * view of a communicator (struct ccs_nccl_in): predicted seconds, or -1 when NCCL would not offer the
 * combination.  Only the five tuned collectives. */
double ccs_nccl_time(const struct ccs_nccl_in *c, int coll, int algo, int proto, uint64_t bytes);
/* Its two halves: the part that does not depend on the size, NCCL's bus
 * bandwidth [GB/s] (0: not offered) and latency [us] of (coll, algo, proto)
 * on c; and the time at bytes from them (-1 when bw is 0). */
double ccs_nccl_bw_lat(const struct ccs_nccl_in *c, int coll, int algo, int proto, double *lat);
double ccs_nccl_time_at(const struct ccs_nccl_in *c, int coll, int algo, int proto, uint64_t bytes, double bw,
                        double lat);
/* The bandwidth NCCL's model gives (coll, algo, proto), in GB/s of algBw as
 * it stores it in comm->bandwidths; 0 where it does not offer it. */
double ccs_nccl_algbw(const struct ccs_nccl_in *c, int coll, int algo, int proto);
/* NCCL's runtime channel count for the algorithm. */
int ccs_nccl_channels(const struct ccs_nccl_in *c, int algo);

#endif
