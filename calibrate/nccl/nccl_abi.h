/*
** calibrate/nccl/nccl_abi.h: the part of NCCL's plugin ABI the ccsim
** plugins use, declared here so that they build without NCCL's headers or
** CUDA.  The layouts follow NCCL's src/include/nccl.h (ncclResult_t),
** src/include/nccl_common.h (the logger, ncclFunc_t) and
** src/include/plugin/tuner/tuner_v4.h, tuner_v5.h, tuner_v6.h (NVIDIA/nccl
** 5067397c; the releases that added them: v4 2.26.2, v5 2.28.3, v6 2.30.3,
** the newest): v5 added the NVLink-domain info and the tuning constants to
** init, v6 the optional getChunkSize (its constants are v5's).  NCCL looks
** up "ncclTunerPlugin_vN" with dlsym, its newest first.
**
** Cost table: NCCL passes float[numAlgo][numProto] as float **, entries in
** microseconds, NCCL_ALGO_PROTO_IGNORE (-1) where it does not offer the
** pair; after getCollInfo it takes the smallest entry.
**
** Profiler (src/include/plugin/nccl_profiler.h and profiler/profiler_v5.h,
** _v6.h: v5 2.28.3, v6 2.29.2, the newest; symbols "ncclProfiler_vN"): the
** event descriptor is a type, the parent's handle, the rank and a union.
** Its 'coll' member starts with the same fields in v5 and v6 (v6 appends
** its own), and so do the 'kernelCh' member and the state arguments; only
** those prefixes are declared here, which is what lets one implementation
** serve both.
*/
#ifndef CCS_NCCL_ABI_H
#define CCS_NCCL_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
               ncclInvalidArgument = 4, ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7 } ncclResult_t;

typedef enum { NCCL_LOG_NONE = 0, NCCL_LOG_VERSION = 1, NCCL_LOG_WARN = 2, NCCL_LOG_INFO = 3, NCCL_LOG_ABORT = 4,
               NCCL_LOG_TRACE = 5 } ncclDebugLogLevel;
#define NCCL_INIT 1UL
#define NCCL_TUNING 64UL
#define NCCL_PROFILE 16384UL
typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char *file, int line,
                                  const char *fmt, ...);

/* the five tuned collectives; NCCL 2.28 numbers more after Recv */
typedef enum { ncclFuncBroadcast = 0, ncclFuncReduce = 1, ncclFuncAllGather = 2, ncclFuncReduceScatter = 3,
               ncclFuncAllReduce = 4, ncclFuncSendRecv = 5, ncclFuncSend = 6, ncclFuncRecv = 7 } ncclFunc_t;

#define NCCL_ALGO_TREE 0
#define NCCL_ALGO_RING 1
#define NCCL_ALGO_COLLNET_DIRECT 2
#define NCCL_ALGO_COLLNET_CHAIN 3
#define NCCL_ALGO_NVLS 4
#define NCCL_ALGO_NVLS_TREE 5
#define NCCL_ALGO_PAT 6
#define NCCL_NUM_ALGORITHMS_V5 7
#define NCCL_PROTO_LL 0
#define NCCL_PROTO_LL128 1
#define NCCL_PROTO_SIMPLE 2
#define NCCL_NUM_PROTOCOLS_V5 3
#define NCCL_ALGO_PROTO_IGNORE (-1.0f)
#define NCCL_NUM_HW_LINKS_V5 3
#define NCCL_NUM_COMPCAPS_V5 4
#define NCCL_NUM_TUNING_SCALES_V5 3

typedef struct {
	int nNvlDomains;            /* NVLink domains in the communicator */
	int minRanksPerNvlDomain;
	int maxRanksPerNvlDomain;
} ncclNvlDomainInfo_v5_t;

/* NCCL's tuning constants, given to init to read or change */
#define CCS_NCCL_CONSTANTS(ncc) \
	double baseLatencies[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5]; \
	double hwLatencies[NCCL_NUM_HW_LINKS_V5][NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5]; \
	double llMaxBws[ncc][NCCL_NUM_TUNING_SCALES_V5]; \
	double perChMaxRingLL128Bws[ncc][NCCL_NUM_TUNING_SCALES_V5]; \
	double perChMaxTreeLL128Bws[ncc][NCCL_NUM_TUNING_SCALES_V5]; \
	double perChMaxTreeBws[ncc][NCCL_NUM_TUNING_SCALES_V5]; \
	double perChMaxNVLSTreeBws[ncc][NCCL_NUM_TUNING_SCALES_V5];
