/*
** tests/unit/test_classes.c: flow classes (sim/classes.h) change no result.
**
** - weighted max-min (flow.h): m copies of a random system sharing some
**   resources, solved expanded and as one class per base flow (weight m on
**   the shared resources, 1 on the copied ones): the class rates are the
**   members' rates within 1e-12, and the max-min check holds on both;
** - NVLS-tree across 8 GB200 NVL72 racks and a 16-channel tree on 64 HGX
**   nodes under D-mod-k: split once, then refined by the lanes'
**   dependencies within a step, each finishes as classes equal to per flow;
** - every shipped topology (small node counts), ring AllReduce, AllGather
**   and ReduceScatter in both granularities and tree AllReduce, seeded sizes and channels,
**   with and without a static fault (a NIC at 50%, a spine link down) or a
**   straggler, and under each routing named (dmodk, InfiniBand's default;
**   ecmp on an InfiniBand cluster; dmodk on a RoCE one): the class run's time
**   and every resource's bytes and busy time equal the per-flow run's
**   within 1e-9 relative; and on the symmetric clusters the class run did
**   run as classes (far fewer classes than lanes).
** The seed is printed when a check fails.
*/
#include "../../sim/sched/build.h"
#include "../check.h"
#include "fixture.h"

#include "../../sim/classes.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static uint64_t seed0;

static int push_nothing(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	(void)ctx;
	(void)flow;
	(void)done;
	(void)ver;
	return CCS_OK;
}

/* One random base system: nb flows over nown own resources (copied per
 * member) and nsh shared ones; m copies expanded against one class each. */
static void weighted_case(void)
{
	int m = 2 + (int)(fx_next() % 7), nown = 1 + (int)(fx_next() % 6), nsh = 1 + (int)(fx_next() % 4);
	int nb = 1 + (int)(fx_next() % 8);
	double cap[64];
	for (int i = 0; i < nown + nsh; i++)
		cap[i] = 1e9 * (1 + (double)(fx_next() % 10));
	/* expanded: copy c's own resource i is c * nown + i; shared after all */
	double ecap[64 * 9];
	uint32_t ne = (uint32_t)(m * nown + nsh);
	for (int c = 0; c < m; c++)
		for (int i = 0; i < nown; i++)
			ecap[c * nown + i] = cap[i];
	for (int i = 0; i < nsh; i++)
		ecap[m * nown + i] = cap[nown + i];
	struct ccs_flows *fe, *fq;
	CHECK(!ccs_flows_new(&fe, ne, ecap));
	CHECK(!ccs_flows_new(&fq, (uint32_t)(nown + nsh), cap));
	uint32_t qid[8], eid[8][9];
	for (int b = 0; b < nb; b++) {
		uint32_t res[CCS_FLOW_MAXPATH], eres[CCS_FLOW_MAXPATH];
		double w[CCS_FLOW_MAXPATH];
		int n = 0;
		for (int i = 0; i < nown + nsh && n < 6; i++)
			if (fx_next() % 2 || (i == nown + nsh - 1 && !n)) {
				res[n] = (uint32_t)i;
				w[n++] = i < nown ? 1.0 : (double)m;
			}
		CHECK(!ccs_flows_add_w(fq, res, w, n, 1e6, (uint64_t)b, 0, &qid[b]));
		for (int c = 0; c < m; c++) {
			for (int k = 0; k < n; k++)
				eres[k] = res[k] < (uint32_t)nown ? (uint32_t)(c * nown) + res[k] : (uint32_t)(m * nown) + res[k] - (uint32_t)nown;
			CHECK(!ccs_flows_add(fe, eres, n, 1e6, (uint64_t)b, 0, &eid[b][c]));
		}
	}
	CHECK(!ccs_flows_update(fe, 0, push_nothing, NULL));
	CHECK(!ccs_flows_update(fq, 0, push_nothing, NULL));
	int bad = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int b = 0; b < nb; b++)
			for (int c = 0; c < m; c++) {
				double re = ccs_flows_rate(fe, eid[b][c]), rq = ccs_flows_rate(fq, qid[b]);
				bad += fabs(re - rq) > 1e-12 * (re > rq ? re : rq);
			}
		if (pass)
			break;
		/* the first class moves to another path (a timed fault's reroute,
		 * ccs_flows_reroute_w), and each of its members with it */
		uint32_t res[CCS_FLOW_MAXPATH], eres[CCS_FLOW_MAXPATH];
		double w[CCS_FLOW_MAXPATH];
		int n = 0;
		for (int i = nown + nsh - 1; i >= 0 && n < 6; i--)
			if (fx_next() % 2 || (i == 0 && !n)) {
				res[n] = (uint32_t)i;
				w[n++] = i < nown ? 1.0 : (double)m;
			}
		CHECK(!ccs_flows_reroute_w(fq, qid[0], res, w, n, 1000));
		for (int c = 0; c < m; c++) {
			for (int k = 0; k < n; k++)
				eres[k] = res[k] < (uint32_t)nown ? (uint32_t)(c * nown) + res[k] : (uint32_t)(m * nown) + res[k] - (uint32_t)nown;
			CHECK(!ccs_flows_reroute(fe, eid[0][c], eres, n, 1000));
		}
		CHECK(!ccs_flows_update(fe, 1000, push_nothing, NULL));
		CHECK(!ccs_flows_update(fq, 1000, push_nothing, NULL));
	}
	if (bad)
		fprintf(stderr, "weighted max-min differs from the expanded system (seed %llu)\n", (unsigned long long)seed0);
	CHECK(!bad);
	CHECK(ccs_flows_check(fe) == 0);
	CHECK(ccs_flows_check(fq) == 0);
	ccs_flows_free(fe);
	ccs_flows_free(fq);
}

