/*
** tests/unit/test_flow.c: the flow solver: seeded property checks (no resource above capacity,
** max-min fair after every change, bytes conserved, identical runs); a
** failing seed is printed.
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/sim.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- flow solver ---- */

struct ev {
	ccs_time t;
	uint32_t id, ver;
};

struct pending {
	struct ev v[4096];
	int n;
};

static int push_ev(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	struct pending *p = ctx;
	if (p->n < 4096)
		p->v[p->n++] = (struct ev){ done, flow, ver };
	return CCS_OK;
}

/* Random resources and flows; flows start at random times and finish when
 * their bytes are done.  Big scenarios have up to 200 resources of three
 * capacities (ties everywhere, as in real fabrics) and long paths, so the
 * heap filling and the growing of the recomputed region both run.
 * Returns a digest of the finish times.  One idea: one seeded scenario,
 * checked as it runs. */
static uint64_t flow_scenario(uint64_t seed, int big, int *bad_cap, int *bad_conserve)
{
	fx_rng = seed;
	uint32_t nres = big ? 40 + fx_next() % 160 : 4 + fx_next() % 20;
	double cap[200];
	for (uint32_t r = 0; r < nres; r++)
		cap[r] = big ? 25e9 * (double)(1u << (fx_next() % 3)) : 1e9 * (1 + fx_next() % 100);
	struct ccs_flows *f;
	if (ccs_flows_new(&f, nres, cap))
		return 0;
	struct pending p;
	p.n = 0;
	int nflows = big ? 100 + (int)(fx_next() % 300) : 10 + (int)(fx_next() % 60), started = 0, finished = 0;
	double bytes_in = 0, moved = 0;
	ccs_time now = 0;
	uint64_t digest = 1469598103934665603ull;
	double want[512];
	while (finished < nflows) {
		/* drop events that were replaced */
		if (p.n > 3000) {
			int k = 0;
			for (int i = 0; i < p.n; i++)
				if (ccs_flows_version(f, p.v[i].id) == p.v[i].ver)
					p.v[k++] = p.v[i];
			p.n = k;
		}
		/* start a flow now and then, or when no valid event is left */
		int valid = 0;
		for (int i = 0; i < p.n && !valid; i++)
			valid = ccs_flows_version(f, p.v[i].id) == p.v[i].ver;
		if (started < nflows && (fx_next() % 3 == 0 || !valid)) {
			uint32_t path[CCS_FLOW_MAXPATH];
			int n = 1 + (int)(fx_next() % (big ? 6 : 4));
			for (int i = 0; i < n; i++)
				path[i] = (uint32_t)(fx_next() % nres);
			/* no resource twice on one path */
			for (int i = 1; i < n; i++)
				for (int j = 0; j < i; j++)
					if (path[i] == path[j])
						path[i] = (path[i] + 1 + (uint32_t)j) % nres;
			int dup = 0;
			for (int i = 1; i < n; i++)
				for (int j = 0; j < i; j++)
					dup |= path[i] == path[j];
			if (dup)
				n = 1;
			double b = (double)(1 + fx_next() % 1000000);
			uint32_t id;
			ccs_flows_add(f, path, n, b, (uint64_t)started, now, &id);
			if (id < 512)
				want[id] = b;
			bytes_in += b;
			started++;
			ccs_flows_update(f, now, push_ev, &p);
			*bad_cap += (int)ccs_flows_check(f);
			continue;
		}
		/* advance to the earliest valid completion */
		int bi = -1;
		for (int i = 0; i < p.n; i++)
			if (ccs_flows_version(f, p.v[i].id) == p.v[i].ver && (bi < 0 || p.v[i].t < p.v[bi].t))
				bi = i;
		if (bi < 0)
			break;
		struct ev e = p.v[bi];
		p.v[bi] = p.v[--p.n];
		if (e.t < now)
			(*bad_cap)++;
		now = e.t;
		ccs_time again;
		if (!ccs_flows_due(f, e.id, now, &again)) {
			push_ev(&p, e.id, again, e.ver);   /* its end moved later */
			continue;
		}
		double left = ccs_flows_left(f, e.id, now);
		if (left > 1e-3) {
			if (getenv("CCS_DEBUG"))
				fprintf(stderr, "flow %u: %g bytes left at its completion\n", e.id, left);
			(*bad_conserve)++;
		}
		moved += e.id < 512 ? want[e.id] : 0;
		ccs_flows_remove(f, e.id, now);
		finished++;
		digest = (digest ^ (uint64_t)now) * 1099511628211ull;
		ccs_flows_update(f, now, push_ev, &p);
		*bad_cap += (int)ccs_flows_check(f);
	}
	(void)moved;
	(void)bytes_in;
	if (finished != nflows) {
		if (getenv("CCS_DEBUG"))
			fprintf(stderr, "%d of %d flows finished (%d pending events)\n", finished, nflows, p.n);
		(*bad_conserve)++;
	}
	ccs_flows_free(f);
	return digest;
}

static void test_flows(void)
{
	int bad_cap = 0, bad_cons = 0, bad_det = 0;
	uint64_t base = 20261130;
	for (uint64_t s = 1; s <= 420; s++) {
		int c1 = 0, k1 = 0, c2 = 0, k2 = 0, big = s > 300;
		uint64_t d1 = flow_scenario(base * 1000 + s, big, &c1, &k1);
		uint64_t d2 = flow_scenario(base * 1000 + s, big, &c2, &k2);
		if (c1 || k1 || d1 != d2)
			fprintf(stderr, "flow scenario seed %llu: %d capacity/fairness, %d conservation, %s\n",
			        (unsigned long long)(base * 1000 + s), c1, k1, d1 != d2 ? "not reproducible" : "reproducible");
		bad_cap += c1;
		bad_cons += k1;
		bad_det += d1 != d2;
	}
	CHECK(bad_cap == 0);
	CHECK(bad_cons == 0);
	CHECK(bad_det == 0);

	/* hand case: two flows share a 10 GB/s resource; one also crosses a
	 * 3 GB/s one: max-min gives 3 and 7 */
	double cap[2] = { 10e9, 3e9 };
	struct ccs_flows *f;
	CHECK(!ccs_flows_new(&f, 2, cap));
	uint32_t a, b, pa[1] = { 0 }, pb[2] = { 0, 1 };
	struct pending p;
	p.n = 0;
	ccs_flows_add(f, pa, 1, 7e9, 0, 0, &a);
	ccs_flows_add(f, pb, 2, 3e9, 1, 0, &b);
	ccs_flows_update(f, 0, push_ev, &p);
	CHECK_NEAR(ccs_flows_rate(f, a), 7e9, 1e-12);
	CHECK_NEAR(ccs_flows_rate(f, b), 3e9, 1e-12);
	CHECK(p.n == 2 && p.v[0].t == 1000000000000ll && p.v[1].t == 1000000000000ll);
	CHECK(ccs_flows_check(f) == 0);
	ccs_flows_free(f);
}

/* ---- engine ---- */

struct cyc {
	int n;
};

int main(void)
{
	test_flows();
	return CHECK_DONE("test_flow");
}
