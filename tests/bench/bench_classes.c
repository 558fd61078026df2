/*
** tests/bench/bench_classes.c: the simulator at cluster scale with flow
** classes (sim/classes.h), against the per-flow solver (`make bench`).
**
** Each case runs in a child process (its own peak RSS, wait4): build the
** topology, communicator, fabric and schedule, then run it as classes and,
** where the per-flow run has at most PER_FLOW_MAX_OPS ops (a few minutes at
** the engine's rate here), per flow too; both times must agree within 1e-9.
** Rows marked "aggr." run lumped classes (--fidelity aggregate,
** sim/fabric.h) and print their error against per flow, or against the
** exact classes (flow_s "c"), MISSED past 2% (issue 40's bar for an aggregate).
** Columns: ranks, simulated and closed-form time, wall seconds and peak RSS
** of the class run, events/s, lane classes against single flows, restarts,
** the per-flow run's wall time and the speed-up, and the target where the
** issue sets one.  Ratios are within this command (noisy machines).
** SimGrid 3.32 takes 7.3 s for the 1,024-rank ring on this class of machine
** (shared/reference/des-notes.md).  Exit status 1 when a target is missed.
*/
#define _DEFAULT_SOURCE 1
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"
#include "child.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_FLOW_MAX_OPS 60e6

struct bcase {
	const char *label, *topo;
	const char *sets[6];
	int nsets, coll, algo, channels;
	uint64_t bytes;
	double max_s, max_MiB, min_vs_simgrid;   /* targets; 0: none */
	int lump;                   /* --fidelity aggregate: lumped classes (sim/fabric.h); the reference is
	                               per flow where it runs, else (ref_exact) the exact class run */
	int ref_exact;
};

/* what a child sends back */
struct res {
	double wall, sim, closed, events, ranks, classes, flows, class_flows, restarts;
	double pf_wall, pf_sim;     /* the reference (per flow, or exact classes); pf_wall < 0: not run */
	double pf_classes;          /* the reference's classes (0: per flow) */
	double mib;                 /* peak RSS when the class run ended (before the reference's) */
	double ok;                  /* 1: the class run finished */
	char why[80];               /* why it ran per flow ("" as classes) */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_child(const struct bcase *b, struct res *x)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	struct ccs_sched s;
	const char *why;
	char err[256];
	if (ccs_topo_yaml_load(b->topo, b->sets, b->nsets, &t, &d) || ccs_comm_build(t, 0, 0, &c, err, sizeof err) ||
	         ccs_fabric_new(&c, &fab) ||
	         ccs_sched_build(&c, b->coll, b->algo, CCS_PROTO_SIMPLE, b->channels, b->bytes, &s, &why))
		return;
	struct ccs_sim_stats st;
	struct ccs_cost cc;
	ccs_cost_eval(&c, b->coll, b->algo, CCS_PROTO_SIMPLE, b->channels, b->bytes, &cc, NULL);
	x->ranks = c.n;
	x->closed = cc.time_s;
	ccs_fabric_set_classes(fab, b->lump ? CCS_CLASSES_LUMP : CCS_CLASSES_EXACT);
	double t0 = now();
	if (ccs_sim_run(fab, &s, &st, NULL, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", b->label, err);
		return;
	}
	x->wall = now() - t0;
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		x->mib = (double)ru.ru_maxrss / 1024.0;
	x->sim = st.time_s;
	x->events = (double)st.events;
	x->classes = st.classes;
	x->flows = (double)st.flows;
	x->class_flows = (double)st.class_flows;
	x->restarts = st.restarts;
	x->ok = 1;
	alarm(0);                   /* the target is the class run's; the per-flow run has no limit */
	snprintf(x->why, sizeof x->why, "%s", st.per_flow_why ? st.per_flow_why : "");
	int per_flow = (double)s.nops <= PER_FLOW_MAX_OPS;
	if (!per_flow && !(b->lump && b->ref_exact))
		return;
	ccs_fabric_set_classes(fab, per_flow ? CCS_CLASSES_OFF : CCS_CLASSES_EXACT);
	t0 = now();
	if (!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err)) {
		x->pf_wall = now() - t0;
		x->pf_sim = st.time_s;
		x->pf_classes = st.classes;
	}
}

/* A case with a time target gets its target and a minute for loading the
 * topology before the child is stopped (SIGALRM): a run that falls back to
 * per flow at 131,072 ranks would take hours. */
