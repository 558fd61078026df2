/*
** tests/unit/test_flow.c: the flow solver (sim/flow.h) on cases worked by
** hand, the kinds the max-min literature uses to define the allocation
** (Bertsekas and Gallager, Data Networks, 2nd ed., section 6.5.2: a
** session's rate is raised until a link it crosses saturates; the
** bottleneck links; the parking lot) and what a simulator adds: flows that
** finish and give their share to the rest, a capacity that changes in
** flight, a flow moved to another path, and classes (a weighted flow
** standing for its members).  Its seeded properties are
** tests/prop/prop_flow.c.
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/sim.h"

#include <math.h>

#define S_PS 1000000000000ll   /* one second in picoseconds */

/* Flow ids' rates against the expected ones (B/s), and max-min checked. */
static void rates_are(struct ccs_flows *f, const uint32_t *id, const double *want, int n)
{
	for (int i = 0; i < n; i++)
		CHECK_NEAR(ccs_flows_rate(f, id[i]), want[i], 1e-12);
	CHECK(ccs_flows_check(f) == 0);
}

/* Two flows share a 10 GB/s resource; one also crosses a 3 GB/s one:
 * max-min gives 3 and 7, and both end at 1 s. */
static void test_two(void)
{
	double cap[2] = { 10e9, 3e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t a, b, pa[1] = { 0 }, pb[2] = { 0, 1 };
	struct fx_ends p;
	p.n = 0;
	ccs_flows_add(f, pa, 1, 7e9, 0, 0, &a);
	ccs_flows_add(f, pb, 2, 3e9, 1, 0, &b);
	ccs_flows_update(f, 0, fx_push_end, &p);
	CHECK_NEAR(ccs_flows_rate(f, a), 7e9, 1e-12);
	CHECK_NEAR(ccs_flows_rate(f, b), 3e9, 1e-12);
	CHECK(p.n == 2 && p.v[0].t == S_PS && p.v[1].t == S_PS);
	CHECK(ccs_flows_check(f) == 0);
	ccs_flows_free(f);
}

/* Three links in a row: links 0 and 1 of capacity 1, link 2 of 2 (B/s,
 * scaled).  Session 0 crosses links 0 and 1, session 1 link 0, session 2
 * links 1 and 2, session 3 link 2, session 4 link 1.  Filling all at once,
 * link 0 would allow 1/2 (two sessions), link 1 1/3 (three), link 2 1 (two):
 * link 1 saturates first and fixes sessions 0, 2 and 4 at 1/3; then link 0
 * has 2/3 left for session 1 and link 2 has 5/3 for session 3.  Each
 * session's bottleneck is a saturated link on which its rate is the
 * largest: link 1 for 0, 2 and 4, link 0 for 1, link 2 for 3. */
static void test_bottlenecks(void)
{
	const double u = 1e9;
	double cap[3] = { 1 * u, 1 * u, 2 * u };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 3, cap));
	static const uint32_t p0[] = { 0, 1 }, p1[] = { 0 }, p2[] = { 1, 2 }, p3[] = { 2 }, p4[] = { 1 };
	const uint32_t *path[5] = { p0, p1, p2, p3, p4 };
	const int len[5] = { 2, 1, 2, 1, 1 };
	uint32_t id[5];
	for (int i = 0; i < 5; i++)
		CHECK(!ccs_flows_add(f, path[i], len[i], 100 * u, (uint64_t)i, 0, &id[i]));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	const double want[5] = { u / 3, 2 * u / 3, u / 3, 5 * u / 3, u / 3 };
	rates_are(f, id, want, 5);
	CHECK_NEAR(ccs_flows_load(f, 0), 1 * u, 1e-12);
	CHECK_NEAR(ccs_flows_load(f, 1), 1 * u, 1e-12);
	CHECK_NEAR(ccs_flows_load(f, 2), 2 * u, 1e-12);
	ccs_flows_free(f);
}

