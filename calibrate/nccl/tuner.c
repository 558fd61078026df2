/*
** calibrate/nccl/tuner.c: libnccl-tuner-ccsim.so, an NCCL tuner plugin
** (nccl_abi.h; NCCL_TUNER_PLUGIN=ccsim or the library's path) that prices
** every (algorithm, protocol) NCCL offers with ccsim's model of the machine.
**
** init: the machine from CCSIM_TOPOLOGY (a topology YAML, or an NCCL
** topology dump, NCCL_TOPO_DUMP_FILE's XML, imported as `ccsim topo import`
** does), calibrated by CCSIM_CALIBRATION (a `ccsim calibrate fit` output,
** applied as the topology's 'calibration' key), with NCCL's node count
** (--set nodes=N where the topology is a template) and a communicator of
** NCCL's nRanks, ranks spread evenly over the nodes.  Init never fails a
** communicator (NCCL wraps it in NCCLCHECK, src/init.cc): any problem is
** logged through NCCL's logger (one WARN with the reason and file position,
** "NCCL's own tuning for this communicator") and init returns ncclSuccess
** with no context; getCollInfo without one leaves NCCL's table untouched.
**
** Versions (NCCL's headers, src/include/plugin/tuner/, at 5067397c): NCCL
** looks up its newest symbol first: ncclTunerPlugin_v6 (NCCL 2.30.3 and
** later), _v5 (2.28.3-2.29.x: NVLink-domain info and NCCL's constants at
** init), _v4 (2.26.2-2.27.x).  No v7 exists.  Init logs which one loaded.
**
** getCollInfo: for the five tuned collectives, entry [a][p] of the cost
** table that NCCL offers (not NCCL_ALGO_PROTO_IGNORE) becomes ccsim's
** predicted time in microseconds (ccs_cost_eval with NCCL's channel count);
** a pair ccsim cannot price (its model says the hardware lacks it) keeps
** NCCL's value.  NCCL then takes the smallest entry, which is the choice of
** `ccsim predict --best` among the offered pairs.  For that pair, a ring or
** a tree, nChannels is set to the fewest channels (a power of two below
** the count NCCL itself would use at that size, tuner_nccl_nc) at which
** the model's time stays within 0.1% of its time on NCCL's count: the same
** time on fewer SMs (tuner_fewer); else it is left to NCCL.  It is never
** above NCCL's own count.
** Prices are cached per (collective, size) in a table of TUNER_CACHE slots,
** TUNER_PROBE places per key: a hit costs a hash and a pass over the table.
*/
#include "nccl_abi.h"

#include "../../model/cost.h"
#include "../../model/topo_yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TUNER_CACHE 1024   /* slots (a power of two): 113 KiB per communicator */
#define TUNER_PROBE 4      /* places a key may take, from its hash on */
#define EXPORT __attribute__((visibility("default")))

/* NCCL's protocol and collective numbers -> ccsim's (its algorithms':
 * ccs_algo_of_nccl, model/coll.h) */
static const int tuner_proto[NCCL_NUM_PROTOCOLS_V5] = {
	[NCCL_PROTO_LL] = CCS_PROTO_LL, [NCCL_PROTO_LL128] = CCS_PROTO_LL128, [NCCL_PROTO_SIMPLE] = CCS_PROTO_SIMPLE,
};
static const int tuner_coll[5] = {
	[ncclFuncBroadcast] = CCS_COLL_BROADCAST, [ncclFuncReduce] = CCS_COLL_REDUCE,
	[ncclFuncAllGather] = CCS_COLL_ALLGATHER, [ncclFuncReduceScatter] = CCS_COLL_REDUCESCATTER,
	[ncclFuncAllReduce] = CCS_COLL_ALLREDUCE,
};

struct tuner_slot {
	uint64_t key;   /* (bytes << 3 | coll) + 1; 0: empty */
	float us[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];   /* -1: not priced */
	uint8_t ch[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5]; /* fewer channels the model prefers; 0: NCCL's */
};

struct tuner {
	struct ccs_topo *t;
	struct ccs_comm c;
	ncclDebugLogger_t log;
	uint64_t hits, misses;
	struct tuner_slot slot[TUNER_CACHE];
};

#define TLOG(T, lvl, ...) \
	do { if ((T)->log) (T)->log(lvl, NCCL_TUNING | NCCL_INIT, __FILE__, __LINE__, __VA_ARGS__); } while (0)

