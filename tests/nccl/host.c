/*
** tests/nccl/host.c: loads the ccsim tuner plugin as NCCL does (dlopen,
** dlsym of ncclTunerPlugin_v6, _v5 and _v4, as NCCL 2.30, 2.28-2.29 and
** 2.26-2.27 look them up, per src/include/plugin/tuner/ at 5067397c; init
** with a logger, getCollInfo over a cost table filled the way NCCL fills
** it, finalize) and checks it:
**   - on five machines (four shipped topologies, three of them calibrated,
**     and the shipped NCCL topology dump), every size from 8 B to
**     8 GiB and the five tuned collectives: each entry NCCL offers holds
**     ccsim's time for that pair, and the pair NCCL then takes is the one
**     `ccsim predict --best` takes over the algorithms and protocols NCCL
**     offers (ccs_select with those as -a and -p), with the channel count the model
**     prefers for it (the fewest at the same time, never above the count
**     NCCL itself runs at that size); NCCL's own choice is counted beside;
**   - CCSIM_TOPOLOGY unset, missing, a directory or malformed, a file that
**     is not a calibration, more ranks than GPUs (4,096 on the shipped
**     cluster): init succeeds with no context and one WARN naming the
**     reason, and getCollInfo leaves NCCL's table as it was (NCCL wraps
**     init in NCCLCHECK: a failure would stop the communicator);
**   - CCSIM_TOPOLOGY or CCSIM_CALIBRATION a FIFO: refused without opening it
**     (it blocked init forever); a cost table with no protocol or no
**     algorithm left untouched (it divided by zero);
**   - 16 communicators initialising at once on 16 threads, and 20 load,
**     init, finalize and unload cycles;
**   - the call's cost after warm-up: median and p99 (a figure, not a test).
** usage: nccl_host LIB [CALIB_HGX_H100 [CALIB_GB200_NVL72]]   (calibrations
** fitted from nccl-tests logs of those machines)
*/
#include "../check.h"
#include "../../calibrate/nccl/nccl_abi.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static char last_warn[2048];
static int nwarn;
static int n_fewer;   /* points where the tuner asked for fewer channels */

static void logger(ncclDebugLogLevel level, unsigned long flags, const char *file, int line, const char *fmt, ...)
{
	(void)flags;
	(void)file;
	(void)line;
	char b[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	if (level == NCCL_LOG_WARN) {
		nwarn++;
		snprintf(last_warn, sizeof last_warn, "%s", b);
	}
	if (getenv("NCCL_HOST_VERBOSE"))
		fprintf(stderr, "NCCL %s: %s\n", level == NCCL_LOG_WARN ? "WARN" : "INFO", b);
}

/* NCCL's algorithm numbers as ccsim's (the plugin's own table, restated) */
static const int h_algo[NCCL_NUM_ALGORITHMS_V5] = { CCS_ALGO_TREE, CCS_ALGO_RING, CCS_ALGO_COLLNET_DIRECT,
                                                    CCS_ALGO_COLLNET_CHAIN, CCS_ALGO_NVLS, CCS_ALGO_NVLS_TREE,
                                                    CCS_ALGO_PAT };
static const int h_coll[5] = { CCS_COLL_BROADCAST, CCS_COLL_REDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER,
                               CCS_COLL_ALLREDUCE };

struct machine {
	const char *topo;
	int nodes, ranks;
	int calib;   /* its calibration's argument (0: none) */
};

static const ncclTuner_v6_t *plugin(void *lib, const char *sym)
{
	return (const ncclTuner_v6_t *)dlsym(lib, sym);
}

/* NCCL's own channel count for a ring or a tree at bytes, restated from
 * src/enqueue.cc topoGetAlgoInfo (2.30.7): down from its count while
 * bytes < nc x threads x threshold (LL 512 x 8, x nRanks for a ring;
 * LL128 640 x 8; Simple 512 x 64). */
static int nccl_nc(const struct ccs_comm *c, int algo, int proto, uint64_t bytes)
{
	int nc = ccs_nccl_channels(&c->nccl, algo);
	double per = proto == 1 ? 640.0 * 8 : proto == 2 ? 512.0 * 64 : 512.0 * 8 * (algo == CCS_ALGO_RING ? c->n : 1);
	while (nc >= 2 && (double)bytes < nc * per)
		nc--;
	return nc;
}

/* NCCL's table for (coll, bytes) on c: its model's times, -1 where it does
 * not offer the pair; returns the pair it would take (a * 3 + p). */
static int nccl_table(const struct ccs_comm *c, int coll, uint64_t bytes, float t[NCCL_NUM_ALGORITHMS_V5][3])
{
	int best = -1;
	for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; a++)
		for (int p = 0; p < 3; p++) {
			double s = ccs_nccl_time(&c->nccl, h_coll[coll], h_algo[a], p, bytes);
			t[a][p] = s < 0 ? NCCL_ALGO_PROTO_IGNORE : (float)(s * 1e6);
			if (s >= 0 && (best < 0 || t[a][p] < t[best / 3][best % 3]))
				best = a * 3 + p;
		}
	return best;
}

