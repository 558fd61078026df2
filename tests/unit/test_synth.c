/*
** tests/unit/test_synth.c: the synthesizer (sim/synth/synth.h): the
** minimum arborescence against brute force, the LP bound against the
** closed-form cut where one is known, the lowered plan's invariants
** (every chunk reaches every rank once, sends pair with receives, the
** rounding keeps K chunks a shard), and the exports read back: the MSCCL
** XML and the MSCCL++ JSON through sim/sched's readers give the times of
** the schedules written directly from the plan, to the picosecond.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/xml.h"

#include "../../model/coll.h"
#include "../../sim/synth/synth.h"
#include "../../sim/synth/synth_arbo.h"

/* Every parent array of nv nodes rooted at root that is an arborescence
 * over the complete graph with costs w[u nv + v]: the least total. */
static double brute(int nv, int root, const double *w, int32_t *par, int v)
{
	if (v == nv) {
		for (int x = 0; x < nv; x++) {
			int y = x, steps = 0;
			while (y != root && steps <= nv) {
				y = par[y];
				steps++;
			}
			if (y != root)
				return HUGE_VAL;
		}
		double s = 0;
		for (int x = 0; x < nv; x++)
			if (x != root)
				s += w[par[x] * nv + x];
		return s;
	}
	if (v == root) {
		par[v] = -1;
		return brute(nv, root, w, par, v + 1);
	}
	double best = HUGE_VAL;
	for (int u = 0; u < nv; u++)
		if (u != v) {
			par[v] = u;
			double s = brute(nv, root, w, par, v + 1);
			best = s < best ? s : best;
		}
	return best;
}

static void test_arbo(void)
{
	fx_rng = 20261205;
	for (int trial = 0; trial < 200; trial++) {
		int nv = 2 + (int)(fx_next() % 5), root = (int)(fx_next() % (uint64_t)nv), m = 0;
		double w[49];
		int32_t eu[49], ev[49], sel[8], par[8];
		double ew[49];
		for (int u = 0; u < nv; u++)
			for (int v = 0; v < nv; v++) {
				/* few distinct costs, so that cycles of cheapest edges are common */
				w[u * nv + v] = (double)(fx_next() % 4) + 1;
				if (u != v) {
					eu[m] = u;
					ev[m] = v;
					ew[m++] = w[u * nv + v];
				}
			}
		double cost;
		CHECK(ccs_synth_arbo(nv, root, m, eu, ev, ew, sel, &cost) == CCS_OK);
		double want = brute(nv, root, w, par, 0);
		CHECK_NEAR(cost, want, 1e-12);
		/* the edges it names are an arborescence of that cost */
		double s = 0;
		int ok = sel[root] == -1;
		for (int v = 0; v < nv; v++)
			if (v != root) {
				ok &= ev[sel[v]] == v;
				s += ew[sel[v]];
				par[v] = eu[sel[v]];
			}
		par[root] = -1;
		CHECK(ok);
		CHECK_NEAR(s, cost, 1e-12);
		for (int v = 0; v < nv; v++) {
			int y = v, steps = 0;
			while (y != root && steps <= nv) {
				y = par[y];
				steps++;
			}
			CHECK(y == root);
		}
		if (check_fail) {
			fprintf(stderr, "seed 20261205, trial %d\n", trial);
			return;
		}
	}
	/* a node nothing enters: refused */
	int32_t eu[1] = { 0 }, ev[1] = { 1 }, sel[3];
	double ew[1] = { 1 }, cost;
	CHECK(ccs_synth_arbo(3, 0, 1, eu, ev, ew, sel, &cost) == CCS_EINPUT);
}

/* A pair's sends and receives in one order at both ends: they pair by
 * position per (sender, receiver, channel). */
static void check_pairs(const struct ccs_synth_plan *p)
{
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			int v = p->tb[i].send;
			for (uint32_t j = v >= 0 ? p->tb0[v] : 0; v >= 0 && j < p->tb0[v + 1]; j++)
				if (p->tb[j].recv == g && p->tb[j].chan == p->tb[i].chan) {
					CHECK(p->tb[j].n == p->tb[i].n);
					for (uint32_t k = 0; k < p->tb[i].n && k < p->tb[j].n; k++)
						CHECK(p->tb[i].st[k].tie == p->tb[j].st[k].tie);
				}
		}
}

