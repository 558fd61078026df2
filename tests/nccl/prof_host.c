/*
** tests/nccl/prof_host.c: loads the ccsim profiler plugin as NCCL does
** (dlopen, dlsym of ncclProfiler_v6 and _v5, as NCCL 2.29.2+ and 2.28 look
** them up, src/include/plugin/profiler/ at 5067397c; init with a logger)
** and replays NCCL's event order (src/plugin/profiler.cc: the host starts
** a Coll event and stops it once the collective is queued, in
** ncclProfilerStopTaskEvents; later the proxy thread starts a KernelCh event
** per channel with the stopped collective as parent, records its stop with
** the GPU timer and stops it), here with the channels on a second thread,
** beside the orders an older test used (channels started before the
** collective stops, or the collective stopped last); then reads the log it
** wrote back through `calibrate ingest`'s reader.  Checks: no v7 symbol;
** the activation mask; one line per sampled collective, with the channel
** span as its time (clock=gpu) in every order;
** the sampling rate; measurements per size equal to the medians of what
** was fed in; a log cut inside a line is read with a warning; rotation
** past CCSIM_PROFILE_MAX_MB leaves two logs that both read back;
** collectives whose channels never come are written at finalize with
** clock=host and skipped by ingest (a log of only those is refused).
** Under ASan (make test) a record freed too early is an error.
** With --bench: the plugin's cost per collective (one Coll event and its
** four channels, every one recorded), median over 20 batches.
** usage: nccl_prof_host LIB SCRATCH_DIR [--bench]
*/
#include "../check.h"
#include "../../calibrate/ingest.h"
#include "../../calibrate/nccl/nccl_abi.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NCH 4
#define PROF_LINE_MAX 512   /* the plugin's longest line */

static int nwarn;
static char warned[4096];   /* every WARN so far, one per line */

static void logger(ncclDebugLogLevel level, unsigned long flags, const char *file, int line, const char *fmt, ...)
{
	(void)flags;
	(void)file;
	(void)line;
	if (level != NCCL_LOG_WARN)
		return;
	nwarn++;
	size_t l = strlen(warned);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(warned + l, sizeof warned - l, fmt, ap);
	va_end(ap);
	l = strlen(warned);
	if (l + 1 < sizeof warned)
		strcat(warned, "\n");
}

enum { ORDER_NCCL, ORDER_EARLY, ORDER_LATE, ORDER_NONE };

/* A collective's kernel channels, as NCCL's proxy thread reports them */
struct chans {
	const ncclProfiler_vN_t *p;
	void *ctx, *coll;
	uint64_t t0, t_ns;
	void *h[NCH];
};

static void chans_start(struct chans *k)
{
	for (int c = 0; c < NCH; c++) {
		ncclProfilerEventDescr_prefix_t e;
		memset(&e, 0, sizeof e);
		e.type = ncclProfileKernelCh;
		e.parentObj = k->coll;
		e.kernelCh.channelId = (uint8_t)c;
		e.kernelCh.pTimer = k->t0 + 100 * (uint64_t)c;
		k->h[c] = NULL;
		CHECK(k->p->startEvent(k->ctx, &k->h[c], &e) == ncclSuccess && k->h[c]);
	}
}

static void chans_stop(struct chans *k)
{
	for (int c = 0; c < NCH; c++) {
		ncclProfilerEventStateArgs_prefix_t a;
		a.kernelCh.pTimer = c == NCH - 1 ? k->t0 + k->t_ns : k->t0 + k->t_ns / 2;
		CHECK(k->p->recordEventState(k->h[c], ncclProfilerKernelChStop, &a) == ncclSuccess);
		CHECK(k->p->stopEvent(k->h[c]) == ncclSuccess);
	}
}

static void *proxy_thread(void *arg)
{
	chans_start(arg);
	chans_stop(arg);
	return NULL;
}

/* One collective of S bytes of float on 16 ranks taking t_ns on the GPU:
 * its channels start 100 ns apart and the last stops t_ns after the first
 * started; order: NCCL's (the collective stopped, then its channels on
 * another thread), the channels started before it stops, it stopped last,
 * or no channel at all. */