static int argmin(float t[NCCL_NUM_ALGORITHMS_V5][3])
{
	int best = -1;
	for (int i = 0; i < NCCL_NUM_ALGORITHMS_V5 * 3; i++)
		if (t[i / 3][i % 3] >= 0 && (best < 0 || t[i / 3][i % 3] < t[best / 3][best % 3]))
			best = i;
	return best;
}

/* One (collective, size) through getCollInfo: the checks of the file's
 * header; show prints a point where the tuner and NCCL differ. */
static void point(ncclTunerGetCollInfo_fn info, void *ctx, const struct ccs_comm *c, int coll, uint64_t b, int show,
                  int *agree, int *differ)
{
	float tab[NCCL_NUM_ALGORITHMS_V5][3];
	int nccl = nccl_table(c, coll, b, tab);
	int ch = 0;
	CHECK(info(ctx, (ncclFunc_t)coll, b, 1, (float **)tab, NCCL_NUM_ALGORITHMS_V5, 3, 0, &ch) == ncclSuccess);
	/* each offered entry holds ccsim's time where ccsim prices it */
	for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; a++)
		for (int p = 0; p < 3; p++) {
			struct ccs_cost cc;
			const char *why;
			if (tab[a][p] >= 0 && !ccs_cost_eval(c, h_coll[coll], h_algo[a], p, 0, b, &cc, &why))
				CHECK_NEAR(tab[a][p], (float)(cc.time_s * 1e6), 1e-6);
		}
	int got = argmin(tab), ba, bp;
	/* predict --best over what NCCL offers: its algorithms and protocols
	 * with an entry (-a/-p in predict's terms) */
	unsigned amask = 0, pmask = 0;
	for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; a++)
		for (int p = 0; p < 3; p++)
			if (tab[a][p] >= 0) {
				amask |= 1u << h_algo[a];
				pmask |= 1u << p;
			}
	CHECK(ccs_select(c, h_coll[coll], b, amask, pmask, 0, &ba, &bp) == 0);
	int want = -1;
	for (int a = 0; a < NCCL_NUM_ALGORITHMS_V5; a++)
		if (h_algo[a] == ba && tab[a][bp] >= 0)
			want = a * 3 + bp;
	CHECK(want >= 0);   /* over NCCL's offer ccsim's best is offered */
	CHECK(got == want);
	/* nChannels: the fewest channels (powers of two below NCCL's own count
	 * at that size) at which a ring's or tree's time stays within 0.1%; 0
	 * otherwise */
	int full = nccl_nc(c, h_algo[got / 3], got % 3, b), want_ch = 0;
	struct ccs_cost c0;
	const char *why0;
	if ((h_algo[got / 3] == CCS_ALGO_RING || h_algo[got / 3] == CCS_ALGO_TREE) &&
	    !ccs_cost_eval(c, h_coll[coll], h_algo[got / 3], got % 3, 0, b, &c0, &why0))
		for (int k = 1; k < full && !want_ch; k *= 2) {
			struct ccs_cost ck;
			if (!ccs_cost_eval(c, h_coll[coll], h_algo[got / 3], got % 3, k, b, &ck, &why0) &&
			    ck.time_s <= c0.time_s * 1.001)
				want_ch = k;
		}
	CHECK(ch == want_ch);
	CHECK(ch < full || ch == 0);
	n_fewer += ch != 0;
	if (got == nccl) {
		(*agree)++;
		return;
	}
	(*differ)++;
	if (getenv("NCCL_HOST_VERBOSE") && show) {
		/* NCCL's pick priced by ccsim: what the tuner's pick gains */
		struct ccs_cost cn;
		const char *why;
		double tn_us = ccs_cost_eval(c, h_coll[coll], h_algo[nccl / 3], nccl % 3, 0, b, &cn, &why)
		                 ? -1 : cn.time_s * 1e6;
		printf("  %s %llu B: NCCL %s/%s (ccsim: %.1f us) -> tuner %s/%s %.1f us\n", ccs_coll_name[h_coll[coll]],
		       (unsigned long long)b, ccs_algo_desc[h_algo[nccl / 3]].name, ccs_proto_name[nccl % 3], tn_us,
		       ccs_algo_desc[h_algo[got / 3]].name, ccs_proto_name[got % 3], (double)tab[got / 3][got % 3]);
	}
}

