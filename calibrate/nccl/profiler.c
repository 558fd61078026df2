/*
** calibrate/nccl/profiler.c: libnccl-profiler-ccsim.so, an NCCL profiler
** plugin (nccl_abi.h; NCCL_PROFILER_PLUGIN=ccsim or the library's path)
** that writes one line per collective of a running job in a form `ccsim
** calibrate ingest` reads (calibrate/pl.c), so that a production job is a
** calibration run.
**
** Events: it asks NCCL for collectives (ncclProfileColl) and their kernel
** channels (ncclProfileKernelCh, whose start and stop carry the GPU's
** globaltimer).  A collective's time is its last channel's stop less its
** first channel's start, the GPU time nccl-tests' own timing also sees; a
** collective with no channel events (kernel events off) gets the host time
** between NCCL's start and stop of the collective event.  Its line goes out
** when the collective and all its channels have stopped (a reference count:
** NCCL may stop them on different threads).
**
** The log (CCSIM_PROFILE_DIR, default the working directory):
** ccsim-profile-HOST-PID.log, one per process, opened O_APPEND; every line is
** one write(2) of a line built on the stack, so no lock is taken on the hot
** path.  "# ccsim-profiler 1" and "# host:" start it; a record is
**   coll comm=HASH ranks=N nodes=M rank=R seq=S func=AllReduce count=C
**   type=ncclFloat32 algo=RING proto=SIMPLE channels=K place=oop
**   start_ns=T0 time_ns=T clock=gpu
** (start_ns: the GPU globaltimer, or CLOCK_MONOTONIC with clock=host)
** CCSIM_PROFILE_SAMPLE=N records every Nth collective of a communicator
** (default 1); CCSIM_PROFILE_MAX_MB (default 64) rotates: past it the file
** is renamed to .log.1 (replacing an older one) and a new one started.
*/
#include "nccl_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define PROF_LINE 512

struct prof_comm {
	uint64_t hash, seen;
	int nranks, nnodes, rank;
	uint64_t sample;
	ncclDebugLogger_t log;
};

enum { PROF_COLL = 1, PROF_CHAN = 2 };

/* a collective being timed: one reference for itself, one per live channel;
 * it keeps its communicator's fields (the comm may finalize first) */
struct prof_coll {
	int kind;   /* PROF_COLL */
	int refs;
	uint64_t hash;
	int nranks, nnodes, rank;
	char func[24], type[24], algo[24], proto[24];
	uint64_t seq, count;
	int channels, inplace;
	uint64_t host0, host1, k0, k1;   /* ns; k0 UINT64_MAX / k1 0: no channel seen */
};

struct prof_chan {
	int kind;   /* PROF_CHAN */
	struct prof_coll *c;
};

/* the process's log: its descriptor, path and bytes written */
static int prof_fd = -1;
static char prof_path[1024];
static unsigned long prof_bytes, prof_max;

static uint64_t prof_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void prof_header(int fd)
{
	char host[128] = "unknown", b[256];
	gethostname(host, sizeof host - 1);
	int n = snprintf(b, sizeof b, "# ccsim-profiler 1\n# host: %s\n# pid: %ld\n", host, (long)getpid());
	if (n > 0 && write(fd, b, (size_t)n) < 0)
		return;
}

/* Open the log: once per process, by pthread_once, so that a second
 * communicator initialising on another thread waits for the first. */
static ncclDebugLogger_t prof_open_log;
static pthread_once_t prof_once = PTHREAD_ONCE_INIT;

static void prof_open_once(void)
{
	const char *dir = getenv("CCSIM_PROFILE_DIR"), *mx = getenv("CCSIM_PROFILE_MAX_MB");
	char host[128] = "unknown";
	gethostname(host, sizeof host - 1);
	prof_max = (mx && atol(mx) > 0 ? (unsigned long)atol(mx) : 64ul) << 20;
	snprintf(prof_path, sizeof prof_path, "%s/ccsim-profile-%s-%ld.log", dir && *dir ? dir : ".", host,
	         (long)getpid());
	int fd = open(prof_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (prof_open_log)
			prof_open_log(NCCL_LOG_WARN, NCCL_PROFILE, __FILE__, __LINE__,
			              "PROFILER/ccsim: cannot open %s: %s; not profiling", prof_path, strerror(errno));
		return;
	}
	prof_header(fd);
	__atomic_store_n(&prof_fd, fd, __ATOMIC_RELEASE);
}

