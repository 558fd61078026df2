/*
** tests/unit/test_moe.c: expert-parallel traffic (model/moe.h) and its
** schedule (sim/sched/expert.c).
**   - conservation: each algorithm moves what the routing says, counted here
**     independently from the picks (LL: tokens x top-k x bytes; direct: one
**     copy per (token, rank); deepep_normal: one network copy per (token,
**     remote node), one scale-up copy per (token, rank) there)
**   - skew (zipf, hot experts) raises max/mean received and the time;
**     replicas of the hot experts bring both down again
**   - the same seed gives the same picks, another seed others; top-k distinct
**   - the simulation agrees with the closed form where nothing contends
**   - bad configurations are refused with a reason
**   - KV-cache transfers (model/kv.h): bytes add up to the cache, counted
**     here from the head ranges; TP 8 -> 4 and 4 -> 8 pair the right ranks;
**     layer streaming hides the transfer behind compute when a layer's
**     transfer is shorter than its compute; both engines agree
**   - the aggregate (sim/sched/expert_agg.h): every rank sends to each leaf,
**     and takes from each leaf, the network tokens the plan has it move; every
**     forwarder forwards each rank what it would; no piece stays inside a
**     group; a hot receiver the circulant cannot feed, or receivers it
**     misses, fall back to the north-west corner with the same sums; a
**     forward not leaving from its parent's receiver is refused; simulated within 2% of every
**     flow on 8 HGX H800 nodes, uniform and skewed routing, both directions
*/
#include "../check.h"

#include "../../model/kv.h"
#include "../../model/moe.h"
#include "../../model/moe_family.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"
#include "../../sim/sched/expert_agg.h"
#include "../../model/topo.h"

#include <stdlib.h>
#include <string.h>

/* nodes nodes of topology path and a communicator of all their GPUs: 0, or
 * -1 with nothing left to release. */
static int up_on(const char *path, struct ccs_topo **t, struct ccs_comm *c, int nodes)
{
	char nb[32], err[256];
	snprintf(nb, sizeof nb, "nodes=%d", nodes);
	const char *sets[] = { nb };
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	*t = NULL;
	if (ccs_topo_yaml_load(path, sets, 1, t, &d)) {
		fprintf(stderr, "load: %s\n", d.msg);
		return -1;
	}
	if (ccs_comm_build(*t, 0, 0, c, err, sizeof err)) {
		fprintf(stderr, "comm: %s\n", err);
		ccs_topo_free(*t);
		return -1;
	}
	return 0;
}

/* nodes HGX H800 nodes */
static int up(struct ccs_topo **t, struct ccs_comm *c, int nodes)
{
	return up_on("topologies/hgx-h800.yaml", t, c, nodes);
}

static void down(struct ccs_topo *t, struct ccs_comm *c)
{
	ccs_comm_release(c);
	ccs_topo_free(t);
}

static int eval(const struct ccs_comm *c, const struct ccs_moe_cfg *cfg, int op, int algo, struct ccs_moe_cost *mc,
                struct ccs_moe_plan *keep)
{
	struct ccs_moe_routing r;
	struct ccs_moe_plan p;
	char why[160];
	if (ccs_moe_route(cfg, c, NULL, &r))
		return -1;
	int rc = ccs_moe_plan(c, cfg, &r, NULL, op, algo, &p, why, sizeof why);
	ccs_moe_routing_release(&r);
	if (rc)
		return -1;
	rc = ccs_moe_eval(c, &p, mc);
	if (keep)
		*keep = p;
	else
		ccs_moe_plan_release(&p);
	return rc;
}