/* Rounding: K chunks per root and phase (AllToAll: per commodity) in U
 * slots. */
static void check_rounding(const struct ccs_synth *s, int n)
{
	int K = s->K;
	for (int r = 0; r < n; r++)
		for (int ph = 0; ph < 2; ph++)
			for (int d = -1; d < n; d++) {
				int sum = 0, fine = 0, any = 0;
				for (int j = 0; j < s->ntree; j++)
					if (s->tree[j].root == r && s->tree[j].phase == ph && s->tree[j].dst == d) {
						sum += s->tree[j].chunks;
						fine += s->tree[j].fine;
						any = 1;
					}
				CHECK(!any || (sum == s->U && fine == K));
			}
}

/* What plan p asks of MSCCL's runtime, counted again here, within its
 * limits; the blocks steps wait on come first in their rank. */
static void check_fit(const struct ccs_synth *s, const struct ccs_synth_plan *p)
{
	int n = p->n;
	struct ccs_synth_fit f;
	CHECK(ccs_synth_fit_of(p, &f) == CCS_OK);
	uint32_t tbs = 0, steps = 0, per = 0, dep = 0, firstfree = 0;
	for (int g = 0; g < n; g++) {
		uint32_t m = p->tb0[g + 1] - p->tb0[g];
		tbs = m > tbs ? m : tbs;
		for (int ch = 0; ch < p->C; ch++)
			for (int d = 0; d < 2; d++) {
				uint32_t c = 0;
				for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
					c += p->tb[i].chan == ch && (d ? p->tb[i].recv : p->tb[i].send) >= 0;
				per = c > per ? c : per;
			}
		uint8_t *waited = calloc((size_t)m + 1, 1);
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			steps = p->tb[i].n > steps ? p->tb[i].n : steps;
			for (uint32_t k = 0; k < p->tb[i].n; k++)
				if (p->tb[i].st[k].dep_tb >= 0) {
					waited[p->tb[i].st[k].dep_tb] = 1;
					dep = (uint32_t)p->tb[i].st[k].dep_tb > dep ? (uint32_t)p->tb[i].st[k].dep_tb : dep;
				}
		}
		for (uint32_t i = 1; i < m; i++)
			firstfree += waited[i] && !waited[i - 1];
		free(waited);
	}
	CHECK(f.tbs == tbs && f.steps == steps && f.per_chan == per && f.dep_tb == dep && f.chans == (uint32_t)p->C);
	CHECK(f.cnt == (s->L ? 1u << s->L : 1u) || p->coll == CCS_COLL_ALLTOALL);
	CHECK(firstfree == 0);
	char why[200];
	CHECK(ccs_synth_fit_check(&f, why, sizeof why) == 0);
}