/* One machine through one versioned symbol; counts into *agree and *differ
 * (the tuner's pair against NCCL's own). */
static void run_machine(void *lib, const char *sym, const struct machine *m, const char *calib, int *agree,
                        int *differ)
{
	const ncclTuner_v6_t *tn = plugin(lib, sym);
	const ncclTuner_v4_t *t4 = !strcmp(sym, "ncclTunerPlugin_v4") ? (const ncclTuner_v4_t *)(const void *)tn : NULL;
	CHECK(tn != NULL);
	if (!tn)
		return;
	setenv("CCSIM_TOPOLOGY", m->topo, 1);
	if (calib)
		setenv("CCSIM_CALIBRATION", calib, 1);
	else
		unsetenv("CCSIM_CALIBRATION");
	char nset[32], cset[1100];
	const char *sets[2];
	int ns = 0;
	snprintf(nset, sizeof nset, "nodes=%d", m->nodes);
	sets[ns++] = nset;
	if (calib) {
		snprintf(cset, sizeof cset, "calibration=%s", calib);
		sets[ns++] = cset;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t;
	struct ccs_comm c;
	char err[256];
	err[0] = 0;
	int ok;
	size_t len = strlen(m->topo);
	if (len > 4 && !strcmp(m->topo + len - 4, ".xml")) {
		/* an NCCL topology dump, imported as the plugin imports it */
		char *yaml = NULL, *warn = NULL;
		ok = ccs_topo_yaml_import(m->topo, &yaml, &warn, &d) == CCS_OK &&
		     ccs_topo_yaml_load_buf(m->topo, yaml, strlen(yaml), sets, ns, &t, &d) == CCS_OK;
		ccs_free(yaml);
		ccs_free(warn);
	} else {
		ok = ccs_topo_yaml_load(m->topo, sets, ns, &t, &d) == CCS_OK;
	}
	ok = ok && ccs_comm_build(t, m->ranks, m->ranks / m->nodes, &c, err, sizeof err) == CCS_OK;
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "  %s: %s%s\n", m->topo, d.msg, err);
		if (!d.msg[0])
			ccs_topo_free(t);
		return;
	}
	void *ctx = NULL;
	ncclNvlDomainInfo_v5_t nvl = { c.G, c.n / c.G, c.n / c.G };
	ncclTunerConstants_v5_t k;
	memset(&k, 0, sizeof k);
	nwarn = 0;
	if (t4)
		CHECK(t4->init((size_t)m->ranks, (size_t)m->nodes, logger, &ctx) == ncclSuccess);
	else
		CHECK(tn->init(&ctx, 0xc0ffee, (size_t)m->ranks, (size_t)m->nodes, logger, &nvl, &k) == ncclSuccess);
	CHECK(nwarn == 0 && ctx != NULL);
	for (int coll = 0; coll < 5 && ctx; coll++)
		for (uint64_t b = 8; b <= (8ull << 30); b *= 2)
			point(t4 ? t4->getCollInfo : tn->getCollInfo, ctx, &c, coll, b, strcmp(sym, "ncclTunerPlugin_v6") == 0,
			      agree, differ);
	CHECK(!ctx || (t4 ? t4->destroy(ctx) : tn->finalize(ctx)) == ncclSuccess);
	ccs_comm_release(&c);
	ccs_topo_free(t);
}