static void one_coll(const ncclProfiler_vN_t *p, void *ctx, uint64_t seq, size_t count, uint64_t t_ns, int order)
{
	static float buf[2];
	ncclProfilerEventDescr_prefix_t e;
	memset(&e, 0, sizeof e);
	e.type = ncclProfileColl;
	e.coll.seqNumber = seq;
	e.coll.func = "AllReduce";
	e.coll.sendBuff = &buf[0];
	e.coll.recvBuff = &buf[1];
	e.coll.count = count;
	e.coll.datatype = "ncclFloat32";
	e.coll.nChannels = NCH;
	e.coll.algo = "RING";
	e.coll.proto = "SIMPLE";
	void *coll = NULL;
	CHECK(p->startEvent(ctx, &coll, &e) == ncclSuccess);
	if (!coll)
		return;   /* not sampled */
	struct chans k = { p, ctx, coll, 1000000 * seq, t_ns, { 0 } };
	if (order == ORDER_NCCL) {
		CHECK(p->stopEvent(coll) == ncclSuccess);
		pthread_t th;
		CHECK(pthread_create(&th, NULL, proxy_thread, &k) == 0);
		pthread_join(th, NULL);
		return;
	}
	if (order == ORDER_NONE) {
		CHECK(p->stopEvent(coll) == ncclSuccess);
		return;
	}
	chans_start(&k);
	if (order == ORDER_EARLY)
		CHECK(p->stopEvent(coll) == ncclSuccess);
	chans_stop(&k);
	if (order == ORDER_LATE)
		CHECK(p->stopEvent(coll) == ncclSuccess);
}

/* The log the plugin wrote into dir (one per process). */
static int find_log(const char *dir, char *path, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "ccsim-profile-", 14) && strstr(de->d_name, ".log") &&
		    !strstr(de->d_name, ".log.")) {
			snprintf(path, n, "%s/%s", dir, de->d_name);
			found = 1;
		}
	if (d)
		closedir(d);
	return found;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ns per profiled collective, the median of 20 batches of 5,000 */
static void bench(void *lib)
{
	const ncclProfiler_vN_t *p = dlsym(lib, "ncclProfiler_v6");
	void *ctx = NULL;
	int mask;
	setenv("CCSIM_PROFILE_SAMPLE", "1", 1);
	if (!p || p->init(&ctx, 7, &mask, "bench", 2, 16, 0, logger) || !ctx)
		return;
	double ns[20];
	for (int b = 0; b < 20; b++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < 5000; i++)
			one_coll(p, ctx, (uint64_t)i, 262144, 50000, ORDER_LATE);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns[b] = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 5000;
	}
	p->finalize(ctx);
	qsort(ns, 20, sizeof *ns, by_double);
	printf("profiler overhead per collective (1 Coll + %d channel events, line written): median %.0f ns, worst batch "
	       "%.0f ns\n", NCH, ns[10], ns[19]);
}

/* CCSIM_PROFILE_MAX_MB=1: past 1 MiB the log becomes .log.1 and a new one
 * starts with its header; both read back */
static void rotation(const char *libpath, const char *scratch)
{
	char dir[1024], path[1100], old[1200];
	snprintf(dir, sizeof dir, "%s/rot", scratch);
	mkdir(dir, 0755);
	setenv("CCSIM_PROFILE_DIR", dir, 1);
	setenv("CCSIM_PROFILE_MAX_MB", "1", 1);
	setenv("CCSIM_PROFILE_SAMPLE", "1", 1);
	void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	const ncclProfiler_vN_t *p = lib ? dlsym(lib, "ncclProfiler_v6") : NULL;
	void *ctx = NULL;
	int mask;
	CHECK(p && p->init(&ctx, 9, &mask, "rot", 2, 16, 0, logger) == ncclSuccess && ctx);
	for (int i = 0; ctx && i < 8000; i++)
		one_coll(p, ctx, (uint64_t)i, 262144, 50000, ORDER_LATE);
	if (ctx)
		p->finalize(ctx);
	if (lib)
		dlclose(lib);
	CHECK(find_log(dir, path, sizeof path));
	snprintf(old, sizeof old, "%s.1", path);
	struct stat st;
	CHECK(stat(old, &st) == 0 && st.st_size >= (1 << 20) && st.st_size < (1 << 20) + PROF_LINE_MAX);
	const char *logs[2] = { path, old };
	for (int i = 0; i < 2; i++) {
		struct ccs_meas_set set;
		struct ccs_diag d;
		memset(&set, 0, sizeof set);
		memset(&d, 0, sizeof d);
		CHECK(ccs_ingest_file(logs[i], &set, &d) == CCS_OK && set.n == 1 && set.nwarn == 0);
		ccs_meas_set_release(&set);
	}
}