/* A packing lowered for bytes: the plan's invariants. */
static void check_plan(const struct ccs_synth *s, const struct ccs_synth_plan *p)
{
	int n = p->n, K = s->K;
	check_rounding(s, n);
	/* receives: out-trees each other root's K chunks once (each chunk
	 * once); in-trees the children's */
	long *got = calloc((size_t)n * (size_t)n, sizeof *got);
	uint8_t *each = calloc((size_t)n * (size_t)n * (size_t)K, 1);
	long sends = 0, recvs = 0;
	for (int g = 0; g < n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			const struct ccs_synth_tb *t = &p->tb[i];
			CHECK((t->send >= 0) != (t->recv >= 0));
			for (uint32_t k = 0; k < t->n; k++) {
				const struct ccs_synth_step *st = &t->st[k];
				if (st->type == CCS_SYNTH_SEND)
					sends++;
				else
					recvs++;
				if (st->type == CCS_SYNTH_RECV && st->buf == 'o') {
					got[(size_t)g * (size_t)n + (size_t)(st->off / K)] += st->cnt;
					for (int32_t x = st->off; x < st->off + st->cnt; x++)
						each[(size_t)g * (size_t)n * (size_t)K + (size_t)x]++;
				}
				/* steps in order of expected readiness */
				if (k)
					CHECK(t->st[k - 1].key < st->key || (t->st[k - 1].key == st->key && t->st[k - 1].tie < st->tie));
				/* what it waits on no later: no cycle of waits and orders */
				if (st->dep_tb >= 0)
					CHECK(p->tb[p->tb0[g] + (uint32_t)st->dep_tb].st[st->dep_step].key <= st->key);
			}
		}
	CHECK(sends == recvs);
	check_pairs(p);
	check_fit(s, p);
	if (p->coll == CCS_COLL_ALLGATHER || p->coll == CCS_COLL_ALLTOALL)
		for (int g = 0; g < n; g++)
			for (int r = 0; r < n; r++)
				CHECK(got[(size_t)g * (size_t)n + (size_t)r] == (g == r ? 0 : K));
	size_t twice = 0, nK = (size_t)n * (size_t)K;
	for (size_t x = 0; p->coll == CCS_COLL_ALLGATHER && x < (size_t)n * nK; x++)
		twice += each[x] != (x / nK != (x % nK) / (size_t)K);
	CHECK(twice == 0);
	if (p->coll == CCS_COLL_REDUCESCATTER)
		CHECK(sends == (long)(n - 1) * n * s->U);
	free(got);
	free(each);
}

/* XML and JSON written, read back and simulated, against the schedules
 * written directly from the plan: the plan at 16 chunks a shard, whose
 * blocks stay within MSCCL's 64 steps as written (check_plan counts them
 * so; longer blocks are exported in pieces, tests/golden/synth-*). */
static void check_exports(struct fx_world *w, struct ccs_synth *s, double bytes)
{
	struct ccs_synth_plan p;
	memset(&p, 0, sizeof p);
	char err[256];
	double t;
	CHECK(ccs_synth_sim(s, w->fab, &w->c, bytes, 16, 0, &p, &t, err, sizeof err) == CCS_OK);
	check_plan(s, &p);
	CHECK(t >= s->round_s * (1 - 1e-9));
	struct ccs_text x, j, y;
	memset(&x, 0, sizeof x);
	memset(&j, 0, sizeof j);
	memset(&y, 0, sizeof y);
	ccs_synth_xml(&p, "t", &x);
	CHECK(!x.oom);
	struct ccs_sched sc;
	struct ccs_diag d;
	struct ccs_sim_stats st;
	int ranks;
	memset(&d, 0, sizeof d);
	CHECK(ccs_sched_text_load("t.xml", x.s, x.n, &w->c, bytes, &sc, &ranks, &d) == CCS_OK);
	CHECK(ranks == w->c.n);
	ccs_fabric_rewind(w->fab);
	CHECK(ccs_sim_run(w->fab, &sc, &st, NULL, err, sizeof err) == CCS_OK);
	ccs_sched_release(&sc);
	CHECK_NEAR(st.time_s, t, 1e-9);
	if (p.coll != CCS_COLL_ALLREDUCE) {
		CHECK(ccs_synth_json(&p, "t", bytes, &j, &y) == CCS_OK);
		double want = -1, got = -2;
		memset(&d, 0, sizeof d);
		if (ccs_sched_text_load("t.yaml", y.s, y.n, &w->c, bytes, &sc, &ranks, &d) == CCS_OK) {
			ccs_fabric_rewind(w->fab);
			if (!ccs_sim_run(w->fab, &sc, &st, NULL, err, sizeof err))
				want = st.time_s;
			ccs_sched_release(&sc);
		}
		memset(&d, 0, sizeof d);
		if (ccs_sched_text_load("t.json", j.s, j.n, &w->c, bytes, &sc, &ranks, &d) == CCS_OK) {
			ccs_fabric_rewind(w->fab);
			if (!ccs_sim_run(w->fab, &sc, &st, NULL, err, sizeof err))
				got = st.time_s;
			ccs_sched_release(&sc);
		} else
			fprintf(stderr, "json: %s\n", d.msg);
		CHECK(want > 0);
		CHECK_NEAR(got, want, 1e-9);
		/* without receive blocks (a block waits on its signals) the plan
		 * may beat the MSCCL algorithm's time, never the program's bound */
		CHECK(want >= s->round_s * (1 - 1e-9));
	} else
		CHECK(ccs_synth_json(&p, "t", bytes, &j, &y) == CCS_EINPUT);
	ccs_free(x.s);
	ccs_free(j.s);
	ccs_free(y.s);
	ccs_synth_plan_release(&p);
}