static void test_conservation(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	int ok = !up(&t, &c, 4);
	CHECK(ok);
	if (!ok)
		return;
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	cfg.tokens = 256;
	cfg.fp8 = 1;
	cfg.dist = CCS_MOE_ZIPF;
	cfg.skew = 0.8;
	double tb = 7168 + 4 * 56;
	struct ccs_moe_routing r;
	CHECK(!ccs_moe_route(&cfg, &c, NULL, &r));
	/* independent counts from the picks */
	double direct = 0, net = 0, su = 0;
	int distinct_ok = 1, p = c.p;
	for (int s = 0; s < c.n; s++)
		for (int tk = 0; tk < cfg.tokens; tk++) {
			const int32_t *e = r.expert + ((size_t)s * cfg.tokens + tk) * cfg.topk;
			const int32_t *rk = r.rank + ((size_t)s * cfg.tokens + tk) * cfg.topk;
			int ranks[64], nr = 0, nodes[64], nn = 0;
			for (int j = 0; j < cfg.topk; j++) {
				for (int i = 0; i < j; i++)
					distinct_ok &= e[i] != e[j];
				distinct_ok &= e[j] >= 0 && e[j] < cfg.experts && rk[j] == e[j] / (cfg.experts / c.n);
				int seen = 0;
				for (int i = 0; i < nr; i++)
					seen |= ranks[i] == rk[j];
				if (!seen)
					ranks[nr++] = rk[j];
				seen = 0;
				for (int i = 0; i < nn; i++)
					seen |= nodes[i] == rk[j] / p;
				if (!seen)
					nodes[nn++] = rk[j] / p;
			}
			for (int i = 0; i < nr; i++) {
				direct += ranks[i] != s;
				/* normal: scale-up from the forwarder (the source on its own
				 * node, the member of its index elsewhere) unless it is it */
				int fw = ranks[i] / p == s / p ? s : ranks[i] / p * p + s % p;
				su += ranks[i] != fw;
			}
			for (int i = 0; i < nn; i++)
				net += nodes[i] != s / p;
		}
	CHECK(distinct_ok);
	ccs_moe_routing_release(&r);
	struct ccs_moe_cost mc;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &mc, NULL));
	CHECK_NEAR(mc.scaleup_bytes + mc.net_bytes + mc.local_bytes, (double)c.n * cfg.tokens * cfg.topk * tb, 1e-12);
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_DIRECT, &mc, NULL));
	CHECK_NEAR(mc.scaleup_bytes + mc.net_bytes, direct * tb, 1e-12);
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_NORMAL, &mc, NULL));
	CHECK_NEAR(mc.net_bytes, net * tb, 1e-12);
	CHECK_NEAR(mc.scaleup_bytes, su * tb, 1e-12);
	/* node-level deduplication saves network bytes over direct */
	struct ccs_moe_cost md;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_DIRECT, &md, NULL));
	CHECK(mc.net_bytes < md.net_bytes);
	/* combine moves the same bytes the other way (bf16 here) */
	struct ccs_moe_cost mcd, mcc;
	cfg.fp8 = 0;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_NORMAL, &mcd, NULL));
	CHECK(!eval(&c, &cfg, CCS_MOE_COMBINE, CCS_MOE_NORMAL, &mcc, NULL));
	CHECK_NEAR(mcc.net_bytes, mcd.net_bytes, 1e-12);
	CHECK_NEAR(mcc.send_max, mcd.recv_max, 1e-12);
	down(t, &c);
}

static void test_skew(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	int ok = !up(&t, &c, 2);
	CHECK(ok);
	if (!ok)
		return;
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	cfg.tokens = 512;
	struct ccs_moe_cost u, z, h, hr;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &u, NULL));
	cfg.dist = CCS_MOE_ZIPF;
	cfg.skew = 1.2;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &z, NULL));
	cfg.dist = CCS_MOE_HOT;
	cfg.hot = 4;
	cfg.hot_share = 0.6;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &h, NULL));
	cfg.replicas = 3;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &hr, NULL));
	double iu = u.recv_max / u.recv_mean, iz = z.recv_max / z.recv_mean, ih = h.recv_max / h.recv_mean;
	double ihr = hr.recv_max / hr.recv_mean;
	CHECK(iu < 1.15);
	CHECK(iz > 1.5 * iu && z.time_s > 1.3 * u.time_s);
	CHECK(ih > 2 * iu && h.time_s > 1.5 * u.time_s);
	CHECK(ihr < ih && hr.time_s < h.time_s);
	/* the same bytes leave in all four: only where they go changes */
	CHECK_NEAR(z.scaleup_bytes + z.net_bytes + z.local_bytes, u.scaleup_bytes + u.net_bytes + u.local_bytes, 1e-12);
	down(t, &c);
}

static void test_seed_and_checks(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	char err[256];
	int ok = !up(&t, &c, 1);
	CHECK(ok);
	if (!ok)
		return;
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	struct ccs_moe_routing a, b, d;
	CHECK(!ccs_moe_route(&cfg, &c, NULL, &a));
	CHECK(!ccs_moe_route(&cfg, &c, NULL, &b));
	cfg.seed = 2;
	CHECK(!ccs_moe_route(&cfg, &c, NULL, &d));
	size_t np = (size_t)c.n * cfg.tokens * cfg.topk;
	CHECK(!memcmp(a.expert, b.expert, np * sizeof *a.expert));
	CHECK(memcmp(a.expert, d.expert, np * sizeof *a.expert) != 0);
	ccs_moe_routing_release(&a);
	ccs_moe_routing_release(&b);
	ccs_moe_routing_release(&d);
	ccs_moe_cfg_default(&cfg);
	cfg.topk = 9;
	cfg.experts = 8;
	CHECK(ccs_moe_check(&cfg, c.n, err, sizeof err) == CCS_EINPUT && !strcmp(err, "top-k 9 is above the expert count 8"));
	ccs_moe_cfg_default(&cfg);
	cfg.dist = CCS_MOE_HOT;
	cfg.hot = 0;
	CHECK(ccs_moe_check(&cfg, c.n, err, sizeof err) == CCS_EINPUT);
	/* scaleup across domains is refused with a reason */
	ccs_moe_cfg_default(&cfg);
	struct ccs_moe_cost mc;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_SCALEUP, &mc, NULL));
	down(t, &c);
	ok = !up(&t, &c, 2);
	CHECK(ok);
	if (!ok)
		return;
	CHECK(eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_SCALEUP, &mc, NULL) < 0);
	down(t, &c);
}

