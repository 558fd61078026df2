/*
** tests/bench/bench_a2a.c: the exchanges that have no class view yet, at
** the sizes issue 20 names (`make bench`, its third table).
**
** 64 MiB direct AllToAll at 1,024 and 8,192 ranks on a 2:1 fat tree
** (cluster-16k-3tier, radix 128), and a DeepSeek-V3-like dispatch (hidden
** 7168, fp8 with scales, top-8 of 256 experts, uniform routing, 128 and
** 4,096 tokens per rank) at EP 256 inside one CloudMatrix384-class UB domain
** (direct) and on 1,024 ranks of HGX H800 nodes, 4 EP groups of 256 at once
** (deepep_normal; EP 1,024 would leave ranks without an expert); the large
** ones again with a leaf-spine link down at 1 ms; the 4,096-token H800
** dispatch also under expected routing (each pair the mean over its EP
** group's sources: symmetric, the draw's imbalance removed).  The fabric routes as
** InfiniBand's subnet manager does (dmodk, model/topo.h), which keeps a
** uniform exchange symmetric; the 1,024-rank AllToAll runs once more under
** hashed ECMP, the baseline (docs/simulator.md, "Routes"), and the
** declared approximation `--fidelity aggregate` (sends merged by
** destination leaf, sim/sched/a2a_agg.h) runs at 1,024 ranks under ECMP and
** at 8,192 under both routings, and the 4,096-token H800 dispatch with its
** transfers merged by leaf pair (sim/sched/expert_agg.h); then the same
** dispatch as one EP group of 1,024 (1,024 experts, one a rank), expected
** and drawn under the aggregate.
**
** Each case runs in a child with a wall-time limit of LIMIT_S: a case that
** finishes shows its simulated time beside the closed form; one that does
** not shows how far it got (ops ended of all ops) and, where the issue sets
** a target (<= 60 s), MISSED.  Exit status 1 when a target is missed.
*/
#define _DEFAULT_SOURCE 1
#include "../../model/cost.h"
#include "../../model/moe.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"
#include "child.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_S 60
#define C3 "topologies/cluster-16k-3tier.yaml"

struct acase {
	const char *label, *topo;
	const char *sets[4];
	int nsets, ranks;           /* ranks 0: every GPU */
	int moe_algo;               /* -1: AllToAll of bytes; else dispatch with this algorithm */
	int tokens;
	int expected;               /* dispatch: expected routing (each pair the mean of its group's sources) */
	uint64_t bytes;
	double max_s;               /* target; 0: none */
	int aggregate;              /* --fidelity aggregate: AllToAll's sends merged by destination leaf,
	                               dispatch's transfers by leaf pair */
	int experts;                /* dispatch: experts (0: 256, EP groups of 256) */
};