/* One scale-up domain: the bound is the out-port cut, (n - 1)/n N over a
 * GPU's port, and the schedule comes within 2% of it at 1 GiB. */
static void test_switch(void)
{
	struct fx_world w;
	if (fx_world_up(&w, "topologies/hgx-h100.yaml", NULL, 0, 0)) {
		CHECK(0);
		return;
	}
	double N = 1024.0 * 1024 * 1024, port = 0;
	uint32_t nres = ccs_fabric_nres(w.fab);
	char name[128];
	for (uint32_t e = 0; e < nres; e++) {
		ccs_fabric_res_name(w.fab, e, name, sizeof name);
		if (strstr(name, "gpu0 scale-up out"))
			port = ccs_fabric_caps(w.fab)[e];
	}
	CHECK(port > 0);
	int colls[3] = { CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER, CCS_COLL_ALLREDUCE };
	for (int i = 0; i < 3; i++) {
		struct ccs_synth s;
		struct ccs_synth_cfg cfg = { colls[i], N, 0, 0, 0, 0 };
		char err[256];
		CHECK(ccs_synth_make(w.fab, &w.c, &cfg, 0, 0, -1, &s, err, sizeof err) == CCS_OK);
		double cut = (w.c.n - 1.0) / w.c.n * N / port * (colls[i] == CCS_COLL_ALLREDUCE ? 2 : 1);
		CHECK_NEAR(s.lp_s, cut, 1e-6);
		CHECK(s.converged == 1);
		check_exports(&w, &s, N);
		double t;
		struct ccs_synth_plan p;
		memset(&p, 0, sizeof p);
		CHECK(ccs_synth_sim(&s, w.fab, &w.c, N, 0, 0, &p, &t, err, sizeof err) == CCS_OK);
		CHECK(t <= 1.05 * s.lp_s);
		ccs_synth_plan_release(&p);
		ccs_synth_release(&s);
	}
	fx_down(w.t, &w.c, w.fab);
}

/* Bridged pairs on PCIe: the packing uses the bridges both ways, and beats
 * the ring (which crosses PCIe on half its hops) by more than 25%. */
static void test_bridged(void)
{
	struct fx_world w;
	if (fx_world_up(&w, "topologies/pcie-4gpu-nvbridge.yaml", NULL, 0, 0)) {
		CHECK(0);
		return;
	}
	double N = 256.0 * 1024 * 1024;
	int colls[2] = { CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER };
	for (int i = 0; i < 2; i++) {
		struct ccs_synth s;
		struct ccs_synth_cfg cfg = { colls[i], N, 0, 0, 0, 0 };
		char err[256];
		CHECK(ccs_synth_make(w.fab, &w.c, &cfg, 0, 0, -1, &s, err, sizeof err) == CCS_OK);
		struct ccs_sim_stats st;
		double ring = fx_sim_time(&w.c, w.fab, colls[i], CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, (uint64_t)N, &st);
		struct ccs_synth_plan p;
		memset(&p, 0, sizeof p);
		double t;
		CHECK(ccs_synth_sim(&s, w.fab, &w.c, N, 0, 0, &p, &t, err, sizeof err) == CCS_OK);
		CHECK(ring > 1.25 * t);
		CHECK(t <= 1.2 * s.lp_s);
		check_exports(&w, &s, N);
		ccs_synth_plan_release(&p);
		ccs_synth_release(&s);
	}
	fx_down(w.t, &w.c, w.fab);
}