struct cmp_case {
	const char *topo;
	const char *sets[3];
	int nsets;
};

/* One run; fills st and *fl (caller frees). */
static int run_one(struct ccs_fabric *fab, const struct ccs_comm *c, int coll, int algo, int channels, uint64_t bytes,
                   int flags, int classes, struct ccs_sim_stats *st, struct ccs_flows **fl)
{
	struct ccs_sched s;
	const char *why;
	char err[256];
	if (ccs_sched_build_flags(c, coll, algo, CCS_PROTO_SIMPLE, channels, bytes, flags, &s, &why))
		return -1;
	ccs_fabric_set_classes(fab, classes);
	int rc = ccs_sim_run(fab, &s, st, fl, err, sizeof err);
	if (rc)
		fprintf(stderr, "run: %s\n", err);
	ccs_sched_release(&s);
	ccs_fabric_set_classes(fab, 1);
	return rc;
}

static int near(double a, double b, double rel, double abs_)
{
	return fabs(a - b) <= rel * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + abs_;
}

/* Class run against per-flow run: time, bytes and busy time per resource. */
static int compare(const struct ccs_comm *c, struct ccs_fabric *fab, int coll, int algo, int channels, uint64_t bytes,
                   int flags, uint32_t *classes_out)
{
	struct ccs_sim_stats a, b;
	struct ccs_flows *fa = NULL, *fb = NULL;
	if (run_one(fab, c, coll, algo, channels, bytes, flags, 1, &a, &fa) ||
	    run_one(fab, c, coll, algo, channels, bytes, flags, 0, &b, &fb)) {
		ccs_flows_free(fa);
		ccs_flows_free(fb);
		return 1;
	}
	int bad = !near(a.time_s, b.time_s, 1e-9, 0) || b.classes != 0 || a.ops != b.ops ||
	          !near(a.bytes_sent, b.bytes_sent, 1e-9, 0) || !near(a.bytes_received, b.bytes_received, 1e-9, 0);
	if (bad)
		fprintf(stderr, "stats: ops %llu/%llu sent %.17g/%.17g received %.17g/%.17g\n", (unsigned long long)a.ops,
		        (unsigned long long)b.ops, a.bytes_sent, b.bytes_sent, a.bytes_received, b.bytes_received);
	for (uint32_t r = 0; r < ccs_fabric_nres(fab); r++) {
		const struct ccs_res_stats *x = ccs_flows_stats(fa, r), *y = ccs_flows_stats(fb, r);
		int d = !near(x->bytes, y->bytes, 1e-9, 1e-3) || !near(x->busy_s, y->busy_s, 1e-9, 1e-15) ||
		        !near(x->peak_util, y->peak_util, 1e-9, 1e-12);
		if (d && bad < 3)
			fprintf(stderr, "resource %u: bytes %.17g/%.17g busy %.17g/%.17g peak %.17g/%.17g\n", r, x->bytes,
			        y->bytes, x->busy_s, y->busy_s, x->peak_util, y->peak_util);
		bad += d;
	}
	if (bad)
		fprintf(stderr, "classes differ: coll %d algo %d ch %d %llu B flags %d: %.9e vs %.9e s (%u classes; seed %llu)\n",
		        coll, algo, channels, (unsigned long long)bytes, flags, a.time_s, b.time_s, a.classes,
		        (unsigned long long)seed0);
	*classes_out = a.classes;
	if (getenv("CCS_TEST_TIMES"))
		fprintf(stderr, "  coll %d algo %d ch %d %llu B flags %d: %u classes of %d ranks%s%s\n", coll, algo, channels,
		        (unsigned long long)bytes, flags, a.classes, c->n, a.per_flow_why ? ": " : "",
		        a.per_flow_why ? a.per_flow_why : "");
	ccs_flows_free(fa);
	ccs_flows_free(fb);
	return bad;
}