/* The topology at path with sets[0..n): a YAML file, or an NCCL dump
 * (one node, a template) imported with nodes=N set for nNodes > 0 and its
 * import warnings sent to NCCL's log. */
static int tuner_load(const struct tuner *T, const char *path, const char *const *sets, int n, size_t nNodes,
                      struct ccs_topo **t, struct ccs_diag *d)
{
	FILE *f = fopen(path, "r");
	int c = ' ';
	if (f) {
		while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
			;
		fclose(f);
	}
	if (c != '<')
		return ccs_topo_yaml_load(path, sets, n, t, d);
	char *yaml, *warn, nset[64];
	const char *all[3] = { n > 0 ? sets[0] : NULL, NULL, NULL };
	if (nNodes > 0) {
		snprintf(nset, sizeof nset, "nodes=%zu", nNodes);
		all[n++] = nset;
	}
	int rc = ccs_topo_yaml_import(path, &yaml, &warn, d);
	if (rc)
		return rc;
	rc = ccs_topo_yaml_load_buf(path, yaml, strlen(yaml), all, n, t, d);
	for (char *w = warn, *nl; w && *w; w = nl ? nl + 1 : w + strlen(w)) {
		nl = strchr(w, '\n');
		TLOG(T, NCCL_LOG_INFO, "TUNER/ccsim: %.*s", (int)(nl ? nl - w : (long)strlen(w)), w);
	}
	ccs_free(yaml);
	ccs_free(warn);
	return rc;
}

/* The machine for nNodes nodes, calibrated: CCS_OK, or an error with the
 * reason in d. */
static int tuner_machine(struct tuner *T, const char *topo, const char *calib, size_t nNodes, struct ccs_diag *d)
{
	char cset[4200], nset[64];
	const char *sets[2];
	int n = 0;
	if (calib && *calib) {
		if (snprintf(cset, sizeof cset, "calibration=%s", calib) >= (int)sizeof cset)
			return ccs_diag_msg(d, "CCSIM_CALIBRATION: a path of over 4,000 characters"), CCS_EINPUT;
		sets[n++] = cset;
	}
	int rc = tuner_load(T, topo, sets, n, nNodes, &T->t, d);
	if (rc || nNodes == 0 || T->t->nnodes == (int32_t)nNodes)
		return rc;
	/* a template: as many nodes as NCCL has */
	ccs_topo_free(T->t);
	T->t = NULL;
	snprintf(nset, sizeof nset, "nodes=%zu", nNodes);
	sets[n++] = nset;
	return tuner_load(T, topo, sets, n, 0, &T->t, d);
}

/* path names a regular file: 0; else -1 with why in err (a FIFO would
 * block NCCL's init in open, a directory reads as nothing). */