/* The parking lot: n links of capacity C in a row, one long session over
 * all of them and one short session on each: every session gets C/2,
 * however long the row (max-min does not punish the long path; a
 * throughput-maximising allocation would starve it). */
static void test_parking_lot(void)
{
	enum { N = 6 };
	double cap[N];
	for (int i = 0; i < N; i++)
		cap[i] = 8e9;
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, N, cap));
	uint32_t all[N], id[N + 1];
	for (int i = 0; i < N; i++)
		all[i] = (uint32_t)i;
	CHECK(!ccs_flows_add(f, all, N, 1e9, 0, 0, &id[0]));
	for (int i = 0; i < N; i++)
		CHECK(!ccs_flows_add(f, &all[i], 1, 1e9, (uint64_t)i + 1, 0, &id[i + 1]));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	double want[N + 1];
	for (int i = 0; i <= N; i++)
		want[i] = 4e9;
	rates_are(f, id, want, N + 1);
	ccs_flows_free(f);
}

/* Finishing gives the share back: two flows of 10 and 30 bytes on a
 * 10 B/s link run at 5 each; the short one ends at 2 s, the long one then
 * has 20 bytes left at 10 B/s and ends at 4 s (not at 6 s, had it kept 5). */
static void test_finish(void)
{
	double cap[1] = { 10.0 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 1, cap));
	uint32_t r = 0, a, b;
	CHECK(!ccs_flows_add(f, &r, 1, 10.0, 0, 0, &a));
	CHECK(!ccs_flows_add(f, &r, 1, 30.0, 1, 0, &b));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_rate(f, a), 5.0, 1e-12);
	ccs_time ta = -1;
	for (int i = 0; i < p.n; i++)
		if (p.v[i].id == a)
			ta = p.v[i].t;
	CHECK(ta == 2 * S_PS);
	ccs_flows_remove(f, a, 2 * S_PS);
	p.n = 0;
	CHECK(!ccs_flows_update(f, 2 * S_PS, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_rate(f, b), 10.0, 1e-12);
	CHECK_NEAR(ccs_flows_left(f, b, 2 * S_PS), 20.0, 1e-9);
	CHECK(p.n == 1 && p.v[0].id == b && p.v[0].t == 4 * S_PS);
	ccs_flows_free(f);
}

/* A capacity that changes in flight: 100 bytes at 10 B/s; at 4 s the link
 * drops to 5 B/s: 60 bytes left take 12 s more, the end moves from 10 s
 * to 16 s, and ccs_flows_due says so when the old event fires. */
static void test_set_cap(void)
{
	double cap[1] = { 10.0 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 1, cap));
	uint32_t r = 0, a;
	CHECK(!ccs_flows_add(f, &r, 1, 100.0, 0, 0, &a));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK(p.n == 1 && p.v[0].t == 10 * S_PS);
	CHECK(!ccs_flows_set_cap(f, 0, 5.0, 4 * S_PS));
	p.n = 0;
	CHECK(!ccs_flows_update(f, 4 * S_PS, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_left(f, a, 4 * S_PS), 60.0, 1e-9);
	CHECK_NEAR(ccs_flows_rate(f, a), 5.0, 1e-12);
	ccs_time again = 0;
	int done = ccs_flows_due(f, a, 10 * S_PS, &again);
	CHECK(!done && again == 16 * S_PS);
	CHECK(ccs_flows_due(f, a, 16 * S_PS, &again) == 1);
	ccs_flows_free(f);
}

/* A flow moved to another path keeps what it has left: 40 bytes over a
 * 4 B/s link, moved at 5 s (20 left) to an 8 B/s link: it ends at 7.5 s. */