/* Blocks past MSCCL's 64 steps (the bridged node at 96 chunks a shard,
 * one channel): the XML cuts them into pieces, each of at most 64 steps,
 * a later piece's first step waiting on the piece before it (through a
 * nop where that step waits on another block already, the nop's
 * dependency then followed by the step's own, as MSCCL's executor reads a
 * chain); the XML read back is the same schedule (time within 1e-9), and
 * what ccs_synth_fit_of counts is what the XML holds. */
static void test_split(void)
{
	struct fx_world w;
	if (fx_world_up(&w, "topologies/pcie-4gpu-nvbridge.yaml", NULL, 0, 0)) {
		CHECK(0);
		return;
	}
	double N = 256.0 * 1024 * 1024;
	for (int coll = CCS_COLL_ALLGATHER; coll <= CCS_COLL_REDUCESCATTER; coll++) {
		struct ccs_synth s;
		struct ccs_synth_cfg cfg = { coll, N, 0, 0, 0, 0 };
		char err[256];
		CHECK(ccs_synth_make(w.fab, &w.c, &cfg, 96, 1, CCS_SYNTH_OPT, &s, err, sizeof err) == CCS_OK);
		struct ccs_synth_plan p;
		memset(&p, 0, sizeof p);
		double t;
		CHECK(ccs_synth_sim(&s, w.fab, &w.c, N, 96, 1, &p, &t, err, sizeof err) == CCS_OK);
		uint32_t longest = 0;
		for (uint32_t i = 0; i < p.ntb; i++)
			longest = p.tb[i].n > longest ? p.tb[i].n : longest;
		CHECK(longest > CCS_SYNTH_MSCCL_STEPS);
		struct ccs_synth_fit f;
		CHECK(ccs_synth_fit_of(&p, &f) == CCS_OK);
		CHECK(f.steps <= CCS_SYNTH_MSCCL_STEPS && f.tbs > p.ntb / (uint32_t)p.n);
		struct ccs_text x;
		memset(&x, 0, sizeof x);
		ccs_synth_xml(&p, "t", &x);
		CHECK(!x.oom);
		/* the XML as MSCCL's parser reads it */
		struct ccs_xml xml;
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		CHECK(ccs_xml_parse("t.xml", x.s, x.n, &xml, &d) == CCS_OK);
		uint32_t most = 0, nops = 0, chain_bad = 0, tbs = 0, maxchan = 0;
		for (size_t e = 0; e < xml.nn; e++) {
			if (strcmp(xml.n[e].name, "tb"))
				continue;
			if (!strcmp(ccs_xml_attr(&xml.n[xml.n[e].parent], "id"), "0"))
				tbs++;
			uint32_t ch = (uint32_t)atoi(ccs_xml_attr(&xml.n[e], "chan"));
			maxchan = ch > maxchan ? ch : maxchan;
			uint32_t steps = 0, deps = 0, used = 0;
			for (int c = xml.n[e].child; c >= 0; c = xml.n[c].next) {
				steps++;
				int dep = atoi(ccs_xml_attr(&xml.n[c], "depid"));
				deps += dep >= 0;
				if (!strcmp(ccs_xml_attr(&xml.n[c], "type"), "nop")) {
					nops++;
					continue;
				}
				chain_bad += deps > used && dep < 0;
				used = deps;
			}
			most = steps > most ? steps : most;
		}
		CHECK(most <= CCS_SYNTH_MSCCL_STEPS && most == f.steps);
		if (!(tbs == f.tbs && maxchan + 1 == f.chans))
			printf("split: rank 0 %u blocks, fit %u; channels %u, fit %u\n", tbs, f.tbs, maxchan + 1, f.chans);
		CHECK(tbs == f.tbs && maxchan + 1 == f.chans && f.chans <= CCS_SYNTH_MSCCL_CHANS);
		CHECK(chain_bad == 0);
		CHECK(coll == CCS_COLL_ALLGATHER || nops > 0);   /* in-trees' sends wait on receipts */
		ccs_xml_release(&xml);
		struct ccs_sched sc;
		struct ccs_sim_stats st;
		int ranks;
		memset(&d, 0, sizeof d);
		CHECK(ccs_sched_text_load("t.xml", x.s, x.n, &w.c, N, &sc, &ranks, &d) == CCS_OK);
		ccs_fabric_rewind(w.fab);
		CHECK(ccs_sim_run(w.fab, &sc, &st, NULL, err, sizeof err) == CCS_OK);
		ccs_sched_release(&sc);
		CHECK_NEAR(st.time_s, t, 1e-9);
		ccs_free(x.s);
		ccs_synth_plan_release(&p);
		ccs_synth_release(&s);
	}
	fx_down(w.t, &w.c, w.fab);
}

