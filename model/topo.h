/*
** model/topo.h: the hardware as a graph.
**
** Devices: GPU (or NPU), scale-up switch (NVSwitch, UB or HCCS switch), PCIe
** switch, CPU (root complex, with its NUMA node), NIC, network switch (with its
** tier: leaf, spine, core).  Links join two devices and carry a type (nvlink,
** c2c, pcie, smp, ib, roce, ethernet, ub, hccs), a bandwidth per direction
** [B/s] (full duplex: each direction has the whole bw_Bps), a latency [s] and
** a lane count.  Parallel links between the same pair are allowed.
**
** Derived on load (ccs_topo_finish):
**   node      the server or tray a device sits in (-1 for fabric switches);
**   domain    scale-up domain of a GPU: its connected component over
**             nvlink/ub/hccs links through GPUs and scale-up switches;
**   NICs      for each GPU, every NIC of its node reachable over pcie/c2c/smp
**             links, with NCCL's path class along the shortest such path:
**               PIX  at most one PCIe switch, no CPU
**               PXB  several PCIe switches, no CPU
**               P2C  through a CPU reached over C2C (Grace-Blackwell)
**               PHB  through a CPU (host bridge)
**               SYS  across the inter-socket (smp) link
**             sorted best first (class, hops, then the NIC whose rail
**             follows the GPU's local index); the first is "its NIC".
** Invariants after a successful finish: every GPU reaches every other GPU;
** every NIC has a host link and a network link; no device is isolated; no
** link joins a device to itself; all bandwidths > 0, latencies >= 0.
*/
#ifndef CCS_TOPO_H
#define CCS_TOPO_H

#include "ccs.h"
#include "transport.h"

enum ccs_dev_kind { CCS_DEV_GPU, CCS_DEV_SUSW, CCS_DEV_PCISW, CCS_DEV_CPU,
                    CCS_DEV_NIC, CCS_DEV_NETSW, CCS_DEV_NKINDS };
enum ccs_link_type { CCS_LINK_NVLINK, CCS_LINK_C2C, CCS_LINK_PCIE, CCS_LINK_SMP,
                     CCS_LINK_IB, CCS_LINK_ROCE, CCS_LINK_ETHERNET, CCS_LINK_UB,
                     CCS_LINK_HCCS, CCS_LINK_XGMI, CCS_LINK_NTYPES };
enum ccs_tier { CCS_TIER_NONE, CCS_TIER_LEAF, CCS_TIER_SPINE, CCS_TIER_CORE, CCS_TIER_N };
enum ccs_path { CCS_PATH_PIX, CCS_PATH_PXB, CCS_PATH_P2C, CCS_PATH_PHB,
                CCS_PATH_SYS, CCS_PATH_N };

/* Device capability flags. */
enum ccs_arch { CCS_ARCH_VOLTA, CCS_ARCH_AMPERE, CCS_ARCH_HOPPER, CCS_ARCH_BLACKWELL,
                CCS_ARCH_N };

#define CCS_DEVF_MULTICAST 0x1u   /* scale-up switch multicast (NVLS) */
#define CCS_DEVF_REDUCE    0x2u   /* in-switch reduction: NVLS or SHARP */

extern const char *const ccs_dev_kind_name[CCS_DEV_NKINDS];
extern const char *const ccs_link_type_name[CCS_LINK_NTYPES];
extern const char *const ccs_tier_name[CCS_TIER_N];
extern const char *const ccs_path_name[CCS_PATH_N];
extern const char *const ccs_arch_name[CCS_ARCH_N];

/* Link classes. */
int ccs_link_is_scaleup(int type);   /* nvlink, ub, hccs, xgmi (GPU to GPU) */
int ccs_link_is_host(int type);      /* pcie, c2c, smp */
int ccs_link_is_network(int type);   /* ib, roce, ethernet */