static const struct cmp_case cases[] = {
	{ "topologies/hgx-h100.yaml", { "nodes=4" }, 1 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=8" }, 1 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=6", "faults+=nic:node2/nic0:50%" }, 2 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=4", "faults+=straggler:node1/gpu3:20us" }, 2 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=4", "faults+=straggler:node0/gpu5:50%" }, 2 },
	{ "topologies/cluster-16k-3tier.yaml", { "nodes=34" }, 1 },
	/* each routing named (InfiniBand defaults to dmodk, RoCE to ecmp) */
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=8", "scaleout.routing=ecmp" }, 2 },
	{ "topologies/pcie-8gpu.yaml", { "nodes=4", "scaleout.routing=dmodk" }, 2 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=36", "faults+=link:leaf0-spine0:down" }, 2 },
	/* timed faults: epochs with their own capacities and routes */
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=36", "faults+=link:leaf0-spine0:down@30us" }, 2 },
	{ "topologies/hgx-h100-cluster.yaml", { "nodes=6", "faults+=nic:node2/nic0:50%@20us" }, 2 },
	{ "topologies/hgx-h100-cluster.yaml",
	  { "nodes=36", "faults+=link:leaf0-spine0:down@15us", "faults+=link:leaf1-spine3:down@60us" }, 3 },
	{ "topologies/cluster-16k-3tier.yaml", { "nodes=34", "faults+=link:leaf0-spine0:down@25us" }, 2 },
	{ "topologies/hgx-h800.yaml", { "nodes=3" }, 1 },
	{ "topologies/hgx-b200.yaml", { "nodes=2" }, 1 },
	{ "topologies/dgx-a100.yaml", { "nodes=2" }, 1 },
	{ "topologies/aws-p4de.yaml", { "nodes=2" }, 1 },
	{ "topologies/aws-p5.yaml", { "nodes=2" }, 1 },
	{ "topologies/aws-p5en.yaml", { "nodes=2" }, 1 },
	{ "topologies/pcie-8gpu.yaml", { 0 }, 0 },
	{ "topologies/ascend-8npu-hccs.yaml", { 0 }, 0 },
	{ "topologies/gb200-nvl72.yaml", { 0 }, 0 },
	{ "topologies/cloudmatrix384.yaml", { 0 }, 0 },
};

/* 1 when the topology (or its sets) does not load here: reported once */
static int shipped_case(const struct cmp_case *k, int *lumped, int *nvls)
{
	struct fx_world w;
	if (fx_world_up(&w, k->topo, k->sets, k->nsets, 0) || !w.t) {
		fprintf(stderr, "classes: %s does not load\n", k->topo);
		return 1;
	}
	int bad = 0;
	static const int colls[] = { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER, CCS_COLL_ALLREDUCE,
		                     CCS_COLL_SENDRECV };
	static const int algos[] = { CCS_ALGO_RING, CCS_ALGO_RING, CCS_ALGO_RING, CCS_ALGO_TREE, CCS_ALGO_DIRECT };
	for (int i = 0; i < 5; i++) {
		int coll = colls[i], algo = algos[i], ch = (int)(fx_next() % 3);   /* 0: NCCL's */
		/* the per-flow tree of a 384-rank domain takes seconds: rings only there */
		if (algo == CCS_ALGO_TREE && w.c.n > 256)
			continue;
		uint64_t bytes = (uint64_t)1 << (14 + fx_next() % 14);
		bytes += fx_next() % 4096 * 4;
		int flags = fx_next() % 2 ? CCS_SCHED_STEP : 0;
		uint32_t q = 0;
		bad += compare(&w.c, w.fab, coll, algo, ch, bytes, flags, &q);
		*lumped += q > 0;
	}
	/* NVLS-tree across multicast domains: NVLS beside the rail trees, a
	 * concatenation whose parts' lanes end apart */
	if (w.c.nvls && w.c.G > 1 && w.c.p_min == w.c.p) {
		uint32_t q = 0;
		uint64_t bytes = ((uint64_t)1 << (16 + fx_next() % 14)) + fx_next() % 4096 * 4;
		bad += compare(&w.c, w.fab, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS_TREE, 0, bytes, 0, &q);
		*lumped += q > 0;
		*nvls += q > 0;
	}
	/* NVLS inside one multicast domain: one op per rank */
	for (int i = 0; w.c.nvls && w.c.G == 1 && i < 2; i++) {
		uint32_t q = 0;
		uint64_t bytes = ((uint64_t)1 << (14 + fx_next() % 16)) + fx_next() % 4096 * 4;
		bad += compare(&w.c, w.fab, i ? CCS_COLL_ALLGATHER : CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, 0, bytes, 0, &q);
		*lumped += q > 0;
		*nvls += q > 0;
	}
	fx_world_down(&w);
	return bad;
}