/* Two nodes on EFA: the chosen packing (optimum or first trees) and the
 * exports across the network, NICs picked by channel. */
static void test_nodes(void)
{
	struct fx_world w;
	if (fx_world_up(&w, "topologies/aws-p4de.yaml", NULL, 0, 0)) {
		CHECK(0);
		return;
	}
	double N = 64.0 * 1024 * 1024;
	struct ccs_synth s;
	struct ccs_synth_cfg cfg = { CCS_COLL_ALLGATHER, N, 0, 0, 0, 0 };
	char err[256];
	CHECK(ccs_synth_make(w.fab, &w.c, &cfg, 0, 0, -1, &s, err, sizeof err) == CCS_OK);
	CHECK(s.lp_s >= s.opt_lp_s * (1 - 1e-9));
	check_exports(&w, &s, N);
	ccs_synth_release(&s);
	/* AllToAll: a path per commodity, each chunk delivered once; its
	 * bound no lower than the busiest NIC's share of the cross traffic */
	struct ccs_synth_cfg a2a = { CCS_COLL_ALLTOALL, N, 0, 0, 0, 0 };
	CHECK(ccs_synth_make(w.fab, &w.c, &a2a, 0, 0, -1, &s, err, sizeof err) == CCS_OK);
	for (int j = 0; j < s.ntree; j++)
		CHECK(s.tree[j].dst >= 0 && s.tree[j].dst != s.tree[j].root && s.tree[j].parent[s.tree[j].dst] >= 0);
	check_exports(&w, &s, N);
	ccs_synth_release(&s);
	/* refused: what it does not make */
	struct ccs_synth_cfg bad = { CCS_COLL_BROADCAST, N, 0, 0, 0, 0 };
	CHECK(ccs_synth_pack(w.fab, &w.c, &bad, &s, err, sizeof err) == CCS_EINPUT);
	fx_down(w.t, &w.c, w.fab);
}

/* test_streams' checks of rank g's blocks (coll 0: AllGather, 1:
 * ReduceScatter), counting pairs across groups, forwarded steps and
 * partials out of order. */
static void check_rank(const struct ccs_synth *s, const struct ccs_synth_plan *p, const struct ccs_comm *c, int coll,
                       int K, int g, int *pairs, int *fwd, int *late)
{
	int n = p->n;
	/* two GPUs share four NICs: two each, none both */
	int own = 0;
	for (int i = 0; i < 8; i++)
		own += (s->nic_own[g] >> i) & 1;
	CHECK(own == 2);
	if (g % 2 == 0)
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				CHECK(!((s->nic_own[g] >> i) & (s->nic_own[g + 1] >> j) & 1) ||
				      ccs_comm_nic(c, g, i) != ccs_comm_nic(c, g + 1, j));
	/* a pair's blocks across groups: lengths within one */
	for (int v = 0; v < n; v++) {
		uint32_t lo = UINT32_MAX, hi = 0, nb = 0;
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
			if (p->tb[i].send == v && s->group[v] != s->group[g]) {
				lo = p->tb[i].n < lo ? p->tb[i].n : lo;
				hi = p->tb[i].n > hi ? p->tb[i].n : hi;
				nb++;
			}
		if (nb) {
			(*pairs)++;
			CHECK(nb == 2 && hi - lo <= 1);
		}
	}
	for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
		const struct ccs_synth_tb *b = &p->tb[i];
		if (b->send < 0 || s->group[b->send] != s->group[g])
			continue;
		int32_t from = -1;
		for (uint32_t k = 0; k < b->n; k++) {
			const struct ccs_synth_step *st = &b->st[k];
			const struct ccs_synth_tb *d = st->dep_tb >= 0 ? &p->tb[p->tb0[g] + (uint32_t)st->dep_tb] : NULL;
			if (!coll && d && d->recv >= 0 && s->group[d->recv] != s->group[g]) {
				CHECK(from < 0 || from == st->dep_tb);
				from = st->dep_tb;
				(*fwd)++;
			}
			/* ReduceScatter: the peer's own partial of slot x against the others' of x + 1 */
			if (coll && st->off / K == b->send)
				for (uint32_t j = k + 1; j < b->n; j++)
					if (b->st[j].off / K != b->send && b->st[j].off % K <= st->off % K + 1) {
						(*late)++;
						break;
					}
		}
	}
}