/* init declined with one WARN naming want: success, no context, and a
 * getCollInfo without one leaves NCCL's table as it was. */
static void refused(void *lib, const char *topo, const char *calib, int ranks, int nodes, const char *want)
{
	const ncclTuner_v6_t *tn = plugin(lib, "ncclTunerPlugin_v6");
	if (topo)
		setenv("CCSIM_TOPOLOGY", topo, 1);
	else
		unsetenv("CCSIM_TOPOLOGY");
	if (calib)
		setenv("CCSIM_CALIBRATION", calib, 1);
	else
		unsetenv("CCSIM_CALIBRATION");
	void *ctx = (void *)1;
	nwarn = 0;
	last_warn[0] = 0;
	CHECK(tn && tn->init(&ctx, 1, (size_t)ranks, (size_t)nodes, logger, NULL, NULL) == ncclSuccess);
	CHECK(ctx == NULL);
	CHECK(nwarn == 1 && strstr(last_warn, want) != NULL && strstr(last_warn, "NCCL's own tuning") != NULL);
	if (!strstr(last_warn, want))
		fprintf(stderr, "  warned '%s', wanted '%s'\n", last_warn, want);
	float tab[NCCL_NUM_ALGORITHMS_V5][3];
	for (int j = 0; j < NCCL_NUM_ALGORITHMS_V5 * 3; j++)
		tab[j / 3][j % 3] = (float)(j + 1);
	int ch = 7;
	CHECK(tn && tn->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, (float **)tab, NCCL_NUM_ALGORITHMS_V5, 3, 0, &ch) ==
	              ncclSuccess);
	for (int j = 0; j < NCCL_NUM_ALGORITHMS_V5 * 3; j++)
		CHECK(tab[j / 3][j % 3] == (float)(j + 1));
	CHECK(ch == 7);
}

/* A table with no protocol or no algorithm: nothing to price, nothing
 * touched (it divided by numProto) */
static void empty_table(void *lib)
{
	const ncclTuner_v6_t *tn = plugin(lib, "ncclTunerPlugin_v6");
	setenv("CCSIM_TOPOLOGY", "topologies/hgx-h100.yaml", 1);
	unsetenv("CCSIM_CALIBRATION");
	void *ctx = NULL;
	CHECK(tn && tn->init(&ctx, 3, 8, 1, logger, NULL, NULL) == ncclSuccess && ctx);
	if (!ctx)
		return;
	float tab[NCCL_NUM_ALGORITHMS_V5][3] = { { 5 } };
	int ch = 9;
	CHECK(tn->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, (float **)tab, NCCL_NUM_ALGORITHMS_V5, 0, 0, &ch) ==
	      ncclSuccess);
	CHECK(tn->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, (float **)tab, 0, 3, 0, &ch) == ncclSuccess);
	CHECK(ch == 9 && tab[0][0] == 5);
	CHECK(tn->finalize(ctx) == ncclSuccess);
}

/* 16 communicators initialising at once, as 16 ranks of one process do */
struct th_arg {
	const ncclTuner_v6_t *tn;
	ncclResult_t rc;
	void *ctx;
};

