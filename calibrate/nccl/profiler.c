/*
** calibrate/nccl/profiler.c: libnccl-profiler-ccsim.so, an NCCL profiler
** plugin (nccl_abi.h; NCCL_PROFILER_PLUGIN=ccsim or the library's path)
** that writes one line per collective of a running job in a form `ccsim
** calibrate ingest` reads (calibrate/pl.c), so that a production job is a
** calibration run.
**
** Events: it asks NCCL for collectives (ncclProfileColl) and their kernel
** channels (ncclProfileKernelCh, whose start and stop carry the GPU's
** globaltimer).  NCCL's order (src/plugin/profiler.cc, 2.30.7: the host
** stops the collective in ncclProfilerStopTaskEvents as soon as it is
** queued; the proxy thread later starts one KernelCh event per channel of
** the task with the stopped collective as parent, records its stop timer
** and stops it): a collective's record therefore lives in a per-communicator
** pool of PROF_SLOTS slots, never freed before finalize, and is written when
** the collective and its nChannels channels have all stopped (a reference
** count of 1 + nChannels).  Its time is the last channel's stop less the
** first channel's start, the GPU time nccl-tests' own timing also sees.  A
** collective whose channels never come (kernel events off, or fewer than
** it announced) is written when its slot is needed again or at finalize,
** with its host enqueue time and clock=host: `calibrate ingest` skips those.
** A channel event whose slot was reused since it started (a generation
** count) is ignored.
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

#define PROF_SLOTS 256   /* collectives in flight per communicator */
#define PROF_MAXCH 64     /* NCCL's MAXCHANNELS */

enum { PROF_COLL = 1, PROF_CHAN = 2 };

struct prof_coll;

/* a kernel channel's handle: its slot and the slot's generation then */
struct prof_chan {
	int kind;   /* PROF_CHAN */
	uint32_t gen;
	struct prof_coll *c;
};

/* a collective being timed, in its communicator's pool: one reference for
 * itself, one per channel it announced; live 1 until written */
struct prof_coll {
	int kind;   /* PROF_COLL */
	uint32_t gen;
	int live, refs;
	uint64_t hash;
	int nranks, nnodes, rank;
	char func[24], type[24], algo[24], proto[24];
	uint64_t seq, count;
	int channels, inplace;
	uint64_t host0, host1, k0, k1;   /* ns; k0 UINT64_MAX / k1 0: no channel seen */
	struct prof_chan ch[PROF_MAXCH];
};