/* Simulation against the closed form: with every transfer of a kind
 * starting at once and no contention beyond the ports the closed form
 * counts, the two agree within 1% (LL, direct on 1-4 nodes; deepep_normal
 * on one node); deepep_normal across nodes pipelines the forwarding behind
 * the RDMA chunks and is slower by the pipeline's fill, within 10%. */
static void test_sim_agrees(void)
{
	/* H800 (one NIC a GPU) on 1-4 nodes, then AWS p5en and p5 on 2 (two and
	 * four EFA NICs a GPU, two GPUs behind a PCIe switch sharing them: the
	 * simulator must drive every NIC of a rank, as the closed form counts) */
	static const struct { const char *topo; int nodes; } runs[] = {
		{ "topologies/hgx-h800.yaml", 1 }, { "topologies/hgx-h800.yaml", 2 }, { "topologies/hgx-h800.yaml", 4 },
		{ "topologies/aws-p5en.yaml", 2 }, { "topologies/aws-p5.yaml", 2 },
	};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		int nodes = runs[k].nodes;
		struct ccs_topo *t;
		struct ccs_comm c;
		char err[256];
		int ok = !up_on(runs[k].topo, &t, &c, nodes);
		CHECK(ok);
		if (!ok)
			return;
		struct ccs_fabric *fab;
		CHECK(!ccs_fabric_new(&c, &fab));
		struct ccs_moe_cfg cfg;
		ccs_moe_cfg_default(&cfg);
		cfg.topk_groups = nodes > 1 ? nodes : 0;
		for (int op = 0; op < 2; op++)
			for (int a = 0; a < CCS_MOE_ALGO_N; a++) {
				struct ccs_moe_plan p;
				struct ccs_moe_cost mc;
				if (eval(&c, &cfg, op, a, &mc, &p))
					continue;       /* scaleup across nodes */
				struct ccs_sched s;
				const char *why;
				struct ccs_sim_stats st;
				ccs_fabric_cap_copy(fab, p.copy_Bps);
				CHECK(!ccs_sched_expert(&c, &p, &s, &why));
				CHECK(!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err));
				ccs_sched_release(&s);
				CHECK_NEAR(st.bytes_received, st.bytes_sent, 1e-9);
				int fwd = ccs_moe_family_of(a)->pattern == CCS_MOE_NORMAL;
				double tol = fwd && nodes > 1 ? 0.10 : 0.01;
				CHECK(st.time_s >= mc.time_s * (1 - 1e-6) || !fwd);
				CHECK_NEAR(st.time_s, mc.time_s, tol);
				ccs_moe_plan_release(&p);
			}
		ccs_fabric_free(fab);
		down(t, &c);
	}
}

/* Kernel families (model/moe_family.h): the SM budget caps the copy ports
 * at S/2 x r_sm (--sms 8 on an NVL72 rack: 4 x 90 GB/s, below its 756 GB/s
 * NVLink ports) and the simulator applies the same cap; a CPU proxy
 * (uccl_ep) adds the transport's message latency and its posting time over
 * EFA, nothing over InfiniBand; pplx and uccl_ep move deepep_ll's bytes. */