static void *th_init(void *p)
{
	struct th_arg *a = p;
	a->rc = a->tn->init(&a->ctx, (uint64_t)(uintptr_t)p, 16, 2, logger, NULL, NULL);
	return NULL;
}

static void concurrent(void *lib)
{
	const ncclTuner_v6_t *tn = plugin(lib, "ncclTunerPlugin_v6");
	setenv("CCSIM_TOPOLOGY", "topologies/hgx-h100-cluster.yaml", 1);
	unsetenv("CCSIM_CALIBRATION");
	pthread_t th[16];
	struct th_arg a[16];
	for (int i = 0; i < 16; i++) {
		a[i].tn = tn;
		a[i].ctx = NULL;
		a[i].rc = ncclInternalError;
		CHECK(pthread_create(&th[i], NULL, th_init, &a[i]) == 0);
	}
	for (int i = 0; i < 16; i++) {
		pthread_join(th[i], NULL);
		CHECK(a[i].rc == ncclSuccess && a[i].ctx != NULL);
		if (a[i].ctx)
			CHECK(tn->finalize(a[i].ctx) == ncclSuccess);
	}
}

/* load, init, a call, finalize, unload: 20 times */
static void cycles(const char *path)
{
	setenv("CCSIM_TOPOLOGY", "topologies/hgx-h100.yaml", 1);
	for (int i = 0; i < 20; i++) {
		void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		const ncclTuner_v6_t *tn = lib ? plugin(lib, "ncclTunerPlugin_v6") : NULL;
		void *ctx = NULL;
		CHECK(tn && tn->init(&ctx, (uint64_t)i, 8, 1, logger, NULL, NULL) == ncclSuccess && ctx);
		float tab[NCCL_NUM_ALGORITHMS_V5][3];
		for (int j = 0; j < NCCL_NUM_ALGORITHMS_V5 * 3; j++)
			tab[j / 3][j % 3] = 1;
		if (ctx) {
			CHECK(tn->getCollInfo(ctx, ncclFuncAllReduce, 1 << 20, 1, (float **)tab, NCCL_NUM_ALGORITHMS_V5, 3, 0,
			                      NULL) == ncclSuccess);
			CHECK(tn->finalize(ctx) == ncclSuccess);
		}
		if (lib)
			CHECK(dlclose(lib) == 0);
	}
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double ns_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e9 + (double)(t1.tv_nsec - t0->tv_nsec);
}

/* A call's cost on `nodes` HGX H100 nodes: cold (the first call for each of
 * the five collectives at 31 sizes, 8 B - 8 GiB) and cached (the same calls
 * again, 20 rounds): median and p99 (a figure, not a test). */