struct prof_comm {
	uint64_t hash, seen, next;
	int nranks, nnodes, rank;
	uint64_t sample;
	ncclDebugLogger_t log;
	struct prof_coll *slot;   /* PROF_SLOTS */
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
#define PROF_MAX_MB 1048576   /* CCSIM_PROFILE_MAX_MB's ceiling: 1 TiB */
#define prof_warn(...) \
	do { if (prof_open_log) prof_open_log(NCCL_LOG_WARN, NCCL_PROFILE, __FILE__, __LINE__, "PROFILER/ccsim: " __VA_ARGS__); } while (0)

static void prof_open_once(void)
{
	const char *dir = getenv("CCSIM_PROFILE_DIR"), *mx = getenv("CCSIM_PROFILE_MAX_MB");
	char host[128] = "unknown";
	gethostname(host, sizeof host - 1);
	/* CCSIM_PROFILE_MAX_MB: a whole number of MiB, 1 to PROF_MAX_MB (1 TiB);
	 * anything else keeps the default of 64 with a WARN */
	unsigned long mb = 64;
	if (mx && *mx) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(mx, &end, 10);
		if (errno || *end || end == mx || v < 1 || v > PROF_MAX_MB || *mx == '-')
			prof_warn("CCSIM_PROFILE_MAX_MB='%.40s' is not a whole number of MiB from 1 to %d; 64 MiB",
			          mx, PROF_MAX_MB);
		else
			mb = (unsigned long)v;
	}
	prof_max = mb << 20;
	int pn = snprintf(prof_path, sizeof prof_path, "%s/ccsim-profile-%s-%ld.log", dir && *dir ? dir : ".", host,
	                  (long)getpid());
	if (pn < 0 || pn >= (int)sizeof prof_path) {
		prof_warn("CCSIM_PROFILE_DIR is %zu characters, too long for a log path of %zu; not profiling",
		          dir ? strlen(dir) : 0, sizeof prof_path - 1);
		return;
	}
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

static void prof_emit(struct prof_coll *c, int host_only)
{
	int gpu = !host_only && c->k1 > c->k0 && c->k0 != UINT64_MAX;
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

/* Write c once: whoever takes it from live writes it (its last reference,
 * or its slot being needed again, or finalize). */
static void prof_finish(struct prof_coll *c, int host_only)
{
	int one = 1;
	if (__atomic_compare_exchange_n(&c->live, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		prof_emit(c, host_only);
}

static void prof_unref(struct prof_coll *c)
{
	if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
		prof_finish(c, 0);
}

/* A slot needed again: late channel events of its old collective no longer
 * match its generation, and the old collective is written as host-only. */
static void prof_retire(struct prof_coll *c)
{
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&c->live, __ATOMIC_ACQUIRE))
		prof_finish(c, 1);
}

static ncclResult_t prof_init(void **ctx, uint64_t commId, int *mask, const char *commName, int nNodes, int nranks,
                              int rank, ncclDebugLogger_t logfn)
{
	(void)commName;
	*ctx = NULL;
	*mask = 0;
	struct prof_comm *pc = calloc(1, sizeof *pc);
	if (pc)
		pc->slot = calloc(PROF_SLOTS, sizeof *pc->slot);
	if (!pc || !pc->slot || prof_open(logfn)) {
		if (logfn)
			logfn(NCCL_LOG_WARN, NCCL_PROFILE, __FILE__, __LINE__, "PROFILER/ccsim: %s; not profiling this communicator",
			      !pc || !pc->slot ? "out of memory" : "no log");
		if (pc)
			free(pc->slot);
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
		struct prof_coll *c = &pc->slot[pc->next++ % PROF_SLOTS];
		prof_retire(c);
		c->kind = PROF_COLL;
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
		c->host1 = 0;
		__atomic_store_n(&c->k0, UINT64_MAX, __ATOMIC_RELAXED);
		__atomic_store_n(&c->k1, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->refs, 1 + (c->channels < PROF_MAXCH ? c->channels : PROF_MAXCH), __ATOMIC_RELAXED);
		__atomic_store_n(&c->live, 1, __ATOMIC_RELEASE);
		*h = c;
	} else if (e->type == ncclProfileKernelCh && e->parentObj && *(int *)e->parentObj == PROF_COLL) {
		struct prof_coll *c = e->parentObj;
		if (!__atomic_load_n(&c->live, __ATOMIC_ACQUIRE))
			return ncclSuccess;   /* already written (it announced fewer channels) */
		struct prof_chan *ch = &c->ch[e->kernelCh.channelId % PROF_MAXCH];
		ch->kind = PROF_CHAN;
		ch->c = c;
		ch->gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		uint64_t t = e->kernelCh.pTimer, cur = __atomic_load_n(&c->k0, __ATOMIC_RELAXED);
		while (t < cur && !__atomic_compare_exchange_n(&c->k0, &cur, t, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		*h = ch;
	}
	return ncclSuccess;
}

/* A channel handle still of its slot's collective. */
static int prof_current(const struct prof_chan *ch)
{
	return ch->gen == __atomic_load_n(&ch->c->gen, __ATOMIC_ACQUIRE) && __atomic_load_n(&ch->c->live, __ATOMIC_ACQUIRE);
}

/* Handles are told apart by their first field, kind. */
static ncclResult_t prof_record(void *h, int state, ncclProfilerEventStateArgs_prefix_t *a)
{
	if (!h || *(int *)h != PROF_CHAN || state != ncclProfilerKernelChStop || !a)
		return ncclSuccess;
	if (!prof_current(h))
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
	} else if (prof_current(h)) {
		prof_unref(((struct prof_chan *)h)->c);
	}
	return ncclSuccess;
}

/* The communicator's collectives still waiting for channels are written as
 * host-only, then its pool goes. */
static ncclResult_t prof_finalize(void *ctx)
{
	struct prof_comm *pc = ctx;
	if (!pc)
		return ncclSuccess;
	for (int i = 0; i < PROF_SLOTS; i++)
		prof_retire(&pc->slot[i]);
	free(pc->slot);
	free(pc);
	return ncclSuccess;
}

/* NCCL looks up ncclProfiler_v6 (2.29.2 and later; its newest,
 * src/include/plugin/nccl_profiler.h at 5067397c) and ncclProfiler_v5
 * (2.28.x); their descriptors share the prefix nccl_abi.h declares. */
EXPORT const ncclProfiler_vN_t ncclProfiler_v6 = { "ccsim", prof_init, prof_start, prof_stop, prof_record,
                                                   prof_finalize };
EXPORT const ncclProfiler_vN_t ncclProfiler_v5 = { "ccsim", prof_init, prof_start, prof_stop, prof_record,
                                                   prof_finalize };