static void test_reroute(void)
{
	double cap[2] = { 4.0, 8.0 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t r0 = 0, r1 = 1, a;
	CHECK(!ccs_flows_add(f, &r0, 1, 40.0, 0, 0, &a));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK(!ccs_flows_reroute(f, a, &r1, 1, 5 * S_PS));
	p.n = 0;
	CHECK(!ccs_flows_update(f, 5 * S_PS, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_left(f, a, 5 * S_PS), 20.0, 1e-9);
	CHECK_NEAR(ccs_flows_rate(f, a), 8.0, 1e-12);
	CHECK(p.n == 1 && p.v[0].t == 7500000000000ll);
	CHECK_NEAR(ccs_flows_load(f, 0), 0.0, 1e-12);
	ccs_flows_free(f);
}

/* A class of three members (weight 3 on the shared link) beside one
 * ordinary flow on a 12 B/s link: four equal members get 3 B/s each; the
 * class's rate is one member's.  With the class's members also alone on a
 * 6 B/s link each (weight 1 on a link class of their own), they are held
 * to 2 and the ordinary flow takes 12 - 3 x 2 = 6. */
static void test_class(void)
{
	double cap[2] = { 12.0, 2.0 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t shared = 0, own[2] = { 0, 1 }, c, o;
	double w1[1] = { 3.0 };
	CHECK(!ccs_flows_add_w(f, &shared, w1, 1, 30.0, 0, 0, &c));
	CHECK(!ccs_flows_add(f, &shared, 1, 30.0, 1, 0, &o));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_rate(f, c), 3.0, 1e-12);
	CHECK_NEAR(ccs_flows_rate(f, o), 3.0, 1e-12);
	CHECK_NEAR(ccs_flows_load(f, 0), 12.0, 1e-12);
	/* the class held by a link of its own: weight 3 on the shared one,
	 * 1 on its own link class (each member alone there at 2 B/s) */
	double w2[2] = { 3.0, 1.0 };
	CHECK(!ccs_flows_reroute_w(f, c, own, w2, 2, 0));
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK_NEAR(ccs_flows_rate(f, c), 2.0, 1e-12);
	CHECK_NEAR(ccs_flows_rate(f, o), 6.0, 1e-12);
	CHECK(ccs_flows_check(f) == 0);
	ccs_flows_free(f);
}

/* A flow of zero bytes ends where it starts; a flow over a dead resource
 * (capacity 0) gets no rate and no end (the run that waits for it reports
 * the hang: test_hwfault.c). */
static void test_edges(void)
{
	double cap[2] = { 10.0, 0.0 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t r0 = 0, r1 = 1, z, d;
	CHECK(!ccs_flows_add(f, &r0, 1, 0.0, 0, 3 * S_PS, &z));
	CHECK(!ccs_flows_add(f, &r1, 1, 5.0, 1, 3 * S_PS, &d));
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_update(f, 3 * S_PS, fx_push_end, &p));
	int zero_at_start = 0, dead_ends = 0;
	for (int i = 0; i < p.n; i++) {
		zero_at_start |= p.v[i].id == z && p.v[i].t == 3 * S_PS;
		dead_ends += p.v[i].id == d && p.v[i].t < CCS_TIME_MAX;
	}
	CHECK(zero_at_start);
	CHECK(!dead_ends);
	CHECK_NEAR(ccs_flows_rate(f, d), 0.0, 1e-12);
	ccs_flows_free(f);
}

/* The regions the updates recompute (ccs_flows_regions, simulate -v):
 * two flows on disjoint resources, each added and updated in turn, are
 * regions of one; a third that joins both ties them into one region of
 * three; a solver never updated reports none. */
static void test_regions(void)
{
	double cap[2] = { 10e9, 10e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t largest = 7;
	double mean = 7;
	ccs_flows_regions(f, &largest, &mean);
	CHECK(largest == 0 && mean == 0);
	uint32_t a, b, c, pa[1] = { 0 }, pb[1] = { 1 }, pc[2] = { 0, 1 };
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_add(f, pa, 1, 1e9, 0, 0, &a));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK(!ccs_flows_add(f, pb, 1, 1e9, 1, 0, &b));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	ccs_flows_regions(f, &largest, &mean);
	CHECK(largest == 1 && mean == 1);
	CHECK(!ccs_flows_add(f, pc, 2, 1e9, 2, 0, &c));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	ccs_flows_regions(f, &largest, &mean);
	CHECK(largest == 3 && fabs(mean - 5.0 / 3) < 1e-12);
	ccs_flows_free(f);
}

/* A handoff (sim/flow_handoff.c): a flow removed and one added on the same
 * path with the same weights at one instant leave every rate as it was,
 * so nothing is recomputed and the new one ends at the old rate; another
 * change at that instant is recomputed as ever; a path with other weights
 * is no handoff; a handed flow removed again at the instant is gone. */
static void test_handoff(void)
{
	double cap[3] = { 10e9, 3e9, 5e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 3, cap));
	uint32_t a, b, a2, b2, b3, d, pa[2] = { 0, 1 }, pb[1] = { 0 }, pd[1] = { 2 }, n;
	double w2[1] = { 2.0 };
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_add(f, pa, 2, 3e9, 0, 0, &a) && !ccs_flows_add(f, pb, 1, 7e9, 1, 0, &b));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	uint32_t largest;
	double mean;
	ccs_flows_regions(f, &largest, &mean);
	CHECK(largest == 2 && mean == 2);
	/* at 1 s: A's path again, 6 GB */
	ccs_flows_remove(f, a, S_PS);
	CHECK(!ccs_flows_add(f, pa, 2, 6e9, 2, S_PS, &a2));
	p.n = 0;
	CHECK(!ccs_flows_update(f, S_PS, fx_push_end, &p));
	ccs_flows_touched(f, &n);
	CHECK(n == 0);
	rates_are(f, (uint32_t[]){ a2, b }, (double[]){ 3e9, 7e9 }, 2);
	CHECK(p.n == 1 && p.v[0].id == a2 && p.v[0].t == 3 * S_PS && p.v[0].ver == ccs_flows_version(f, a2));
	ccs_flows_regions(f, &largest, &mean);
	CHECK(largest == 2 && mean == 2);   /* no region recomputed */
	/* at 2 s: B's path again beside a new flow on resource 2 */
	ccs_flows_remove(f, b, 2 * S_PS);
	CHECK(!ccs_flows_add(f, pb, 1, 7e9, 3, 2 * S_PS, &b2) && !ccs_flows_add(f, pd, 1, 5e9, 4, 2 * S_PS, &d));
	CHECK(!ccs_flows_update(f, 2 * S_PS, fx_push_end, &p));
	const uint32_t *t = ccs_flows_touched(f, &n);
	CHECK(n == 1 && t[0] == 2);
	rates_are(f, (uint32_t[]){ a2, b2, d }, (double[]){ 3e9, 7e9, 5e9 }, 3);
	/* at 3 s: on B's resource as a class of weight 2: no handoff */
	ccs_flows_remove(f, b2, 3 * S_PS);
	CHECK(!ccs_flows_add_w(f, pb, w2, 1, 7e9, 5, 3 * S_PS, &b3));
	CHECK(!ccs_flows_update(f, 3 * S_PS, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a2, b3 }, (double[]){ 3e9, 3.5e9 }, 2);
	/* at 4 s: A's path handed on, then that flow removed too */
	uint32_t a3;
	ccs_flows_remove(f, a2, 4 * S_PS);
	CHECK(!ccs_flows_add(f, pa, 2, 1e9, 6, 4 * S_PS, &a3));
	ccs_flows_remove(f, a3, 4 * S_PS);
	CHECK(!ccs_flows_update(f, 4 * S_PS, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ b3 }, (double[]){ 5e9 }, 1);
	CHECK(ccs_flows_active(f) == 2);
	ccs_flows_free(f);
}