static void test_families(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	char err[256];
	if (up_on("topologies/gb200-nvl72.yaml", &t, &c, 18)) {
		CHECK(0);
		return;
	}
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	cfg.tokens = 1024;
	struct ccs_moe_cost wide, narrow;
	struct ccs_moe_plan p;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_HYBRIDEP, &wide, NULL));
	CHECK(wide.bound == CCS_BOUND_NVLINK);
	cfg.sms = 8;
	CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_HYBRIDEP, &narrow, &p));
	CHECK(narrow.bound == CCS_BOUND_SM);
	CHECK_NEAR(p.copy_Bps, 4 * ccs_moe_family_sm_Bps(CCS_ARCH_BLACKWELL), 1e-12);
	CHECK_NEAR(ccs_moe_family_sm_Bps(CCS_ARCH_BLACKWELL), 90e9, 1e-12);
	CHECK(narrow.time_s > 1.5 * wide.time_s);
	struct ccs_fabric *fab;
	CHECK(!ccs_fabric_new(&c, &fab));
	ccs_fabric_cap_copy(fab, p.copy_Bps);
	struct ccs_sched s;
	const char *why;
	struct ccs_sim_stats st;
	CHECK(!ccs_sched_expert(&c, &p, &s, &why));
	CHECK(!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err));
	CHECK_NEAR(st.time_s, narrow.time_s, 0.01);
	ccs_sched_release(&s);
	ccs_fabric_free(fab);
	ccs_moe_plan_release(&p);
	down(t, &c);

	/* a CPU proxy over EFA and over InfiniBand */
	static const char *const topo[2] = { "topologies/aws-p5en.yaml", "topologies/hgx-h800.yaml" };
	for (int k = 0; k < 2; k++) {
		if (up_on(topo[k], &t, &c, 2)) {
			CHECK(0);
			return;
		}
		ccs_moe_cfg_default(&cfg);
		struct ccs_moe_cost ll, px, uc;
		CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_LL, &ll, NULL));
		CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_PPLX, &px, NULL));
		CHECK(!eval(&c, &cfg, CCS_MOE_DISPATCH, CCS_MOE_UCCL_EP, &uc, NULL));
		CHECK_NEAR(px.net_bytes, ll.net_bytes, 1e-12);
		CHECK_NEAR(uc.net_bytes, ll.net_bytes, 1e-12);
		CHECK_NEAR(px.time_s, ll.time_s, 1e-12);
		if (k == 0)
			CHECK_NEAR(uc.lat_s - ll.lat_s, 15e-6, 1e-9);
		else
			CHECK_NEAR(uc.time_s, ll.time_s, 1e-12);
		down(t, &c);
	}
}

static void test_kv(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	char err[256];
	int ok = !up(&t, &c, 2);
	CHECK(ok);
	if (!ok)
		return;
	struct ccs_fabric *fab = NULL;
	CHECK(!ccs_fabric_new(&c, &fab));
	/* (P, Q, replicated, layer time) */
	static const struct { int P, Q, rep; double tc; } cases[] = {
		{ 8, 8, 0, 0 }, { 8, 4, 0, 0 }, { 4, 8, 0, 0 }, { 8, 8, 1, 0 }, { 8, 8, 0, 300e-6 }, { 8, 8, 0, 10e-6 },
		{ 4, 4, 0, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0] && fab; k++) {
		struct ccs_kv_cfg cfg;
		ccs_kv_cfg_default(&cfg);
		cfg.layers = 8;
		cfg.prefill = cases[k].P;
		cfg.decode = cases[k].Q;
		cfg.replicated = cases[k].rep;
		cfg.layer_s = cases[k].tc;
		if (cfg.replicated)
			cfg.dim = 576;
		struct ccs_kv_plan p;
		CHECK(!ccs_kv_plan(&c, &cfg, &p, err, sizeof err));
		/* conservation: sharded, every value of the cache once; replicated,
		 * the whole cache to each decode rank */
		double sum = 0;
		for (int i = 0; i < p.npairs; i++) {
			sum += p.pair[i].bytes;
			CHECK(p.pair[i].src < cfg.prefill && p.pair[i].dst >= c.n - cfg.decode);
			/* 8 -> 4: decode j gets prefill 2j and 2j+1; 4 -> 8: prefill i
			 * feeds decode 2i and 2i+1 */
			int j = p.pair[i].dst - (c.n - cfg.decode);
			if (!cfg.replicated && cfg.prefill == 8 && cfg.decode == 4)
				CHECK(p.pair[i].src / 2 == j);
			if (!cfg.replicated && cfg.prefill == 4 && cfg.decode == 8)
				CHECK(j / 2 == p.pair[i].src);
		}
		double cache = (double)cfg.tokens * cfg.dim * cfg.dsize;
		CHECK_NEAR(sum, cfg.replicated ? cache * cfg.decode : cache, 1e-12);
		CHECK(p.npairs == (cfg.replicated ? cfg.decode : cfg.prefill > cfg.decode ? cfg.prefill : cfg.decode));
		struct ccs_kv_cost kc;
		CHECK(!ccs_kv_eval(&c, &cfg, &p, &kc));
		CHECK_NEAR(kc.net_bytes + kc.scaleup_bytes, sum * cfg.layers, 1e-12);
		if (cfg.prefill + cfg.decode == c.n)
			CHECK(kc.scaleup_bytes == 0);
		/* streaming: exposed = L + one layer when a layer's transfer is
		 * shorter than its compute, else first layer + all transfers */
		if (cfg.layer_s > kc.layer_s)
			CHECK_NEAR(kc.exposed_s, kc.lat_s + kc.layer_s, 1e-9);
		else
			CHECK_NEAR(kc.time_s, kc.lat_s + cfg.layer_s + cfg.layers * kc.layer_s, 1e-9);
		struct ccs_sched s;
		const char *why = NULL;
		struct ccs_sim_stats st;
		CHECK(!ccs_sched_kvcache(&c, &cfg, &p, &s, &why));
		CHECK(!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err));
		ccs_sched_release(&s);
		CHECK_NEAR(st.bytes_sent, sum * cfg.layers, 1e-9);
		CHECK_NEAR(st.time_s, kc.time_s, 1e-3);
		ccs_kv_plan_release(&p);
	}
	/* refused: ranks that do not fit, values that do not split */
	struct ccs_kv_cfg cfg;
	struct ccs_kv_plan p;
	ccs_kv_cfg_default(&cfg);
	cfg.prefill = 12;
	cfg.decode = 8;
	CHECK(ccs_kv_plan(&c, &cfg, &p, err, sizeof err) == CCS_EINPUT && strstr(err, "fit"));
	ccs_kv_cfg_default(&cfg);
	cfg.dim = 1000;
	cfg.decode = 3;
	CHECK(ccs_kv_plan(&c, &cfg, &p, err, sizeof err) == CCS_EINPUT && strstr(err, "split"));
	ccs_fabric_free(fab);
	down(t, &c);
}