static int prof_open(ncclDebugLogger_t log)
{
	prof_open_log = log;
	pthread_once(&prof_once, prof_open_once);
	return __atomic_load_n(&prof_fd, __ATOMIC_ACQUIRE) >= 0 ? 0 : -1;
}

/* Past the size limit: the thread that crosses it renames the log to .1
 * and starts a new one.  The replaced descriptor stays open for writers
 * that loaded it a moment before; the one replaced a rotation earlier
 * (a whole log of lines ago) is closed. */
static int prof_old_fd = -1;

static void prof_rotate(void)
{
	char old[1100];
	snprintf(old, sizeof old, "%s.1", prof_path);
	if (rename(prof_path, old))
		return;
	int fd = open(prof_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	prof_header(fd);
	int stale = prof_old_fd;
	prof_old_fd = __atomic_exchange_n(&prof_fd, fd, __ATOMIC_ACQ_REL);
	if (stale >= 0)
		close(stale);
}

static void prof_emit(struct prof_coll *c)
{
	int gpu = c->k1 > c->k0 && c->k0 != UINT64_MAX;
	uint64_t t = gpu ? c->k1 - c->k0 : c->host1 > c->host0 ? c->host1 - c->host0 : 0;
	char b[PROF_LINE];
	int n = snprintf(b, sizeof b,
	                 "coll comm=%llx ranks=%d nodes=%d rank=%d seq=%llu func=%s count=%llu type=%s algo=%s proto=%s "
	                 "channels=%d place=%s start_ns=%llu time_ns=%llu clock=%s\n",
	                 (unsigned long long)c->hash, c->nranks, c->nnodes, c->rank,
	                 (unsigned long long)c->seq, c->func, (unsigned long long)c->count, c->type, c->algo, c->proto,
	                 c->channels, c->inplace ? "ip" : "oop", (unsigned long long)(gpu ? c->k0 : c->host0),
	                 (unsigned long long)t, gpu ? "gpu" : "host");
	int fd = __atomic_load_n(&prof_fd, __ATOMIC_ACQUIRE);
	if (n <= 0 || n >= (int)sizeof b || fd < 0 || write(fd, b, (size_t)n) != n)
		return;
	unsigned long before = __atomic_fetch_add(&prof_bytes, (unsigned long)n, __ATOMIC_RELAXED);
	if (before < prof_max && before + (unsigned long)n >= prof_max) {
		prof_rotate();
		__atomic_store_n(&prof_bytes, 0, __ATOMIC_RELAXED);
	}
}

static void prof_unref(struct prof_coll *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		prof_emit(c);
		free(c);
	}
}

static ncclResult_t prof_init(void **ctx, uint64_t commId, int *mask, const char *commName, int nNodes, int nranks,
                              int rank, ncclDebugLogger_t logfn)
{
	(void)commName;
	*ctx = NULL;
	*mask = 0;
	struct prof_comm *pc = calloc(1, sizeof *pc);
	if (!pc || prof_open(logfn)) {
		free(pc);
		return ncclSuccess;   /* nothing asked for: NCCL runs unprofiled */
	}
	const char *s = getenv("CCSIM_PROFILE_SAMPLE");
	pc->sample = s && atol(s) > 0 ? (uint64_t)atol(s) : 1;
	pc->hash = commId;
	pc->nranks = nranks;
	pc->nnodes = nNodes;
	pc->rank = rank;
	pc->log = logfn;
	*mask = ncclProfileColl | ncclProfileKernelCh;
	*ctx = pc;
	if (logfn)
		logfn(NCCL_LOG_INFO, NCCL_PROFILE | NCCL_INIT, __FILE__, __LINE__,
		      "PROFILER/ccsim: comm %llx rank %d of %d: every %llu collective(s) into %s", (unsigned long long)commId,
		      rank, nranks, (unsigned long long)pc->sample, prof_path);
	return ncclSuccess;
}

static void copy_str(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s && *s ? s : "-");
	for (char *p = dst; *p; p++)
		if (*p == ' ' || *p == '=' || *p == '\n')
			*p = '_';
}

/* Whether the call is in place, as nccl-tests' "ip" half: the same buffer,
 * or (AllGather, ReduceScatter) this rank's slice of the other. */