#define SETUP_S 60
static void child_fn(const void *arg, void *out, int fd)
{
	(void)fd;
	const struct bcase *b = arg;
	if (b->max_s > 0)
		alarm((unsigned)ceil(b->max_s) + SETUP_S);
	run_child(b, out);
}

/* One case in a child; *mib its peak RSS. */
static int run_case(const struct bcase *b, struct res *r, double *mib)
{
	memset(r, 0, sizeof *r);
	r->pf_wall = -1;
	return bench_child(child_fn, b, r, sizeof *r, mib) == 0 && r->ok ? 0 : -1;
}

#define C3 "topologies/cluster-16k-3tier.yaml"

static const struct bcase cases[] = {
	{ "ring 1ch 1 GiB", C3, { "nodes=128", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1,
	  1ull << 30, 0, 0, 100, 0, 0 },
	{ "ring 1ch 1 GiB", C3, { "nodes=512", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1,
	  1ull << 30, 1.0, 0, 0, 0, 0 },
	{ "ring 1ch 1 GiB", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1,
	  1ull << 30, 60.0, 4096.0, 0, 0, 0 },
	/* issue 40's targets: 32,768 ranks <= 30 s; 131,072 <= 300 s and 8 GiB */
	{ "ring NCCL ch 1 GiB", C3, { "nodes=4096", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 0,
	  1ull << 30, 30.0, 0, 0, 0, 0 },
	{ "ring NCCL ch 1 GiB", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 0,
	  1ull << 30, 300.0, 8192.0, 0, 0, 0 },
	{ "tree NCCL ch 1 GiB", C3, { "nodes=4096", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 0,
	  1ull << 30, 30.0, 0, 0, 0, 0 },
	{ "tree NCCL ch 1 GiB", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 0,
	  1ull << 30, 300.0, 8192.0, 0, 0, 0 },
	/* the tree's classes differ in time at 131,072 ranks (docs/simulator.md); lumped
	 * (--fidelity aggregate), with its error against per flow, or the exact classes ("c") */
	{ "tree NCCL ch, aggr.", C3, { "nodes=512", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 0,
	  1ull << 30, 0, 0, 0, 1, 0 },
	{ "tree NCCL ch, aggr.", C3, { "nodes=4096", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 0,
	  1ull << 30, 30.0, 0, 0, 1, 1 },
	{ "tree NCCL ch, aggr.", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 0,
	  1ull << 30, 300.0, 8192.0, 0, 1, 0 },
	{ "tree 2ch 1 GiB", C3, { "nodes=4096", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 2,
	  1ull << 30, 0, 0, 0, 0, 0 },
	{ "tree 2ch 1 GiB", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 2,
	  1ull << 30, 0, 0, 0, 0, 0 },
	{ "tree 2ch, aggr.", C3, { "nodes=16384", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 2,
	  1ull << 30, 0, 0, 0, 1, 0 },
	{ "nvls_tree 1 GiB", C3, { "nodes=4096", "scaleout.radix=128" }, 2, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, 0,
	  1ull << 30, 0, 0, 0, 0, 0 },
	/* NCCL's choice on GB200 NVL72 racks: NVLS-tree across 8 and 20 racks */
	{ "GB200x8 nvls_tree", "topologies/gb200-nvl72.yaml", { "nodes=144" }, 1, CCS_COLL_ALLREDUCE,
	  CCS_ALGO_NVLS_TREE, 0, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "GB200x20 nvls_tree", "topologies/gb200-nvl72.yaml", { "nodes=360" }, 1, CCS_COLL_ALLREDUCE,
	  CCS_ALGO_NVLS_TREE, 0, 1ull << 30, 5.0, 0, 0, 0, 0 },
	{ "ring 1ch, link down", C3, { "nodes=512", "scaleout.radix=128", "faults+=link:leaf0-spine0:down" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "ring 1ch, NIC at 50%", C3, { "nodes=512", "scaleout.radix=128", "faults+=nic:node5/nic0:50%" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "ring 1ch, straggler", C3, { "nodes=512", "scaleout.radix=128", "faults+=straggler:node7/gpu3:20us" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "ring 1ch, down @1ms", C3, { "nodes=512", "scaleout.radix=128", "faults+=link:leaf0-spine0:down@1ms" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "ring 1ch, down @1ms", C3, { "nodes=16384", "scaleout.radix=128", "faults+=link:leaf0-spine0:down@1ms" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "ring 1ch, NIC 50% @1ms", C3, { "nodes=512", "scaleout.radix=128", "faults+=nic:node5/nic0:50%@1ms" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_RING, 1, 1ull << 30, 0, 0, 0, 0, 0 },
	{ "tree 2ch, down @1ms", C3, { "nodes=4096", "scaleout.radix=128", "faults+=link:leaf0-spine0:down@1ms" }, 3,
	  CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 2, 1ull << 30, 0, 0, 0, 0, 0 },
};

static int print_case(const struct bcase *b)
{
	struct res r;
	double mib;
	if (run_case(b, &r, &mib)) {
		if (b->max_s > 0)
			printf("%-22s failed or stopped at %.0f s  MISSED\n", b->label, b->max_s + SETUP_S);
		else
			printf("%-22s failed%s\n", b->label, b->min_vs_simgrid > 0 ? "  MISSED" : "");
		return b->max_s > 0 || b->min_vs_simgrid > 0;
	}
	char pf[32] = "-", up[32] = "-", target[96] = "-";
	int missed = 0, far = 0;
	if (r.mib > 0)
		mib = r.mib;   /* the class run's own, not the reference run's after it */
	if (r.pf_wall >= 0 && b->lump) {
		/* lumped: its error against the reference, beside the speed-up */
		snprintf(pf, sizeof pf, "%.3f%s", r.pf_wall, r.pf_classes > 0 ? "c" : "");
		snprintf(up, sizeof up, "%.0fx %+.2f%%", r.pf_wall / r.wall, 100 * (r.sim / r.pf_sim - 1));
		/* issue 40's bar for a declared aggregate: within 2% of every flow */
		far = fabs(r.sim / r.pf_sim - 1) > 0.02;
	} else if (r.pf_wall >= 0) {
		snprintf(pf, sizeof pf, "%.3f", r.pf_wall);
		snprintf(up, sizeof up, "%.1fx", r.pf_wall / r.wall);
		if (fabs(r.pf_sim - r.sim) > 1e-9 * r.sim) {
			snprintf(up, sizeof up, "DIFFER");
			missed = 1;
		}
	}
	if (b->max_s > 0) {
		int ok = r.wall <= b->max_s && (b->max_MiB <= 0 || mib <= b->max_MiB);
		if (b->max_MiB > 0)
			snprintf(target, sizeof target, "%s (<= %.0f s, <= %.0f MiB)", ok ? "ok" : "MISSED", b->max_s,
			         b->max_MiB);
		else
			snprintf(target, sizeof target, "%s (<= %.0f s)", ok ? "ok" : "MISSED", b->max_s);
		missed |= !ok;
	}
	if (b->min_vs_simgrid > 0) {
		double vs = 7.3 / r.wall;
		int ok = vs >= b->min_vs_simgrid;
		snprintf(target, sizeof target, "%s (%.0fx SimGrid's 7.3 s; >= %.0fx)", ok ? "ok" : "MISSED", vs,
		         b->min_vs_simgrid);
		missed |= !ok;
	}
	if (far) {
		size_t l = strcmp(target, "-") ? strlen(target) : 0;
		snprintf(target + l, sizeof target - l, "%sMISSED (off by more than 2%%)", l ? "; " : "");
		missed = 1;
	}
	printf("%-22s %8.0f %10.3f %10.3f %9.3f %8.1f %11.0f %8.0f %12.0f %4.0f %9s %8s  %s\n", b->label, r.ranks,
	       r.sim * 1e3, r.closed * 1e3, r.wall, mib, r.events / r.wall, r.classes, r.flows, r.restarts, pf, up, target);
	if (r.why[0])
		printf("%-22s   (ran per flow: %s)\n", "", r.why);
	return missed;
}

int main(int argc, char **argv)
{
	/* bench_classes [LABEL-PREFIX]: only the cases whose label starts so */
	printf("simulator at cluster scale: flow classes vs the per-flow solver (cluster-16k-3tier, radix 128, 2:1 "
	       "spines; one core)\n");
	printf("%-22s %8s %10s %10s %9s %8s %11s %8s %12s %4s %9s %8s  %s\n", "case", "ranks", "sim_ms", "closed_ms",
	       "wall_s", "rss_MiB", "events/s", "classes", "flows", "rst", "flow_s", "speedup", "target");
	int missed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (argc < 2 || !strncmp(cases[i].label, argv[1], strlen(argv[1])))
			missed |= print_case(&cases[i]);
	printf("not yet as classes (per flow only, so not run at these sizes): tree in LL/LL128 pieces, CollNet, "
	       "direct AllToAll, MoE dispatch/combine, round and hierarchical schedules, sprayed routing\n");
	return missed;
}