static int tuner_regular(const char *path, const char *var, char *err, size_t errn)
{
	struct stat st;
	if (stat(path, &st)) {
		snprintf(err, errn, "%s=%s: %s", var, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errn, "%s=%s is not a regular file (%s)", var, path,
		         S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
		return -1;
	}
	return 0;
}

static ncclResult_t tuner_init(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t log,
                               ncclNvlDomainInfo_v5_t *nvl, int version)
{
	*ctx = NULL;
	struct tuner *T = ccs_calloc(1, sizeof *T);
	if (!T) {
		if (log)
			log(NCCL_LOG_WARN, NCCL_TUNING, __FILE__, __LINE__, "TUNER/ccsim: out of memory; NCCL's own tuning");
		return ncclSuccess;
	}
	T->log = log;
	const char *topo = getenv("CCSIM_TOPOLOGY"), *calib = getenv("CCSIM_CALIBRATION");
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	char err[sizeof d.msg + 64];
	err[0] = 0;
	int rc = CCS_EINPUT;
	if (!topo || !*topo)
		snprintf(err, sizeof err, "CCSIM_TOPOLOGY is not set (a topology YAML or an NCCL topology dump)");
	else if (tuner_regular(topo, "CCSIM_TOPOLOGY", err, sizeof err) ||
	         (calib && *calib && tuner_regular(calib, "CCSIM_CALIBRATION", err, sizeof err)))
		rc = CCS_EINPUT;
	else if ((rc = tuner_machine(T, topo, calib, nNodes, &d)))
		snprintf(err, sizeof err, "%s", d.msg[0] ? d.msg : "the topology did not load");
	else if (nRanks > (size_t)T->t->ngpu)
		snprintf(err, sizeof err, "%zu ranks but %s has %u GPUs", nRanks, topo, T->t->ngpu), rc = CCS_EINPUT;
	else {
		int ppn = nNodes && nRanks % nNodes == 0 ? (int)(nRanks / nNodes) : 0;
		rc = ccs_comm_build(T->t, (int)nRanks, ppn, &T->c, err, sizeof err);
	}
	if (rc) {
		TLOG(T, NCCL_LOG_WARN, "TUNER/ccsim: %s; NCCL's own tuning for this communicator", err);
		if (T->t)
			ccs_topo_free(T->t);
		ccs_free(T);
		return ncclSuccess;   /* never fail the communicator: no context, NCCL's tuning */
	}
	if (nvl && nvl->nNvlDomains > 0 && nvl->nNvlDomains != T->c.G)
		TLOG(T, NCCL_LOG_INFO, "TUNER/ccsim: NCCL sees %d NVLink domains, the topology %d groups", nvl->nNvlDomains,
		     T->c.G);
	TLOG(T, NCCL_LOG_INFO, "TUNER/ccsim: ncclTunerPlugin_v%d: comm %llx: %zu ranks on %zu nodes priced on %s%s%s",
	     version, (unsigned long long)commId, nRanks, nNodes, topo, calib && *calib ? ", calibrated by " : "",
	     calib && *calib ? calib : "");
	*ctx = T;
	return ncclSuccess;
}

static ncclResult_t tuner_init_v5(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t log,
                                  ncclNvlDomainInfo_v5_t *nvl, ncclTunerConstants_v5_t *constants)
{
	(void)constants;
	return tuner_init(ctx, commId, nRanks, nNodes, log, nvl, 5);
}

static ncclResult_t tuner_init_v6(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes, ncclDebugLogger_t log,
                                  ncclNvlDomainInfo_v5_t *nvl, ncclTunerConstants_v5_t *constants)
{
	(void)constants;
	return tuner_init(ctx, commId, nRanks, nNodes, log, nvl, 6);
}

static ncclResult_t tuner_init_v4(size_t nRanks, size_t nNodes, ncclDebugLogger_t log, void **ctx)
{
	return tuner_init(ctx, 0, nRanks, nNodes, log, NULL, 4);
}

/* The channels NCCL itself runs a ring or a tree on at nBytes
 * (src/enqueue.cc, topoGetAlgoInfo, 2.30.7): from its count down while
 * nBytes < nc x threads x threshold, threads NCCL_LL_MAX_NTHREADS 512 (LL),
 * NCCL_LL128_MAX_NTHREADS 640, NCCL_SIMPLE_MAX_NTHREADS 512 (Simple;
 * src/include/device.h), thresholds NCCL_LL_THREAD_THRESHOLD 8 (x nRanks
 * for the ring), NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD
 * 64 (src/include/comm.h, src/graph/tuning.cc). */
static int tuner_nccl_nc(const struct ccs_comm *c, int algo, int proto, uint64_t bytes)
{
	int nc = ccs_nccl_channels(&c->nccl, algo);
	double nt = proto == CCS_PROTO_LL128 ? 640 : 512;
	double th = proto == CCS_PROTO_SIMPLE ? 64 : 8;
	if (algo == CCS_ALGO_RING && proto == CCS_PROTO_LL)
		th *= c->n;
	while (nc >= 2 && (double)bytes < nc * nt * th)
		nc--;
	return nc;
}

/* The fewest channels, below NCCL's count for a ring or a tree, at which
 * the model's time stays within TUNER_CH_TOL of t (NCCL's count): the same
 * time on fewer SMs, which the rest of the job can use.  0: NCCL's. */
#define TUNER_CH_TOL 1e-3
static int tuner_fewer(const struct ccs_comm *c, int coll, int algo, int proto, uint64_t bytes, double t)
{
	int full = tuner_nccl_nc(c, algo, proto, bytes);
	if ((algo != CCS_ALGO_RING && algo != CCS_ALGO_TREE) || full < 2 || full > 255)
		return 0;
	for (int k = 1; k < full; k *= 2) {
		struct ccs_cost cc;
		const char *why;
		if (!ccs_cost_eval(c, coll, algo, proto, k, bytes, &cc, &why) && cc.time_s <= t * (1 + TUNER_CH_TOL))
			return k;
	}
	return 0;
}

/* The cached prices of (coll, bytes), computed on a miss. */
static const struct tuner_slot *tuner_prices(struct tuner *T, int coll, uint64_t bytes)
{
	uint64_t key = (bytes << 3 | (uint64_t)coll) + 1;
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) >> 32;
	struct tuner_slot *s = NULL;
	for (int i = 0; i < TUNER_PROBE; i++) {
		struct tuner_slot *x = &T->slot[(h + (uint64_t)i) & (TUNER_CACHE - 1)];
		if (x->key == key) {
			T->hits++;
			return x;
		}
		if (!s && !x->key)
			s = x;
	}
	/* all its places taken: the next one in turn gives way */
	if (!s)
		s = &T->slot[(h + T->misses % TUNER_PROBE) & (TUNER_CACHE - 1)];
	T->misses++;
	s->key = key;
	for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; a++)
		for (int p = 0; p < NCCL_NUM_PROTOCOLS_V5; p++) {
			struct ccs_cost cc;
			const char *why;
			int bad = ccs_cost_eval(&T->c, tuner_coll[coll], ccs_algo_of_nccl(a), tuner_proto[p], 0, bytes, &cc, &why);
			s->us[a][p] = bad ? -1.0f : (float)(cc.time_s * 1e6);
			s->ch[a][p] = bad ? 0 : (uint8_t)tuner_fewer(&T->c, tuner_coll[coll], ccs_algo_of_nccl(a), tuner_proto[p], bytes,
			                                             cc.time_s);
		}
	return s;
}