struct ccs_dev {
	const char *name;
	uint8_t kind, tier, flags;
	int32_t node;               /* -1: not in a node */
	int32_t domain;             /* GPUs: scale-up domain; else -1 */
	int32_t numa;               /* CPUs: NUMA node; GPUs/NICs: nearest CPU's */
	int32_t rail;               /* NICs: index among its node's NICs */
	int32_t plane;              /* network switches: plane; else -1 */
	double bw_Bps;              /* NICs: port speed; GPUs: memory bandwidth (0: unknown) */
	uint8_t arch;               /* GPUs: enum ccs_arch */
	double lat_s;               /* switches: traversal latency */
	struct ccs_mark mark;       /* where it was declared */
};

struct ccs_link {
	uint32_t a, b;
	uint8_t type;
	uint16_t lanes;
	double bw_Bps;              /* per direction, all lanes together */
	double lat_s;
	struct ccs_mark mark;
};

struct ccs_gpu_nic {
	uint32_t nic;               /* device index */
	uint8_t path;               /* enum ccs_path */
	uint8_t hops;
	uint16_t rail_dist;         /* (NIC rail - GPU local index) mod 2^16 */
};

struct ccs_gpu {
	uint32_t dev;
	int32_t node, domain, local; /* local: index among its node's GPUs */
	uint32_t nic_first, nic_count; /* into topo->gnic, best first */
	double su_bw_Bps;           /* sum of its scale-up links, per direction */
	double delay_s;             /* a straggler's late start (faults), 0 */
	int no_gdr;                 /* GPUDirect RDMA off (faults): NIC traffic staged through host memory */
	int no_p2p;                 /* P2P off (faults): traffic to GPUs of its node staged through host memory */
	uint32_t nic_force;         /* the one NIC it uses (faults: rail), device index + 1; 0: the nearest ones */
};


/* How the network picks among equal-cost next hops (scaleout.routing):
 *   dmodk     destination-based tables, as an InfiniBand subnet manager
 *             writes them (OpenSM's ftree/updn, D-mod-k): the j-th up hop
 *             toward destination NIC d takes port (d / (k_0 ... k_{j-1})) mod k_j
 *   ecmp      a hash of the flow picks (RoCE and Ethernet switches)
 *   spray     each transfer split over K equal paths (EFA's SRD; K: spray)
 *   adaptive  switches balance per packet (IB adaptive routing,
 *             Spectrum-X): modelled as spraying over K paths (K: spray, 16
 *             when not given)
 * Default: spray where `spray` > 1 is given, else by the NICs' link type:
 * InfiniBand dmodk, RoCE and Ethernet ecmp. */
enum ccs_routing { CCS_ROUTE_DMODK, CCS_ROUTE_ECMP, CCS_ROUTE_SPRAY, CCS_ROUTE_ADAPTIVE, CCS_ROUTE_N };
extern const char *const ccs_routing_name[CCS_ROUTE_N];
struct ccs_topo;
/* t's routing: the one its scaleout names, else by the rule above. */
int ccs_topo_routing(const struct ccs_topo *t);
/* The leaf of NIC nic: the lowest-numbered network switch it is linked to,
 * or the NIC itself where it joins none. */
uint32_t ccs_topo_nic_leaf(const struct ccs_topo *t, uint32_t nic);

/* What a generator built, for reports (zeros for the explicit form). */
struct ccs_fabric_info {
	int present;
	const char *kind;           /* "fat-tree", "rail-optimized", "rail-only" */
	int tiers, radix, planes, sharp;
	int spray;                  /* routing: parts sprayed over equal paths (1: one path per flow) */
	int routing;                /* enum ccs_routing; -1: not given (ccs_topo_routing resolves it) */
	double oversub[CCS_TIER_N]; /* design down:up per tier (leaf, spine) */
	int nodes_per_domain, domain_switches, multicast, reduction;
	int su_tiers, su_spines;    /* scale-up tiers (2: L1 per node, su_spines L2 per sub-plane) */
};