/* Expected routing (moe.h): the same logical bytes in all as the draw, per
 * receiver for direct (local shares included); every source of an EP
 * group sending each other rank alike (direct, LL), each group alike
 * (deepep_normal's first hops); nothing leaving its EP group; priced by
 * both engines (a draw may land faster or slower than its mean: which
 * sources a hot rank's tokens come from moves its network share). */
static void test_expected(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	int ok = !up(&t, &c, 4);
	CHECK(ok);
	if (!ok)
		return;
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	cfg.tokens = 128;
	cfg.dist = CCS_MOE_ZIPF;
	cfg.skew = 0.6;
	cfg.ep = 16;
	struct ccs_moe_routing r;
	CHECK(!ccs_moe_route(&cfg, &c, NULL, &r));
	int n = c.n;
	static const int algos[] = { CCS_MOE_DIRECT, CCS_MOE_NORMAL, CCS_MOE_LL };
	for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
		struct ccs_moe_plan dp, ep;
		char why[160];
		struct ccs_moe_cfg ec = cfg;
		ec.expected = 1;
		CHECK(!ccs_moe_plan(&c, &cfg, &r, NULL, CCS_MOE_DISPATCH, algos[a], &dp, why, sizeof why));
		CHECK(!ccs_moe_plan(&c, &ec, &r, NULL, CCS_MOE_DISPATCH, algos[a], &ep, why, sizeof why));
		double ld = 0, le = 0;
		int per_recv = 1;
		for (int d = 0; d < n; d++) {
			ld += dp.logical[d];
			le += ep.logical[d];
			per_recv &= algos[a] != CCS_MOE_DIRECT || fabs(dp.logical[d] - ep.logical[d]) <= 1e-9 * dp.logical[d];
		}
		CHECK(fabs(ld - le) <= 1e-9 * ld && per_recv);
		/* alike: a first hop's tokens depend on the EP group and the
		 * destination (its group for deepep_normal), not on the source */
		double *seen = ccs_malloc((size_t)n * sizeof *seen);
		int alike = seen != NULL, across = 0;
		for (int d = 0; seen && d < n; d++)
			seen[d] = -1;
		for (size_t i = 0; seen && i < ep.nx; i++) {
			const struct ccs_moe_xfer *x = &ep.x[i];
			across += x->src / 16 != x->dst / 16;
			/* deepep_normal's RDMA messages: a first hop to another node
			 * (its own node's tokens the source forwards itself) */
			if (x->parent >= 0 || (algos[a] == CCS_MOE_NORMAL && x->src / 8 == x->dst / 8))
				continue;
			int key = algos[a] == CCS_MOE_NORMAL ? x->dst / 8 : x->dst;
			if (seen[key] < 0)
				seen[key] = x->tokens;
			else
				alike &= fabs(seen[key] - x->tokens) <= 1e-9 * x->tokens;
		}
		ccs_free(seen);
		if (!alike || across)
			fprintf(stderr, "expected %s: alike %d, %d across\n", ccs_moe_algo_name[algos[a]], alike, across);
		CHECK(alike && across == 0);
		struct ccs_moe_cost md, me;
		CHECK(!ccs_moe_eval(&c, &dp, &md) && !ccs_moe_eval(&c, &ep, &me));
		CHECK(me.time_s > 0 && md.time_s > 0 && me.time_s < 2 * md.time_s && md.time_s < 2 * me.time_s);
		ccs_moe_plan_release(&dp);
		ccs_moe_plan_release(&ep);
	}
	ccs_moe_routing_release(&r);
	down(t, &c);
}