static const struct acase cases[] = {
	{ "alltoall 64 MiB", C3, { "nodes=128", "scaleout.radix=128" }, 2, 0, -1, 0, 0, 64ull << 20, 0, 0, 0 },
	{ "alltoall, ecmp", C3, { "nodes=128", "scaleout.radix=128", "scaleout.routing=ecmp" }, 3, 0, -1, 0, 0,
	  64ull << 20, 0, 0, 0 },
	{ "alltoall 64 MiB", C3, { "nodes=1024", "scaleout.radix=128" }, 2, 0, -1, 0, 0, 64ull << 20, 60, 0, 0 },
	{ "alltoall, ecmp, aggr.", C3, { "nodes=128", "scaleout.radix=128", "scaleout.routing=ecmp" }, 3, 0, -1, 0, 0,
	  64ull << 20, 0, 1, 0 },
	{ "alltoall, aggregate", C3, { "nodes=1024", "scaleout.radix=128" }, 2, 0, -1, 0, 0, 64ull << 20, 60, 1, 0 },
	{ "alltoall, ecmp, aggr.", C3, { "nodes=1024", "scaleout.radix=128", "scaleout.routing=ecmp" }, 3, 0, -1, 0, 0,
	  64ull << 20, 60, 1, 0 },
	{ "alltoall, down @1ms", C3, { "nodes=1024", "scaleout.radix=128", "faults+=link:leaf0-spine0:down@1ms" }, 3, 0,
	  -1, 0, 0, 64ull << 20, 0, 0, 0 },
	{ "dispatch 128 tok", "topologies/cloudmatrix384.yaml", { 0 }, 0, 256, CCS_MOE_DIRECT, 128, 0, 0, 0, 0, 0 },
	{ "dispatch 4096 tok", "topologies/cloudmatrix384.yaml", { 0 }, 0, 256, CCS_MOE_DIRECT, 4096, 0, 0, 0, 0, 0 },
	{ "dispatch 128 tok", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 128, 0, 0, 60, 0, 0 },
	{ "dispatch 4096 tok", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 4096, 0, 0, 60, 0, 0 },
	{ "dispatch, expected", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 4096, 1, 0, 60, 0, 0 },
	{ "dispatch, aggregate", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 4096, 0, 0, 60, 1, 0 },
	{ "EP 1,024, expected", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 4096, 1, 0, 60, 0,
	  1024 },
	{ "EP 1,024, aggregate", "topologies/hgx-h800.yaml", { "nodes=128" }, 1, 0, CCS_MOE_NORMAL, 4096, 0, 0, 60, 1,
	  1024 },
	{ "dispatch, down @1ms", "topologies/hgx-h800.yaml", { "nodes=128", "faults+=link:leaf0-spine0:down@1ms" }, 2,
	  0, CCS_MOE_NORMAL, 4096, 0, 0, 0, 0, 0 },
};

/* what a child sends back: at the end, or when its time is up */
struct res {
	double ranks, closed, nops, ops_done, sim, wall, events;
	double ok;                  /* 1: finished */
};

static struct res g_res;
static volatile sig_atomic_t g_done;   /* ops ended so far */
static int g_fd = -1;
static double g_t0;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void op_end(void *ctx, uint64_t op, ccs_time t)
{
	(void)ctx;
	(void)op;
	(void)t;
	g_done++;
}

/* time is up: send how far the run got (write is async-signal-safe) */
static void on_alarm(int sig)
{
	(void)sig;
	g_res.ops_done = (double)g_done;
	g_res.wall = LIMIT_S;
	ssize_t w = write(g_fd, &g_res, sizeof g_res);
	_exit(w == (ssize_t)sizeof g_res ? 0 : 1);
}

/* The case's schedule and closed form (a dispatch's plan kept in *p). */
static int build(const struct acase *b, const struct ccs_comm *c, struct ccs_moe_plan *p, struct ccs_sched *s)
{
	const char *why = NULL;
	if (b->moe_algo < 0) {
		struct ccs_cost cc;
		ccs_cost_eval(c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, b->bytes, &cc, NULL);
		g_res.closed = cc.time_s;
		if (ccs_sched_build_flags(c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, b->bytes,
		                          b->aggregate ? CCS_SCHED_AGGREGATE : 0, s, &why)) {
			fprintf(stderr, "%s: %s\n", b->label, why ? why : "no schedule");
			return -1;
		}
		return 0;
	}
	struct ccs_moe_cfg cfg;
	struct ccs_moe_routing route;
	struct ccs_moe_cost mc;
	char err[256];
	ccs_moe_cfg_default(&cfg);
	cfg.tokens = b->tokens;
	cfg.fp8 = 1;
	cfg.expected = b->expected;
	cfg.experts = b->experts ? b->experts : cfg.experts;
	/* more ranks than experts: EP groups of one expert a rank (model/moe.h) */
	if (c->n > cfg.experts)
		cfg.ep = cfg.experts;
	if (ccs_moe_check(&cfg, c->n, err, sizeof err) || ccs_moe_route(&cfg, c, NULL, &route)) {
		fprintf(stderr, "%s: %s\n", b->label, err);
		return -1;
	}
	int rc = ccs_moe_plan(c, &cfg, &route, NULL, CCS_MOE_DISPATCH, b->moe_algo, p, err, sizeof err);
	ccs_moe_routing_release(&route);
	if (rc || ccs_moe_eval(c, p, &mc) || ccs_sched_expert_flags(c, p, b->aggregate ? CCS_SCHED_AGGREGATE : 0, s, &why)) {
		fprintf(stderr, "%s: %s\n", b->label, rc ? err : why ? why : "no schedule");
		return -1;
	}
	g_res.closed = mc.time_s;
	return 0;
}