/* A handoff beside other changes on the same resource at the same instant:
 * a capacity change (a timed fault) and a reroute off it are recomputed,
 * and a handed flow on a resource another start opens is recomputed and
 * gets exactly one end. */
static void test_handoff_mixed(void)
{
	double cap[2] = { 10e9, 4e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t a, b, a2, a3, a4, c, p0[1] = { 0 }, p01[2] = { 0, 1 }, p1[1] = { 1 };
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_add(f, p0, 1, 60e9, 0, 0, &a) && !ccs_flows_add(f, p01, 2, 40e9, 1, 0, &b));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a, b }, (double[]){ 6e9, 4e9 }, 2);
	/* 1 s: a handed on, and resource 0 falls to 6 GB/s */
	ccs_flows_remove(f, a, S_PS);
	CHECK(!ccs_flows_add(f, p0, 1, 60e9, 2, S_PS, &a2));
	CHECK(!ccs_flows_set_cap(f, 0, 6e9, S_PS));
	CHECK(!ccs_flows_update(f, S_PS, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a2, b }, (double[]){ 3e9, 3e9 }, 2);
	/* 2 s: a2 handed on, and b moves off resource 0 */
	ccs_flows_remove(f, a2, 2 * S_PS);
	CHECK(!ccs_flows_add(f, p0, 1, 60e9, 3, 2 * S_PS, &a3));
	CHECK(!ccs_flows_reroute(f, b, p1, 1, 2 * S_PS));
	CHECK(!ccs_flows_update(f, 2 * S_PS, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a3, b }, (double[]){ 6e9, 4e9 }, 2);
	/* 3 s: a3 handed on beside a new flow on resource 0 */
	ccs_flows_remove(f, a3, 3 * S_PS);
	CHECK(!ccs_flows_add(f, p0, 1, 6e9, 4, 3 * S_PS, &a4) && !ccs_flows_add(f, p0, 1, 6e9, 5, 3 * S_PS, &c));
	p.n = 0;
	CHECK(!ccs_flows_update(f, 3 * S_PS, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a4, c, b }, (double[]){ 3e9, 3e9, 4e9 }, 3);
	int na4 = 0;
	for (int i = 0; i < p.n; i++)
		if (p.v[i].id == a4) {
			na4++;
			CHECK(p.v[i].t == 5 * S_PS && p.v[i].ver == ccs_flows_version(f, a4));
		}
	CHECK(na4 == 1);
	ccs_flows_free(f);
}