static int prof_inplace(const ncclProfilerEventDescr_prefix_t *e, int rank)
{
	const char *s = e->coll.sendBuff, *r = e->coll.recvBuff, *f = e->coll.func ? e->coll.func : "";
	const char *t = e->coll.datatype ? e->coll.datatype : "";
	size_t es = strstr(t, "64") ? 8 : strstr(t, "32") ? 4 : strstr(t, "16") ? 2 : 1;
	size_t off = (size_t)(rank > 0 ? rank : 0) * e->coll.count * es;
	if (s == r)
		return 1;
	if (!strcmp(f, "AllGather"))
		return s && r && s == r + off;
	if (!strcmp(f, "ReduceScatter"))
		return s && r && r == s + off;
	return 0;
}

static ncclResult_t prof_start(void *ctx, void **h, ncclProfilerEventDescr_prefix_t *e)
{
	*h = NULL;
	struct prof_comm *pc = ctx;
	if (!pc || !e)
		return ncclSuccess;
	if (e->type == ncclProfileColl) {
		if (pc->seen++ % pc->sample)
			return ncclSuccess;
		struct prof_coll *c = calloc(1, sizeof *c);
		if (!c)
			return ncclSuccess;
		c->kind = PROF_COLL;
		c->refs = 1;
		c->hash = pc->hash;
		c->nranks = pc->nranks;
		c->nnodes = pc->nnodes;
		c->rank = pc->rank;
		copy_str(c->func, sizeof c->func, e->coll.func);
		copy_str(c->type, sizeof c->type, e->coll.datatype);
		copy_str(c->algo, sizeof c->algo, e->coll.algo);
		copy_str(c->proto, sizeof c->proto, e->coll.proto);
		c->seq = e->coll.seqNumber;
		c->inplace = prof_inplace(e, pc->rank);
		c->count = e->coll.count;
		c->channels = e->coll.nChannels;
		c->host0 = prof_now();
		c->k0 = UINT64_MAX;
		*h = c;
	} else if (e->type == ncclProfileKernelCh && e->parentObj && *(int *)e->parentObj == PROF_COLL) {
		struct prof_coll *c = e->parentObj;
		struct prof_chan *ch = malloc(sizeof *ch);
		if (!ch)
			return ncclSuccess;
		ch->kind = PROF_CHAN;
		ch->c = c;
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
		uint64_t t = e->kernelCh.pTimer, cur = __atomic_load_n(&c->k0, __ATOMIC_RELAXED);
		while (t < cur && !__atomic_compare_exchange_n(&c->k0, &cur, t, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		*h = ch;
	}
	return ncclSuccess;
}

/* Handles are told apart by their first field, kind. */
static ncclResult_t prof_record(void *h, int state, ncclProfilerEventStateArgs_prefix_t *a)
{
	if (!h || *(int *)h != PROF_CHAN || state != ncclProfilerKernelChStop || !a)
		return ncclSuccess;
	struct prof_coll *c = ((struct prof_chan *)h)->c;
	uint64_t t = a->kernelCh.pTimer, cur = __atomic_load_n(&c->k1, __ATOMIC_RELAXED);
	while (t > cur && !__atomic_compare_exchange_n(&c->k1, &cur, t, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return ncclSuccess;
}

static ncclResult_t prof_stop(void *h)
{
	if (!h)
		return ncclSuccess;
	if (*(int *)h == PROF_COLL) {
		struct prof_coll *c = h;
		c->host1 = prof_now();
		prof_unref(c);
	} else {
		struct prof_chan *ch = h;
		prof_unref(ch->c);
		free(ch);
	}
	return ncclSuccess;
}

static ncclResult_t prof_finalize(void *ctx)
{
	free(ctx);
	return ncclSuccess;
}

EXPORT const ncclProfiler_vN_t ncclProfiler_v7 = { "ccsim", prof_init, prof_start, prof_stop, prof_record,
                                                   prof_finalize };
EXPORT const ncclProfiler_vN_t ncclProfiler_v6 = { "ccsim", prof_init, prof_start, prof_stop, prof_record,
                                                   prof_finalize };
EXPORT const ncclProfiler_vN_t ncclProfiler_v5 = { "ccsim", prof_init, prof_start, prof_stop, prof_record,
                                                   prof_finalize };