/*
** Parameters of the cost model that belong to the hardware, with defaults
** from the parameter table (model/params.h, each with its source) and
** overridable in the topology's `model:` section:
**   eff[type]     achievable fraction of a link type's wire rate
**   step_s[proto] fixed cost of one pipeline step (LL, LL128, Simple)
**   nvls_channels channels NVLS uses (0: by GPU architecture)
**   channels      ring/tree channel count (0: chosen from the graph)
**   ep_overhead_s fixed cost of one expert-parallel kernel (DeepEP's dispatch
**                 or combine): launch, signalling, the receivers' wait
**   transport     how bytes cross the network (model/transport.h)
*/
struct ccs_model_params {
	double eff[CCS_LINK_NTYPES];
	double step_s[3];
	int nvls_channels;
	int channels;
	double ep_overhead_s;
	double shot_overhead_s[2];   /* oneshot, twoshot AllReduce kernels' fixed cost */
	double twoshot_eff;          /* share of the scale-up rate the two-shot kernels reach */
	double mem_traffic[2];       /* GPU memory bytes per byte a kernel copies, reduces (model/params.c) */
	int transport;               /* enum ccs_transport (model/transport.h); -1: from the NICs' link type */
	double tr_over[CCS_TR_COSTS]; /* model.transport_costs: the transport's row overridden, in
	                                 s (latencies, chunk cost) or a fraction (efficiency); enum
	                                 ccs_tr_cost order; used where tr_over_set has the bit */
	unsigned tr_over_set;
	int nccl_version;            /* NCCL release whose tuning model chooses, major x 100 + minor (2.21: 221);
	                                0: the current one (nccl_tables.h) */
	int nccl_collnet;            /* NCCL_COLLNET_ENABLE=1 (and its SHARP plugin): NCCL may choose CollNet and
	                                NVLS across nodes; 0: NCCL's default, off */
	uint32_t eff_set;            /* link types whose eff the topology or --set gave (bit per type) */
	int nvlink_arch;             /* the GPU generation NVLink's eff came from (model/params.h), -1: none */
};

/* The defaults. */
void ccs_model_params_default(struct ccs_model_params *p);

struct ccs_topo {
	struct ccs_arena arena;     /* names and small pieces */
	const char *name, *path;
	uint32_t ndev, nlink, ngpu, ngnic;
	size_t dev_cap, link_cap;
	struct ccs_dev *dev;
	struct ccs_link *link;
	uint32_t *adj_off;          /* ndev + 1 offsets into adj */
	uint32_t *adj;              /* link indices incident to each device */
	uint32_t *adj_nbr;          /* the device at the other end, parallel to adj */
	struct ccs_gpu *gpu;
	int32_t *gpu_of_dev;        /* device -> GPU index or -1 */
	struct ccs_gpu_nic *gnic;
	int32_t nnodes, ndomains;
	struct ccs_fabric_info fab;
	struct ccs_model_params params;
	const char *note;           /* what loading it assumed (an imported NCCL dump's warnings), in the arena; NULL */
	const char **fault;         /* the faults applied (model/fault.h), in the arena */
	uint32_t nfault;
	struct ccs_timed_fault *timed;   /* faults that strike during a run, by time */
	uint32_t ntimed;
};

/* A fault that strikes at a time into every simulated run (model/fault.h,
 * KIND:TARGET:WHAT@TIME): from at_s on, each of the links carries that
 * share of the bandwidth it had (0: down), or the GPU's memory runs at it.  The topology itself stays as
 * it was: the closed form and NCCL's choices see the healthy hardware. */
struct ccs_timed_fault {
	double at_s;
	const char *spec;
	double share;
	uint32_t nic;               /* a nic fault's device (its port speed too), else UINT32_MAX */
	int32_t gpu_mem;            /* a straggler's GPU whose memory takes the share, else -1 */
	uint32_t nlink;
	uint32_t *link;
};