static ncclResult_t tuner_coll_info(void *ctx, ncclFunc_t coll, size_t nBytes, int numPipeOps, float **collCostTable,
                                    int numAlgo, int numProto, int regBuff, int *nChannels)
{
	(void)numPipeOps;
	(void)regBuff;
	struct tuner *T = ctx;
	if (!T || !collCostTable || (int)coll < 0 || (int)coll > ncclFuncAllReduce || numAlgo <= 0 || numProto <= 0)
		return ncclSuccess;   /* not one we price (or an empty table): NCCL's table as it is */
	float *table = (float *)collCostTable;
	const struct tuner_slot *s = tuner_prices(T, (int)coll, nBytes);
	int na = numAlgo < NCCL_NUM_ALGORITHMS_V5 ? numAlgo : NCCL_NUM_ALGORITHMS_V5;
	int np = numProto < NCCL_NUM_PROTOCOLS_V5 ? numProto : NCCL_NUM_PROTOCOLS_V5;
	int best = -1;
	for (int a = 0; a < na; a++)
		for (int p = 0; p < np; p++) {
			float *e = &table[a * numProto + p];
			if (*e != NCCL_ALGO_PROTO_IGNORE && s->us[a][p] >= 0)
				*e = s->us[a][p];
			if (*e != NCCL_ALGO_PROTO_IGNORE && (best < 0 || *e < table[best]))
				best = a * numProto + p;
		}
	/* the pair NCCL will take: fewer channels where the model prefers them */
	int ba = best / numProto, bp = best % numProto;
	if (best >= 0 && nChannels && ba < na && bp < np && s->us[ba][bp] == table[best] && s->ch[ba][bp])
		*nChannels = s->ch[ba][bp];
	return ncclSuccess;
}

static ncclResult_t tuner_finalize(void *ctx)
{
	struct tuner *T = ctx;
	if (!T)
		return ncclSuccess;
	TLOG(T, NCCL_LOG_INFO, "TUNER/ccsim: %llu calls, %llu priced anew", (unsigned long long)(T->hits + T->misses),
	     (unsigned long long)T->misses);
	ccs_comm_release(&T->c);
	ccs_topo_free(T->t);
	ccs_free(T);
	return ncclSuccess;
}

EXPORT const ncclTuner_v6_t ncclTunerPlugin_v6 = { "ccsim", tuner_init_v6, tuner_coll_info, tuner_finalize, NULL };
EXPORT const ncclTuner_v5_t ncclTunerPlugin_v5 = { "ccsim", tuner_init_v5, tuner_coll_info, tuner_finalize };
EXPORT const ncclTuner_v4_t ncclTunerPlugin_v4 = { "ccsim", tuner_init_v4, tuner_coll_info, tuner_finalize };