/* Network tokens by (rank, the other end's leaf) and forwarded tokens by
 * (forwarder, rank), added into sent, recv and fwd (n x nl, n x nl, n x n):
 * plus for p, minus for the merge. */
static void agg_sums(const struct ccs_comm *c, const struct ccs_moe_plan *p, const uint32_t *leaf_ix, int nl, double sign,
                     double *sent, double *recv, double *fwd)
{
	for (size_t i = 0; i < p->nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		if (x->parent >= 0) {
			fwd[(size_t)x->src * (size_t)c->n + (size_t)x->dst] += sign * x->tokens;
			continue;
		}
		if (c->rank_group[x->src] == c->rank_group[x->dst])
			continue;
		sent[(size_t)x->src * (size_t)nl + leaf_ix[x->dst]] += sign * x->tokens;
		recv[(size_t)x->dst * (size_t)nl + leaf_ix[x->src]] += sign * x->tokens;
	}
}

/* The merge of p keeps every sum agg_sums takes, within 1e-9 of all the
 * plan's tokens, and no piece inside a group. */
static void agg_conserves(const struct ccs_comm *c, const struct ccs_moe_plan *p, const struct ccs_moe_agg *g)
{
	int n = c->n, nl = 0;
	uint32_t *leaf = ccs_malloc((size_t)n * sizeof *leaf), *ix = ccs_malloc((size_t)n * sizeof *ix);
	double *sent = ccs_calloc((size_t)n * (size_t)n, sizeof *sent), *recv = ccs_calloc((size_t)n * (size_t)n, sizeof *recv);
	double *fwd = ccs_calloc((size_t)n * (size_t)n, sizeof *fwd);
	CHECK(leaf && ix && sent && recv && fwd);
	if (!leaf || !ix || !sent || !recv || !fwd)
		goto out;
	for (int r = 0; r < n; r++) {
		leaf[r] = ccs_topo_nic_leaf(c->t, ccs_comm_nic(c, r, 0));
		int k = 0;
		while (k < r && leaf[k] != leaf[r])
			k++;
		ix[r] = k < r ? ix[k] : (uint32_t)nl++;
	}
	agg_sums(c, p, ix, nl, 1, sent, recv, fwd);
	agg_sums(c, &g->p, ix, nl, -1, sent, recv, fwd);
	double big = 0, off = 0;
	for (size_t i = 0; i < p->nx; i++)
		big += p->x[i].tokens;
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
		off = fabs(sent[i]) > off ? fabs(sent[i]) : off;
		off = fabs(recv[i]) > off ? fabs(recv[i]) : off;
		off = fabs(fwd[i]) > off ? fabs(fwd[i]) : off;
	}
	if (off > 1e-9 * big)
		fprintf(stderr, "aggregate: a sum off by %g tokens\n", off);
	CHECK(off <= 1e-9 * big);
	int inside = 0;
	for (size_t i = 0; i < g->p.nx; i++)
		inside += g->tx[i].stand > 0 && c->rank_group[g->p.x[i].src] == c->rank_group[g->p.x[i].dst];
	CHECK(inside == 0);
out:
	ccs_free(leaf);
	ccs_free(ix);
	ccs_free(sent);
	ccs_free(recv);
	ccs_free(fwd);
}

/* An empty plan of algo on c with room for cap transfers: 0, or -1 (a
 * failed check). */
static int agg_plan(const struct ccs_comm *c, int algo, size_t cap, struct ccs_moe_plan *p)
{
	memset(p, 0, sizeof *p);
	p->n = c->n;
	p->op = CCS_MOE_DISPATCH;
	p->algo = algo;
	p->tok_bytes = 7168;
	p->x = ccs_calloc(cap, sizeof *p->x);
	CHECK(p->x != NULL);
	return p->x ? 0 : -1;
}

/* Every node's rail-0 GPU sends each other one token and rank 0 a hundred:
 * eight senders of seven receivers each, so the bundle is merged; rank 0 is
 * owed 700 but the circulant of four reaches it from four senders holding
 * 424, so the corner fills the bundle. */