/* Collectives whose kernel channels never come: written at finalize as
 * clock=host; ingest skips them with one warning, and refuses a log of
 * nothing else. */
static void host_only(const char *libpath, const char *scratch)
{
	char dir[1024], path[1100];
	snprintf(dir, sizeof dir, "%s/host", scratch);
	mkdir(dir, 0755);
	setenv("CCSIM_PROFILE_DIR", dir, 1);
	unsetenv("CCSIM_PROFILE_MAX_MB");
	setenv("CCSIM_PROFILE_SAMPLE", "1", 1);
	void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	const ncclProfiler_vN_t *p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
	void *ctx = NULL;
	int mask;
	CHECK(p && p->init(&ctx, 11, &mask, "host", 2, 16, 0, logger) == ncclSuccess && ctx);
	for (int i = 0; ctx && i < 10; i++)
		one_coll(p, ctx, (uint64_t)i, 262144, 50000, ORDER_NONE);
	if (ctx)
		p->finalize(ctx);
	if (lib)
		dlclose(lib);
	CHECK(find_log(dir, path, sizeof path));
	struct ccs_meas_set set;
	struct ccs_diag d;
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file(path, &set, &d) != CCS_OK && strstr(d.msg, "timed on the host") != NULL);
	ccs_meas_set_release(&set);
	/* beside timed ones: those read, the host ones skipped with a warning */
	FILE *f = fopen(path, "a");
	CHECK(f && fputs("coll comm=1 ranks=16 nodes=2 rank=0 seq=99 func=AllReduce count=262144 type=ncclFloat32 "
	                 "algo=RING proto=SIMPLE channels=4 place=oop start_ns=5 time_ns=51000 clock=gpu\n", f) >= 0);
	if (f)
		fclose(f);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file(path, &set, &d) == CCS_OK && set.n == 1 && set.m[0].iters == 1 && set.nwarn == 1);
	if (set.nwarn)
		printf("profiler: %s\n", set.warn[0]);
	ccs_meas_set_release(&set);
}

/* Environment edges: a CCSIM_PROFILE_DIR too long for a path is refused
 * with a WARN (it was cut, and the log went elsewhere), a CCSIM_PROFILE_MAX_MB
 * past 1 TiB or not a number keeps 64 MiB with a WARN (it wrapped to no
 * limit); the job runs either way. */