static void run_child(const struct acase *b)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	struct ccs_sched s;
	struct ccs_moe_plan p;
	char err[256];
	memset(&p, 0, sizeof p);
	if (ccs_topo_yaml_load(b->topo, b->sets, b->nsets, &t, &d) || ccs_comm_build(t, b->ranks, 0, &c, err, sizeof err) ||
	         ccs_fabric_new(&c, &fab) || build(b, &c, &p, &s))
		return;
	g_res.ranks = c.n;
	g_res.nops = (double)s.nops;
	struct ccs_sim_stats st;
	const struct ccs_sim_hooks hooks = { .op_end = op_end };
	g_t0 = now();
	alarm(LIMIT_S);
	if (ccs_sim_run_hooked(fab, &s, &st, NULL, &hooks, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", b->label, err);
		return;
	}
	alarm(0);
	g_res.wall = now() - g_t0;
	g_res.sim = st.time_s;
	g_res.events = (double)st.events;
	g_res.ops_done = (double)g_done;
	g_res.ok = 1;
}

static void child_fn(const void *arg, void *out, int fd)
{
	g_fd = fd;
	signal(SIGALRM, on_alarm);
	run_child(arg);
	memcpy(out, &g_res, sizeof g_res);
}

/* One case in a child; *mib its peak RSS; -1 when it sent nothing. */
static int run_case(const struct acase *b, struct res *r, double *mib)
{
	memset(r, 0, sizeof *r);
	return bench_child(child_fn, b, r, sizeof *r, mib) == 0 && r->ranks > 0 ? 0 : -1;
}

/* "topologies/x.yaml" as "x" */
static const char *topo_name(const char *path)
{
	static char buf[64];
	const char *b = strrchr(path, '/');
	snprintf(buf, sizeof buf, "%s", b ? b + 1 : path);
	char *dot = strstr(buf, ".yaml");
	if (dot)
		*dot = 0;
	return buf;
}

static int print_case(const struct acase *b)
{
	struct res r;
	double mib;
	if (run_case(b, &r, &mib)) {
		printf("%-20s %-18s failed%s\n", b->label, topo_name(b->topo), b->max_s > 0 ? "  MISSED" : "");
		return b->max_s > 0;
	}
	char sim[32], wall[32], target[96] = "-";
	int missed = 0;
	if (r.ok) {
		snprintf(sim, sizeof sim, "%.3f", r.sim * 1e3);
		snprintf(wall, sizeof wall, "%.3f", r.wall);
	} else {
		snprintf(sim, sizeof sim, "(%.2g%% done)", 100 * r.ops_done / (r.nops > 0 ? r.nops : 1));
		snprintf(wall, sizeof wall, "> %d", LIMIT_S);
	}
	if (b->max_s > 0) {
		int ok = r.ok && r.wall <= b->max_s;
		snprintf(target, sizeof target, "%s (<= %.0f s)", ok ? "ok" : "MISSED", b->max_s);
		missed = !ok;
	}
	printf("%-20s %-18s %7.0f %12s %10.3f %9s %8.1f %12.0f %12.0f  %s\n", b->label, topo_name(b->topo), r.ranks, sim,
	       r.closed * 1e3, wall, mib, r.nops, r.ops_done, target);
	return missed;
}

int main(int argc, char **argv)
{
	/* bench_a2a [LABEL-PREFIX]: only the cases whose label starts so */
	printf("simulator: AllToAll (dmodk, and ECMP as the baseline) and MoE dispatch at scale, %d s limit each; one "
	       "core\n", LIMIT_S);
	printf("%-20s %-18s %7s %12s %10s %9s %8s %12s %12s  %s\n", "case", "topology", "ranks", "sim_ms", "closed_ms",
	       "wall_s", "rss_MiB", "ops", "ops_ended", "target");
	int missed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (argc < 2 || !strncmp(cases[i].label, argv[1], strlen(argv[1])))
			missed |= print_case(&cases[i]);
	return missed;
}