/* The same packing lowered with its shards' ends graded: K 2^L chunks a
 * shard in K + 2 L slots, the ends' slots 1, 1, 2, ... chunks (every step
 * of a shard's first or last chunk moves that chunk alone), every chunk
 * still received once (check_plan; at K / 2, so that the blocks stay within
 * MSCCL's 64 steps as check_plan counts them). */
static void check_graded(struct ccs_synth *s, struct fx_world *w, double N, int Kc, struct ccs_synth_plan *p)
{
	char err[256];
	double t;
	s->grade = 1;
	CHECK(ccs_synth_sim(s, w->fab, &w->c, N, Kc, 0, p, &t, err, sizeof err) == CCS_OK);
	CHECK(s->L == CCS_SYNTH_GRADE && s->K == Kc << s->L && s->U == Kc + 2 * s->L);
	check_plan(s, p);
	long ends = 0, alone = 0, whole = 0;
	for (uint32_t i = 0; i < p->ntb; i++)
		for (uint32_t k = 0; k < p->tb[i].n; k++) {
			const struct ccs_synth_step *st = &p->tb[i].st[k];
			int x = st->off % s->K;
			if (x == 0 || x + st->cnt == s->K) {
				ends++;
				alone += st->cnt == 1;
			}
			whole += st->cnt == 1 << s->L;
		}
	CHECK(ends > 0 && alone == ends && whole > 0);
	s->grade = 0;
}

/* Across groups on aws-p5en (two GPUs and four NICs behind each PCIe
 * switch), the first trees lowered one block a pair and NIC: each GPU
 * takes two of the four for its own, and each pair's chunks split evenly
 * over them (blocks sharing a NIC end together); AllGather's forwarding blocks each hold
 * one stream received from another group (a block never waits behind
 * another stream's chunk); ReduceScatter's partials for the root inside
 * the sender's group go after those that still cross the network: a
 * root's slot-s partial after the others' of slot s + 1; AllReduce's two
 * phases in one plan, no step ordered before what it waits on. */
static void test_streams(void)
{
	struct fx_world w;
	const char *sets[] = { "nodes=4" };
	if (fx_world_up(&w, "topologies/aws-p5en.yaml", sets, 1, 0)) {
		CHECK(0);
		return;
	}
	double N = 256.0 * 1024 * 1024;
	int K = 16, n = w.c.n;
	char err[256];
	for (int coll = 0; coll < 3; coll++) {
		struct ccs_synth s;
		struct ccs_synth_cfg cfg = { coll == 2 ? CCS_COLL_ALLREDUCE : coll ? CCS_COLL_REDUCESCATTER : CCS_COLL_ALLGATHER,
			                     N, 0, 0, 0, 0 };
		int Kc = coll == 2 ? K / 2 : K;   /* AllReduce's blocks within MSCCL's 64 steps, as check_plan counts */
		CHECK(ccs_synth_make(w.fab, &w.c, &cfg, Kc, 0, CCS_SYNTH_FIRST, &s, err, sizeof err) == CCS_OK);
		struct ccs_synth_plan p;
		memset(&p, 0, sizeof p);
		double t;
		s.cin = 1;
		s.spread = s.bare_hop = s.all_nics = s.grade = 0;
		CHECK(ccs_synth_sim(&s, w.fab, &w.c, N, Kc, 0, &p, &t, err, sizeof err) == CCS_OK);
		check_plan(&s, &p);
		if (coll == 2) {
			/* AllReduce: both phases in one plan, each step after what
			 * it waits on (check_plan), graded too */
			check_graded(&s, &w, N, Kc / 2, &p);
			ccs_synth_plan_release(&p);
			ccs_synth_release(&s);
			continue;
		}
		int pairs = 0, fwd = 0, late = 0;
		for (int g = 0; g < n; g++)
			check_rank(&s, &p, &w.c, coll, K, g, &pairs, &fwd, &late);
		CHECK(pairs == n * 3 && late == 0);
		CHECK(coll || fwd == n * 21 * K);
		check_graded(&s, &w, N, Kc / 2, &p);
		ccs_synth_plan_release(&p);
		ccs_synth_release(&s);
	}
	fx_down(w.t, &w.c, w.fab);
}