static void timing(void *lib, int nodes)
{
	const ncclTuner_v6_t *tn = plugin(lib, "ncclTunerPlugin_v6");
	setenv("CCSIM_TOPOLOGY", "topologies/hgx-h100-cluster.yaml", 1);
	unsetenv("CCSIM_CALIBRATION");
	void *ctx = NULL;
	if (!tn || tn->init(&ctx, 2, (size_t)nodes * 8, (size_t)nodes, logger, NULL, NULL) != ncclSuccess || !ctx)
		return;
	enum { P = 5 * 31, R = 20 };
	static double cold[P], warm[P * R];
	float tab[NCCL_NUM_ALGORITHMS_V5][3];
	for (int r = 0; r <= R; r++)
		for (int i = 0; i < P; i++) {
			for (int j = 0; j < NCCL_NUM_ALGORITHMS_V5 * 3; j++)
				tab[j / 3][j % 3] = 1;
			struct timespec t0;
			int ch = 0;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			tn->getCollInfo(ctx, (ncclFunc_t)(i % 5), 8ull << (i / 5), 1, (float **)tab, NCCL_NUM_ALGORITHMS_V5, 3, 0,
			                &ch);
			double ns = ns_since(&t0);
			if (r == 0)
				cold[i] = ns;
			else
				warm[(r - 1) * P + i] = ns;
		}
	tn->finalize(ctx);
	qsort(cold, P, sizeof *cold, by_double);
	qsort(warm, P * R, sizeof *warm, by_double);
	printf("tuner getCollInfo at %d ranks: cold median %.1f us, p99 %.1f us (%d calls); cached median %.0f ns, p99 %.0f ns "
	       "(%d calls)\n", nodes * 8, cold[P / 2] / 1e3, cold[P * 99 / 100] / 1e3, P, warm[P * R / 2],
	       warm[P * R * 99 / 100], P * R);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nccl_host LIB [CALIBRATION]\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nccl_host: %s\n", dlerror());
		return 1;
	}
	static const struct machine ms[] = {
		{ "topologies/hgx-h100.yaml", 1, 8, 2 },
		{ "topologies/hgx-h100-cluster.yaml", 2, 16, 2 },   /* its nodes are hgx-h100s */
		{ "topologies/hgx-h100-cluster.yaml", 4, 32, 0 },
		{ "topologies/gb200-nvl72.yaml", 18, 72, 3 },   /* 18 trays of 4 */
		{ "tests/data/topo/hgx-h100-dump.xml", 2, 16, 0 },   /* NCCL_TOPO_DUMP_FILE of one HGX */
	};
	static const char *const syms[] = { "ncclTunerPlugin_v6", "ncclTunerPlugin_v5", "ncclTunerPlugin_v4" };
	CHECK(dlsym(lib, "ncclTunerPlugin_v7") == NULL);   /* NCCL defines no v7 */
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t v = 0; v < 3; v++) {
			int agree = 0, differ = 0;
			const char *calib = ms[i].calib && ms[i].calib < argc ? argv[ms[i].calib] : NULL;
			run_machine(lib, syms[v], &ms[i], calib, &agree, &differ);
			if (v == 0)
				printf("%s (%d nodes, %d ranks%s): tuner = NCCL's choice at %d points, differs at %d; "
				       "fewer channels asked at %d\n",
				       ms[i].topo, ms[i].nodes, ms[i].ranks, calib ? ", calibrated" : "", agree, differ, n_fewer);
			n_fewer = 0;
		}
	refused(lib, NULL, NULL, 8, 1, "CCSIM_TOPOLOGY is not set");
	refused(lib, "tests/nccl/no-such-topology.yaml", NULL, 8, 1, "no-such-topology.yaml");
	refused(lib, "topologies/hgx-h100.yaml", "topologies/hgx-h100.yaml", 8, 1, "in a calibration file");
	refused(lib, "topologies/hgx-h100.yaml", NULL, 16, 1, "16 ranks but topologies/hgx-h100.yaml has 8 GPUs");
	refused(lib, "", NULL, 8, 1, "CCSIM_TOPOLOGY is not set");
	refused(lib, "topologies", NULL, 8, 1, "topologies");
	refused(lib, "tests/bad/bad-ratio.yaml", NULL, 8, 1, "bad-ratio.yaml:");
	refused(lib, "topologies/hgx-h100-cluster.yaml", NULL, 4096, 512, "use 'tiers: 3'");
	{
		/* a FIFO would block init in open(): refused without opening it */
		char fifo[256];
		snprintf(fifo, sizeof fifo, "/tmp/ccsim-host-fifo-%ld", (long)getpid());
		unlink(fifo);
		CHECK(mkfifo(fifo, 0600) == 0);
		alarm(30);   /* a hang fails the test */
		refused(lib, fifo, NULL, 8, 1, "is not a regular file (a FIFO)");
		refused(lib, "topologies/hgx-h100.yaml", fifo, 8, 1, "CCSIM_CALIBRATION=");
		alarm(0);
		unlink(fifo);
	}
	empty_table(lib);
	concurrent(lib);
	timing(lib, 2);
	timing(lib, 128);
	dlclose(lib);
	cycles(argv[1]);
	return CHECK_DONE("nccl_host");
}