static void env_edges(const char *libpath, const char *scratch)
{
	static char dir[1400];
	snprintf(dir, sizeof dir, "%s/", scratch);
	while (strlen(dir) < 1200)
		strcat(dir, "d");
	setenv("CCSIM_PROFILE_DIR", dir, 1);
	void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	const ncclProfiler_vN_t *p = lib ? dlsym(lib, "ncclProfiler_v6") : NULL;
	void *ctx = (void *)1;
	int mask = -1;
	nwarn = 0;
	warned[0] = 0;
	CHECK(p && p->init(&ctx, 12, &mask, "long", 2, 16, 0, logger) == ncclSuccess);
	CHECK(ctx == NULL && mask == 0 && strstr(warned, "CCSIM_PROFILE_DIR is 12") != NULL && strstr(warned, "too long"));
	if (lib)
		dlclose(lib);
	static const char *const bad[] = { "99999999999999999999", "-5", "12abc", "1048577" };
	for (int i = 0; i < 4; i++) {
		char d2[1100];
		snprintf(d2, sizeof d2, "%s/mx%d", scratch, i);
		mkdir(d2, 0755);
		setenv("CCSIM_PROFILE_DIR", d2, 1);
		setenv("CCSIM_PROFILE_MAX_MB", bad[i], 1);
		lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
		p = lib ? dlsym(lib, "ncclProfiler_v6") : NULL;
		ctx = NULL;
		nwarn = 0;
		warned[0] = 0;
		CHECK(p && p->init(&ctx, 13, &mask, "mx", 2, 16, 0, logger) == ncclSuccess && ctx != NULL);
		CHECK(nwarn == 1 && strstr(warned, "CCSIM_PROFILE_MAX_MB") != NULL && strstr(warned, "64 MiB") != NULL);
		if (ctx)
			p->finalize(ctx);
		if (lib)
			dlclose(lib);
	}
	unsetenv("CCSIM_PROFILE_MAX_MB");
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: nccl_prof_host LIB SCRATCH_DIR\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nccl_prof_host: %s\n", dlerror());
		return 1;
	}
	setenv("CCSIM_PROFILE_DIR", argv[2], 1);
	if (argc > 3 && !strcmp(argv[3], "--bench")) {
		bench(lib);
		return 0;
	}
	setenv("CCSIM_PROFILE_SAMPLE", "2", 1);
	CHECK(dlsym(lib, "ncclProfiler_v7") == NULL);   /* NCCL defines no v7 */
	static const char *const syms[] = { "ncclProfiler_v6", "ncclProfiler_v5", "ncclProfiler_v6" };
	/* each symbol profiles one communicator (v6 twice): 40 AllReduces of
	 * 1 MiB and 40 of 64 MiB, every second one recorded, in the three
	 * orders in turn */
	for (int v = 0; v < 3; v++) {
		const ncclProfiler_vN_t *p = dlsym(lib, syms[v]);
		CHECK(p != NULL);
		if (!p)
			continue;
		void *ctx = NULL;
		int mask = 0;
		CHECK(p->init(&ctx, 0xabc0 + (uint64_t)v, &mask, "test", 2, 16, 0, logger) == ncclSuccess && ctx);
		CHECK((mask & (ncclProfileColl | ncclProfileKernelCh)) == (ncclProfileColl | ncclProfileKernelCh));
		for (uint64_t s = 0; s < 80; s++)
			one_coll(p, ctx, s, s < 40 ? 262144 : 16777216, s < 40 ? 50000 + 1000 * (s % 5) : 900000 + (s % 7) * 1000,
			         (int)(s % 3));
		CHECK(p->finalize(ctx) == ncclSuccess);
	}
	CHECK(nwarn == 0);
	dlclose(lib);
	char path[1024];
	CHECK(find_log(argv[2], path, sizeof path));
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file(path, &set, &d) == CCS_OK);
	/* two series, 1 MiB and 64 MiB, 60 records each (3 comms x 20 sampled) */
	CHECK(set.n == 2);
	for (size_t i = 0; i < set.n; i++) {
		const struct ccs_meas *m = &set.m[i];
		CHECK(!strcmp(m->source, "profiler") && !strcmp(m->name, "allreduce") && ccs_meas_is_coll(m));
		CHECK(!strcmp(m->variant, "oop float") && m->ranks == 16 && m->iters == 60);
		if (m->size == (1u << 20)) {
			/* sampled seqs are even: s % 5 in {0, 2, 4, 1, 3}: median 52 us */
			CHECK_NEAR(m->median_s, 52e-6, 1e-9);
			CHECK_NEAR(m->min_s, 50e-6, 1e-9);
			CHECK_NEAR(m->max_s, 54e-6, 1e-9);
			CHECK_NEAR(m->busbw_Bps, (1 << 20) / 52e-6 * 2 * 15 / 16, 1e-9);
		} else {
			CHECK(m->size == (64u << 20));
			CHECK(m->min_s >= 900e-6 && m->max_s <= 906e-6);
		}
	}
	printf("profiler: %zu measurements from %s\n", set.n, path);
	ccs_meas_set_release(&set);
	/* a log cut inside its last line: that record is skipped with a warning */
	FILE *f = fopen(path, "a");
	CHECK(f && fputs("coll comm=1 ranks=16 nodes=2 rank=0 seq=999 func=AllRed", f) >= 0);
	if (f)
		fclose(f);
	memset(&set, 0, sizeof set);
	CHECK(ccs_ingest_file(path, &set, &d) == CCS_OK && set.n == 2 && set.nwarn == 1);
	if (set.nwarn)
		printf("profiler: %s\n", set.warn[0]);
	ccs_meas_set_release(&set);
	rotation(argv[1], argv[2]);
	host_only(argv[1], argv[2]);
	env_edges(argv[1], argv[2]);
	return CHECK_DONE("nccl_prof_host");
}