/* Other end of link l seen from device d. */
static inline uint32_t ccs_link_other(const struct ccs_link *l, uint32_t d)
{
	return l->a == d ? l->b : l->a;
}

/* Allocate an empty topology; NULL when out of memory. */
struct ccs_topo *ccs_topo_new(void);
void ccs_topo_free(struct ccs_topo *t);

/* Append a device or a link; *idx gets its index.  name must live in
 * t->arena (or be a literal).  Bandwidths and latencies are not checked here:
 * the loader validates values before it builds. */
int ccs_topo_add_dev(struct ccs_topo *t, const struct ccs_dev *d, uint32_t *idx);
int ccs_topo_add_link(struct ccs_topo *t, const struct ccs_link *l);

/* Make room for ndev devices and nlink links in all (a hint; may fail
 * with CCS_ENOMEM). */
int ccs_topo_reserve(struct ccs_topo *t, size_t ndev, size_t nlink);

/* Build adjacency, check the invariants above (errors go to diag with the
 * offending device's or link's mark) and derive nodes, domains and NIC
 * paths.  On failure the topology is left as it was built, unusable for
 * the model. */
int ccs_topo_finish(struct ccs_topo *t, struct ccs_diag *diag);

/* A link is live while it has bandwidth: a fault that takes it down sets
 * bw_Bps to 0 (loaded links always have more). */
static inline int ccs_link_live(const struct ccs_link *l)
{
	return l->bw_Bps > 0;
}

/* The CPU device nearest GPU g (its NUMA node's), or UINT32_MAX. */
uint32_t ccs_gpu_cpu(const struct ccs_topo *t, uint32_t g);

/* A NIC is live while it has a live network link (and, when its port speed
 * is given, a speed above 0). */
int ccs_nic_live(const struct ccs_topo *t, uint32_t nic);

/* After links or NICs changed (model/fault.c): recompute the GPUs'
 * scale-up bandwidth and their NIC lists (dead NICs left out, paths over
 * live host links only).  After CCS_ENOMEM the topology is not usable. */
int ccs_topo_refresh(struct ccs_topo *t);

/* The transport (model/transport.h) a topology's NICs of link type
 * link_type get by default: RoCE's verbs, Ethernet's sockets, else
 * InfiniBand's verbs. */
int ccs_topo_transport_of_link(int link_type);
/* Topology t's transport: the one named (scaleout.transport or
 * model.transport; -1 none), else the one its first network link's type
 * implies, else InfiniBand. */
int ccs_topo_transport(const struct ccs_topo *t, int named);

/* How many of GPU gp's NICs (t->gnic from gp->nic_first, best first) are as
 * close as its best one: the NICs it may use, over which NCCL spreads its
 * channels.  0 when it has none. */
uint32_t ccs_topo_best_nics(const struct ccs_topo *t, const struct ccs_gpu *gp);
/* A NIC's line rate [B/s]: its port speed, else the sum of its network
 * links'. */
double   ccs_topo_nic_speed(const struct ccs_topo *t, uint32_t nic);
/* The link type of a NIC's network links (its first), InfiniBand when it
 * has none. */
int      ccs_topo_nic_net_type(const struct ccs_topo *t, uint32_t nic);

/* A two-tier scale-up plane's node uplinks: up[n] = the bandwidth [B/s,
 * per direction] of the scale-up links from node n's own switch chips
 * (its L1) to switch chips outside it (L2); 0 where the node has none
 * (one tier: traffic in a domain meets only the GPUs' own lanes).  up has
 * nnodes entries; returns 1 when any node has uplinks. */
int ccs_topo_su_uplinks(const struct ccs_topo *t, double *up);
/* Whether link l is such an uplink; its node, else -1. */
int32_t ccs_topo_su_uplink_node(const struct ccs_topo *t, uint32_t l);

/* Index of a device by name, or -1 (linear scan; for tests and tools). */
int64_t ccs_topo_find(const struct ccs_topo *t, const char *name);

#endif