/* A leaf-spine link that carries the healthy ring's traffic, struck down
 * at half the healthy run's time: in-flight class ops cross it then, so
 * the class run must move them (their bytes) to the epoch's detour.  The
 * class run equals the per-flow run, runs as classes, and the struck link
 * carries less than it did healthy. */
static int timed_reroute_case(int algo, int ch)
{
	static const char *topo = "topologies/hgx-h100-cluster.yaml";
	const char *sets[2] = { "nodes=36", NULL };
	struct fx_world w;
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	uint64_t bytes = 64ull << 20;
	if (fx_world_up(&w, topo, sets, 1, 0) || run_one(w.fab, &w.c, CCS_COLL_ALLREDUCE, algo, ch, bytes, 0, 1, &st, &fl))
		return 1;
	uint32_t best = UINT32_MAX;
	double most = 0;
	for (uint32_t r = 0; r < ccs_fabric_nres(w.fab); r++)
		if (ccs_fabric_res_kind(w.fab, r) == 2 && ccs_flows_stats(fl, r)->bytes > most) {
			most = ccs_flows_stats(fl, r)->bytes;
			best = r;
		}
	char name[128], spec[192];
	if (best != UINT32_MAX)
		ccs_fabric_res_name(w.fab, best, name, sizeof name);
	ccs_flows_free(fl);
	fx_world_down(&w);
	CHECK(best != UINT32_MAX);
	if (best == UINT32_MAX)
		return 1;
	char *arrow = strstr(name, "->"), *sp = strchr(name, ' ');
	if (!arrow || !sp)
		return 1;
	*sp = 0;
	*arrow = 0;
	snprintf(spec, sizeof spec, "faults+=link:%s-%s:down@%.0fus", name, arrow + 2, st.time_s * 0.5e6);
	sets[1] = spec;
	if (fx_world_up(&w, topo, sets, 2, 0))
		return 1;
	uint32_t q = 0;
	int bad = compare(&w.c, w.fab, CCS_COLL_ALLREDUCE, algo, ch, bytes, 0, &q);
	CHECK(q > 0);
	struct ccs_sim_stats st2;
	if (!run_one(w.fab, &w.c, CCS_COLL_ALLREDUCE, algo, ch, bytes, 0, 1, &st2, &fl)) {
		CHECK(ccs_flows_stats(fl, best)->bytes < most * 0.9);
		CHECK(st2.classes > 0);
		ccs_flows_free(fl);
	}
	if (getenv("CCS_TEST_TIMES"))
		fprintf(stderr, "timed reroute (%s): %u classes, %.6e s healthy, %.6e s struck, '%s'\n",
		        algo == CCS_ALGO_RING ? "ring" : "tree", q, st.time_s, st2.time_s, spec);
	fx_world_down(&w);
	return bad;
}

/* Trees whose lanes differ in what they wait for within a step: after the
 * first class op that would not start whole, the run tells the lanes apart
 * by their dependencies within a step (ccs_classes_by_deps) and finishes as
 * classes with no more restarts, equal to the per-flow run (time, bytes,
 * every resource).  NVLS-tree across 8 GB200 NVL72 racks with NCCL's
 * channels (before: 8 restarts, then every kind of dependency); the tree
 * with 16 channels on 64 HGX nodes under D-mod-k (before: 65 restarts, one
 * class each, then per flow). */