/* A path that crosses one resource twice: alone, it gets half of it (its
 * weight there is two), and moved onto such a path it finds room in the
 * resource's list for both crossings. */
static void test_twice(void)
{
	double cap[2] = { 10e9, 10e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t a, p00[2] = { 0, 0 }, p1[1] = { 1 }, p11[3] = { 1, 1, 1 };
	struct fx_ends p;
	p.n = 0;
	CHECK(!ccs_flows_add(f, p00, 2, 5e9, 0, 0, &a));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	rates_are(f, &a, (double[]){ 5e9 }, 1);
	uint32_t b[4];
	for (int i = 0; i < 4; i++)
		CHECK(!ccs_flows_add(f, p1, 1, 1e9, (uint64_t)(1 + i), 0, &b[i]));
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	CHECK(!ccs_flows_reroute(f, a, p11, 3, S_PS / 10));
	CHECK(!ccs_flows_update(f, S_PS / 10, fx_push_end, &p));
	rates_are(f, (uint32_t[]){ a, b[0] }, (double[]){ 10e9 / 7, 10e9 / 7 }, 2);
	ccs_flows_free(f);
}

/* Handoffs at random: each instant some flows end and as many start, half
 * of them on a path that just ended (weights kept), then an update; the
 * rates equal a fresh solver's over the same flows, and the allocation is
 * max-min, every instant. */
#define HO_RES 10
#define HO_FLOWS 24
struct ho_flow {
	uint32_t id, res[3];
	double w[3];
	int n, live;
	ccs_time born;
};

static void ho_path(struct ho_flow *x)
{
	x->n = 1 + (int)(fx_next() % 3);
	for (int i = 0; i < x->n; i++) {
		uint32_t r;
		int dup;
		do {
			r = (uint32_t)(fx_next() % HO_RES);
			dup = 0;
			for (int j = 0; j < i; j++)
				dup |= x->res[j] == r;
		} while (dup);
		x->res[i] = r;
		x->w[i] = fx_next() % 4 ? 1.0 : 2.0;
	}
}

static void test_handoff_random(void)
{
	double cap[HO_RES];
	fx_rng = 20261205;
	for (int i = 0; i < HO_RES; i++)
		cap[i] = (double)(1 + fx_next() % 8) * 1e9;
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, HO_RES, cap));
	struct ho_flow fl[HO_FLOWS];
	struct fx_ends p;
	int bad = 0;
	for (int i = 0; i < HO_FLOWS; i++) {
		ho_path(&fl[i]);
		CHECK(!ccs_flows_add_w(f, fl[i].res, fl[i].w, fl[i].n, 1e12, (uint64_t)i, 0, &fl[i].id));
		fl[i].live = 1;
		fl[i].born = 0;
	}
	p.n = 0;
	CHECK(!ccs_flows_update(f, 0, fx_push_end, &p));
	for (int step = 1; step <= 400; step++) {
		ccs_time now = (ccs_time)step * 1000;
		struct ho_flow ended[HO_FLOWS];
		int ne = 0;
		for (int i = 0; i < HO_FLOWS; i++)
			if (fx_next() % 4 == 0) {
				ccs_flows_remove(f, fl[i].id, now);
				ended[ne++] = fl[i];
				if (fx_next() % 2 && ne)
					fl[i] = ended[fx_next() % (uint64_t)ne];
				else
					ho_path(&fl[i]);
				CHECK(!ccs_flows_add_w(f, fl[i].res, fl[i].w, fl[i].n, 1e12, (uint64_t)i, now, &fl[i].id));
				fl[i].born = now;
			}
		CHECK(!ccs_flows_update(f, now, fx_push_end, &p));
		/* each flow started now has its end queued, at its rate, its version */
		for (int i = 0; i < HO_FLOWS; i++) {
			if (fl[i].born != now)
				continue;
			int q = 0;
			for (int e = 0; e < p.n; e++)
				if (p.v[e].id == fl[i].id && p.v[e].ver == ccs_flows_version(f, fl[i].id)) {
					ccs_time want = now + (ccs_time)ceil(1e12 / ccs_flows_rate(f, fl[i].id) * 1e12);
					q += llabs((long long)(p.v[e].t - want)) <= 2;
				}
			bad += q != 1;
		}
		p.n = 0;
		struct ccs_flows *g;
		CHECK(!ccs_flows_new(&g, HO_RES, cap));
		uint32_t gid[HO_FLOWS];
		for (int i = 0; i < HO_FLOWS; i++)
			CHECK(!ccs_flows_add_w(g, fl[i].res, fl[i].w, fl[i].n, 1e12, (uint64_t)i, now, &gid[i]));
		CHECK(!ccs_flows_update(g, now, fx_push_end, &p));
		p.n = 0;
		for (int i = 0; i < HO_FLOWS; i++) {
			double x = ccs_flows_rate(f, fl[i].id), y = ccs_flows_rate(g, gid[i]);
			bad += fabs(x - y) > 1e-9 * y;
		}
		bad += ccs_flows_check(f) != 0;
		ccs_flows_free(g);
	}
	CHECK(bad == 0);
	ccs_flows_free(f);
}

int main(void)
{
	test_handoff();
	test_handoff_mixed();
	test_twice();
	test_handoff_random();
	test_regions();
	test_two();
	test_bottlenecks();
	test_parking_lot();
	test_finish();
	test_set_cap();
	test_reroute();
	test_class();
	test_edges();
	return CHECK_DONE("test_flow");
}