static void agg_hot(const struct ccs_comm *c)
{
	struct ccs_moe_plan p;
	if (agg_plan(c, CCS_MOE_DIRECT, 64, &p))
		return;
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++)
			if (a != b)
				p.x[p.nx++] = (struct ccs_moe_xfer){ 8 * a, 8 * b, -1, b ? 1 : 100, 0 };
	struct ccs_moe_agg g;
	CHECK(!ccs_moe_agg_build(c, &p, &g));
	CHECK(g.bundles == 1 && g.cornered == 1 && g.merged == 56 && g.p.nx < 56);
	agg_conserves(c, &p, &g);
	ccs_moe_agg_release(&g);
	ccs_free(p.x);
}

/* One sender (rank 0) to rail 0 of the seven other nodes, nodes 4-7 1e7
 * tokens and 1-3 1e-3, each message forwarded on (one token to the next
 * GPU of its node): the circulant of four covers nodes 4-7 only, so the
 * corner must take the bundle with every receiver and forward kept (the
 * small ones are within 1e-9 of the bundle, not of themselves);
 * and a forward that does not leave from its parent's receiver is refused. */
static void agg_tiny(const struct ccs_comm *c)
{
	struct ccs_moe_plan p;
	if (agg_plan(c, CCS_MOE_NORMAL, 16, &p))
		return;
	for (int g = 1; g < 8; g++) {
		int32_t par = (int32_t)p.nx;
		p.x[p.nx++] = (struct ccs_moe_xfer){ 0, 8 * g, -1, g >= 4 ? 1e7 : 1e-3, 0 };
		p.x[p.nx++] = (struct ccs_moe_xfer){ 8 * g, 8 * g + 1, par, 1, 1 };
	}
	struct ccs_moe_agg g;
	CHECK(!ccs_moe_agg_build(c, &p, &g));
	CHECK(g.bundles == 1 && g.cornered == 1);
	agg_conserves(c, &p, &g);
	ccs_moe_agg_release(&g);
	p.x[1].src = 9;
	int rc = ccs_moe_agg_build(c, &p, &g);
	CHECK(rc == CCS_EINPUT);
	if (!rc)
		ccs_moe_agg_release(&g);
	ccs_free(p.x);
}

/* One op of a merged dispatch's schedule continues the op before it: the
 * same ranks and an edge from it (a transfer's chunks, one lane). */
static int agg_cont(const struct ccs_sched *s, uint64_t k)
{
	struct ccs_op a, b;
	uint64_t out[CCS_SCHED_MAXSUCC];
	if (k == 0)
		return 0;
	ccs_sched_get(s, k - 1, &a);
	ccs_sched_get(s, k, &b);
	if (a.kind != CCS_OP_XFER || b.kind != CCS_OP_XFER || a.src != b.src || a.dst != b.dst)
		return 0;
	int n = ccs_sched_succ(s, k - 1, out);
	for (int i = 0; i < n; i++)
		if (out[i] == k)
			return 1;
	return 0;
}

/* A merged dispatch piece's forwards go in groups of its chunks, the last
 * ones a chunk each (sim/sched/expert.c fwd_span): the schedule moves every
 * byte of the merged plan, no forward has more ops than its parent has
 * chunks and some have fewer, and a forward's last op waits for its parent's
 * last chunk and moves the same share of its forward as that chunk does of
 * the parent. */