typedef struct { CCS_NCCL_CONSTANTS(NCCL_NUM_COMPCAPS_V5) } ncclTunerConstants_v5_t;

typedef ncclResult_t (*ncclTunerGetCollInfo_fn)(void *ctx, ncclFunc_t coll, size_t nBytes, int numPipeOps,
                                                float **collCostTable, int numAlgo, int numProto, int regBuff,
                                                int *nChannels);
typedef ncclResult_t (*ncclTunerGetChunkSize_fn)(void *ctx, ncclFunc_t coll, size_t nBytes, int algo, int proto,
                                                 int nChannels, size_t *chunkSize);

/* The tuner's table of functions: v5's four, v6 with getChunkSize (may be
 * NULL) after them; v4's init has neither the communicator id, the
 * NVLink-domain info nor the constants, and its context comes last. */
#define CCS_NCCL_TUNER(constants_t) \
	const char *name; \
	ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t log, \
	                     ncclNvlDomainInfo_v5_t *nvl, constants_t *constants); \
	ncclTunerGetCollInfo_fn getCollInfo; \
	ncclResult_t (*finalize)(void *ctx);
typedef struct { CCS_NCCL_TUNER(ncclTunerConstants_v5_t) } ncclTuner_v5_t;
typedef struct { CCS_NCCL_TUNER(ncclTunerConstants_v5_t) ncclTunerGetChunkSize_fn getChunkSize; } ncclTuner_v6_t;
typedef struct {
	const char *name;
	ncclResult_t (*init)(size_t nRanks, size_t nNodes, ncclDebugLogger_t log, void **ctx);
	ncclTunerGetCollInfo_fn getCollInfo;
	ncclResult_t (*destroy)(void *ctx);
} ncclTuner_v4_t;

/* ---- profiler ---- */

enum { ncclProfileGroup = 1 << 0, ncclProfileColl = 1 << 1, ncclProfileP2p = 1 << 2,
       ncclProfileProxyOp = 1 << 3, ncclProfileKernelCh = 1 << 6 };
#define ncclProfilerKernelChStop 22   /* ncclProfilerEventState_t */

typedef struct {
	uint64_t type;              /* ncclProfileColl ... */
	void *parentObj;            /* the parent event's handle (a coll's group; a kernel channel's coll) */
	int rank;
	union {
		struct {
			uint64_t seqNumber;
			const char *func;   /* "AllReduce" ... */
			const void *sendBuff;
			void *recvBuff;
			size_t count;       /* elements, as the call gave them */
			int root;
			const char *datatype;   /* "ncclFloat32" ... */
			uint8_t nChannels, nWarps;
			const char *algo, *proto;   /* "RING", "SIMPLE" ... */
		} coll;
		struct {
			uint8_t channelId;
			uint64_t pTimer;    /* start, GPU globaltimer [ns] */
		} kernelCh;
	};
} ncclProfilerEventDescr_prefix_t;

typedef union {
	struct {
		uint64_t pTimer;        /* a kernel channel's stop [ns] */
	} kernelCh;
} ncclProfilerEventStateArgs_prefix_t;

typedef struct {
	const char *name;
	ncclResult_t (*init)(void **ctx, uint64_t commId, int *eActivationMask, const char *commName, int nNodes,
	                     int nranks, int rank, ncclDebugLogger_t logfn);
	ncclResult_t (*startEvent)(void *ctx, void **eHandle, ncclProfilerEventDescr_prefix_t *eDescr);
	ncclResult_t (*stopEvent)(void *eHandle);
	ncclResult_t (*recordEventState)(void *eHandle, int eState, ncclProfilerEventStateArgs_prefix_t *eStateArgs);
	ncclResult_t (*finalize)(void *ctx);
} ncclProfiler_vN_t;   /* v5 and v6: the same table over their own descriptor types */

#endif