static int deps_one(const char *topo, const char *const *sets, int nsets, int algo, int ch, uint64_t bytes)
{
	struct fx_world w;
	if (fx_world_up(&w, topo, sets, nsets, 0))
		return 1;
	uint32_t q = 0;
	int bad = compare(&w.c, w.fab, CCS_COLL_ALLREDUCE, algo, ch, bytes, 0, &q);
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	if (!run_one(w.fab, &w.c, CCS_COLL_ALLREDUCE, algo, ch, bytes, 0, 1, &st, &fl)) {
		CHECK(st.classes > 0 && st.restarts == 1);
		ccs_flows_free(fl);
	} else
		CHECK(0);
	CHECK(q > 0);
	fx_world_down(&w);
	return bad;
}

/* Lumped classes (--fidelity aggregate): the tree with 16 channels on 64
 * HGX nodes under D-mod-k runs once on the classes its routes give, no
 * restart, fewer classes than the exact run's, every byte moved, and each
 * class op starting with its last member: never sooner than every flow,
 * and here within 0.5% of it (docs/simulator.md). */
static int lump_case(void)
{
	const char *hgx[] = { "nodes=64", "scaleout.radix=128" };
	struct fx_world w;
	if (fx_world_up(&w, "topologies/cluster-16k-3tier.yaml", hgx, 2, 0))
		return 1;
	struct ccs_sim_stats ex, lu, pf;
	struct ccs_flows *fl = NULL;
	int bad = 0;
	for (int m = 0; m < 3 && !bad; m++) {
		struct ccs_sim_stats *st = m == 0 ? &ex : m == 1 ? &lu : &pf;
		int mode = m == 0 ? CCS_CLASSES_EXACT : m == 1 ? CCS_CLASSES_LUMP : CCS_CLASSES_OFF;
		bad = run_one(w.fab, &w.c, CCS_COLL_ALLREDUCE, CCS_ALGO_TREE, 16, 256ull << 20, 0, mode, st, &fl);
		ccs_flows_free(fl);
		fl = NULL;
	}
	if (!bad) {
		CHECK(ex.restarts == 1 && !ex.lumped && ex.classes > 0);
		CHECK(lu.restarts == 0 && lu.lumped && lu.classes > 0 && lu.classes < ex.classes);
		CHECK(pf.classes == 0 && !pf.lumped);
		CHECK(near(ex.time_s, pf.time_s, 1e-9, 0));
		CHECK(lu.time_s >= pf.time_s && lu.time_s <= 1.005 * pf.time_s && lu.time_s > pf.time_s * (1 + 1e-9));
		CHECK(lu.ops == pf.ops && near(lu.bytes_sent, pf.bytes_sent, 1e-9, 0) &&
		      near(lu.bytes_received, pf.bytes_received, 1e-9, 0));
	}
	fx_world_down(&w);
	return bad;
}

static int deps_case(void)
{
	const char *gb[] = { "nodes=144" }, *hgx[] = { "nodes=64", "scaleout.radix=128" };
	int bad = deps_one("topologies/gb200-nvl72.yaml", gb, 1, CCS_ALGO_NVLS_TREE, 0, 1ull << 30);
	return bad + deps_one("topologies/cluster-16k-3tier.yaml", hgx, 2, CCS_ALGO_TREE, 16, 256ull << 20);
}

int main(void)
{
	const char *env = getenv("CCS_TEST_SEED");
	seed0 = env ? strtoull(env, NULL, 10) : 20261201;
	fx_rng = seed0;
	for (int i = 0; i < 300; i++)
		weighted_case();
	int bad = 0, lumped = 0, hgx_lumped = 0, nvls = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int l = 0;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		bad += shipped_case(&cases[i], &l, &nvls);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (getenv("CCS_TEST_TIMES"))
			fprintf(stderr, "%s %s: %.2f s, %d lumped\n", cases[i].topo, cases[i].sets[0] ? cases[i].sets[0] : "",
			        (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), l);
		lumped += l;
		if (i == 1)
			hgx_lumped = l;
	}
	bad += timed_reroute_case(CCS_ALGO_RING, 1);
	bad += timed_reroute_case(CCS_ALGO_RING, 0);
	bad += timed_reroute_case(CCS_ALGO_TREE, 1);
	bad += deps_case();
	bad += lump_case();
	CHECK(!bad);
	/* the 64-rank cluster: rings, the tree, SendRecv and NVLS-tree ran as classes */
	CHECK(hgx_lumped == 6);
	CHECK(lumped > 10);
	/* the NVL72 rack's NVLS and the HGX clusters' NVLS-tree ran as classes */
	CHECK(nvls >= 6);
	return CHECK_DONE("classes");
}