/* MSCCL's runtime limits: each passed is named; at the limits, none. */
static void test_fit_limits(void)
{
	struct ccs_synth_fit at = { CCS_SYNTH_MSCCL_TBS, CCS_SYNTH_MSCCL_STEPS, CCS_SYNTH_MSCCL_CNT, CCS_SYNTH_MSCCL_CHANS,
		                    CCS_SYNTH_MSCCL_PER_CHAN, CCS_SYNTH_MSCCL_DEP_TB };
	char why[200] = "";
	CHECK(ccs_synth_fit_check(&at, why, sizeof why) == 0);
	CHECK(at.tbs == 1024 && at.steps == 64 && at.cnt == 71 && at.chans == 32 && at.per_chan == 32 && at.dep_tb == 127);
	static const char *const word[6] = { "thread blocks", "steps", "chunks in a step", "channels (MAXCHANNELS)",
		                             "blocks sending", "waits on" };
	for (int i = 0; i < 6; i++) {
		struct ccs_synth_fit f = at;
		uint32_t *v[6] = { &f.tbs, &f.steps, &f.cnt, &f.chans, &f.per_chan, &f.dep_tb };
		(*v[i])++;
		CHECK(ccs_synth_fit_check(&f, why, sizeof why) == 1 && strstr(why, word[i]));
	}
}

/* A scale-up domain of 40 ranks: more peers than MSCCL holds blocks on a
 * channel, so the pairs' channels come from two sets; the plan fits. */
static void test_wide(void)
{
	struct fx_world w;
	if (fx_world_up(&w, "topologies/gb200-nvl72.yaml", NULL, 0, 0)) {
		CHECK(0);
		return;
	}
	struct ccs_comm c40;
	memset(&c40, 0, sizeof c40);
	char err[256];
	CHECK(!ccs_comm_build(w.t, 40, 0, &c40, err, sizeof err));
	CHECK(c40.G == 1 && c40.n == 40);
	struct ccs_fabric *fab = NULL;
	CHECK(!ccs_fabric_new(&c40, &fab));
	struct ccs_synth s;
	struct ccs_synth_cfg cfg = { CCS_COLL_ALLGATHER, 64.0 * 1024 * 1024, 0, 0, 0, 0 };
	CHECK(ccs_synth_make(fab, &c40, &cfg, 1, 0, CCS_SYNTH_FIRST, &s, err, sizeof err) == CCS_OK);
	struct ccs_synth_plan p;
	memset(&p, 0, sizeof p);
	double t;
	CHECK(ccs_synth_sim(&s, fab, &c40, cfg.bytes, 1, 0, &p, &t, err, sizeof err) == CCS_OK);
	check_plan(&s, &p);
	/* 39 peers: more than 32 would share a channel of one set */
	int hi = 0;
	for (uint32_t i = 0; i < p.ntb; i++)
		hi = p.tb[i].chan >= s.C ? 1 : hi;
	CHECK(hi);
	ccs_synth_plan_release(&p);
	ccs_synth_release(&s);
	ccs_fabric_free(fab);
	ccs_comm_release(&c40);
	fx_down(w.t, &w.c, w.fab);
}

int main(void)
{
	test_arbo();
	test_fit_limits();
	test_wide();
	test_switch();
	test_bridged();
	test_split();
	test_nodes();
	test_streams();
	return CHECK_DONE("test_synth");
}