static void agg_forwards(const struct ccs_comm *c, const struct ccs_moe_plan *p)
{
	struct ccs_moe_agg g;
	struct ccs_sched s;
	const char *why;
	CHECK(!ccs_moe_agg_build(c, p, &g));
	CHECK(!ccs_sched_expert_flags(c, p, CCS_SCHED_AGGREGATE, &s, &why));
	double want = 0, got = 0;
	for (size_t i = 0; i < g.p.nx; i++)
		want += g.p.x[i].tokens * g.p.tok_bytes;
	uint64_t N = s.nops, *head = ccs_malloc((N + 1) * sizeof *head), *par = ccs_malloc((N + 1) * sizeof *par);
	double *tot = ccs_calloc(N + 1, sizeof *tot);
	uint32_t *len = ccs_calloc(N + 1, sizeof *len);
	CHECK(head && par && tot && len);
	for (uint64_t k = 0; head && par && tot && len && k < N; k++) {
		struct ccs_op o;
		ccs_sched_get(&s, k, &o);
		got += o.kind == CCS_OP_XFER ? o.bytes : 0;
		head[k] = agg_cont(&s, k) ? head[k - 1] : k;
		tot[head[k]] += o.bytes;
		len[head[k]]++;
		par[k] = UINT64_MAX;
	}
	CHECK_NEAR(got, want, 1e-9 * want);
	/* a forward's parent chunk: a network op releasing it */
	for (uint64_t k = 0; head && par && tot && len && k < N; k++) {
		struct ccs_op o, f;
		uint64_t out[CCS_SCHED_MAXSUCC];
		ccs_sched_get(&s, k, &o);
		if (o.kind != CCS_OP_XFER || c->rank_group[o.src] == c->rank_group[o.dst])
			continue;
		int n = ccs_sched_succ(&s, k, out);
		for (int i = 0; i < n; i++) {
			ccs_sched_get(&s, out[i], &f);
			if (f.kind == CCS_OP_XFER && c->rank_group[f.src] == c->rank_group[f.dst] && f.src == o.dst &&
			    (par[out[i]] == UINT64_MAX || k > par[out[i]]))
				par[out[i]] = k;
		}
	}
	int fewer = 0, more = 0, tails = 0, bad = 0;
	for (uint64_t k = 0; head && par && tot && len && k < N; k++) {
		if (par[k] == UINT64_MAX || head[k] != k)
			continue;
		uint64_t last = k + len[k] - 1, ph = head[par[k]], pl = ph + len[ph] - 1;
		fewer += len[k] < len[ph];
		more += len[k] > len[ph];
		struct ccs_op lf, lp;
		ccs_sched_get(&s, last, &lf);
		ccs_sched_get(&s, pl, &lp);
		tails++;
		bad += par[last] != pl || fabs(lf.bytes / tot[k] - lp.bytes / tot[ph]) > 1e-9;
	}
	CHECK(tails > 0 && fewer > 0 && more == 0 && bad == 0);
	ccs_free(head);
	ccs_free(par);
	ccs_free(tot);
	ccs_free(len);
	ccs_sched_release(&s);
	ccs_moe_agg_release(&g);
}

static void test_aggregate(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	int ok = !up(&t, &c, 8);
	CHECK(ok);
	if (!ok)
		return;
	agg_hot(&c);
	agg_tiny(&c);
	struct ccs_fabric *fab;
	CHECK(!ccs_fabric_new(&c, &fab));
	char err[256];
	for (int skew = 0; skew < 2; skew++)
		for (int a = 0; a < 2; a++)
			for (int op = 0; op < 2; op++) {
				struct ccs_moe_cfg cfg;
				ccs_moe_cfg_default(&cfg);
				cfg.tokens = 1024;
				cfg.dist = skew ? CCS_MOE_ZIPF : CCS_MOE_UNIFORM;
				int algo = a ? CCS_MOE_DIRECT : CCS_MOE_NORMAL;
				struct ccs_moe_plan p;
				struct ccs_moe_cost mc;
				if (eval(&c, &cfg, op, algo, &mc, &p)) {
					CHECK(0);
					continue;
				}
				struct ccs_moe_agg g;
				CHECK(!ccs_moe_agg_build(&c, &p, &g));
				agg_conserves(&c, &p, &g);
				if (!a && !op)
					agg_forwards(&c, &p);
				/* deepep_normal: one bundle a rail; direct: a pair of rails */
				CHECK(g.bundles == (a ? 64u : 8u) && g.p.nx < p.nx);
				ccs_moe_agg_release(&g);
				double T[2] = { 0, 0 };
				for (int f = 0; f < 2; f++) {
					struct ccs_sched s;
					const char *why;
					struct ccs_sim_stats st;
					ccs_fabric_cap_copy(fab, p.copy_Bps);
					CHECK(!ccs_sched_expert_flags(&c, &p, f ? CCS_SCHED_AGGREGATE : 0, &s, &why));
					CHECK(!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err));
					ccs_sched_release(&s);
					CHECK_NEAR(st.bytes_received, st.bytes_sent, 1e-9);
					T[f] = st.time_s;
				}
				if (!(fabs(T[1] / T[0] - 1) <= 0.02))
					fprintf(stderr, "aggregate %s %s skew %d: %g against %g us\n", ccs_moe_algo_name[algo],
					        ccs_moe_op_name[op], skew, T[1] * 1e6, T[0] * 1e6);
				CHECK(fabs(T[1] / T[0] - 1) <= 0.02);
				ccs_moe_plan_release(&p);
			}
	ccs_fabric_free(fab);
	down(t, &c);
}

int main(void)
{
	test_aggregate();
	test_conservation();
	test_expected();
	test_skew();
	test_seed_and_checks();
	test_sim_agrees();
	test_families();
	test_kv();
	return CHECK_DONE("test_moe");
}
