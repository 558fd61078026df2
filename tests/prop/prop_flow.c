/*
** tests/prop/prop_flow.c: the flow solver (sim/flow.h) on seeded random
** scenarios: no resource above its capacity and max-min fair after every
** change (ccs_flows_check), time never goes back, every flow's bytes done
** at its completion, and the same seed giving the same finish times; a
** failing seed is printed.  Each scenario runs twice: with ordinary flows,
** and with every flow a class of random integer weights (flow.h), the
** solver of class runs (sim/classes.h).
*/
#include "../check.h"
#include "../unit/fixture.h"
#include "../../sim/sim.h"

#include <stdlib.h>

/* Random resources and flows; flows start at random times and finish when
 * their bytes are done.  Big scenarios have up to 200 resources of three
 * capacities (ties everywhere, as in real fabrics) and long paths, so the
 * heap filling and the growing of the recomputed region both run.
 * Returns a digest of the finish times.  One idea: one seeded scenario,
 * checked as it runs. */
static uint64_t flow_scenario(uint64_t seed, int big, int weighted, int *bad_cap, int *bad_conserve)
{
	fx_rng = seed;
	uint32_t nres = big ? 40 + fx_next() % 160 : 4 + fx_next() % 20;
	double cap[200];
	for (uint32_t r = 0; r < nres; r++)
		cap[r] = big ? 25e9 * (double)(1u << (fx_next() % 3)) : 1e9 * (1 + fx_next() % 100);
	struct ccs_flows *f;
	if (ccs_flows_new(&f, nres, cap))
		return 0;
	struct fx_ends p;
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
			double w[CCS_FLOW_MAXPATH];
			for (int i = 0; i < n; i++)
				w[i] = (double)(1 + fx_next() % 4);
			ccs_flows_add_w(f, path, weighted ? w : NULL, n, b, (uint64_t)started, now, &id);
			if (id < 512)
				want[id] = b;
			bytes_in += b;
			started++;
			ccs_flows_update(f, now, fx_push_end, &p);
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
		struct fx_end e = p.v[bi];
		p.v[bi] = p.v[--p.n];
		if (e.t < now)
			(*bad_cap)++;
		now = e.t;
		ccs_time again;
		if (!ccs_flows_due(f, e.id, now, &again)) {
			fx_push_end(&p, e.id, again, e.ver);   /* its end moved later */
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
		ccs_flows_update(f, now, fx_push_end, &p);
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

static void prop_flows(void)
{
	int bad_cap = 0, bad_cons = 0, bad_det = 0;
	uint64_t base = 20261130;
	for (uint64_t s = 1; s <= 840; s++) {
		int c1 = 0, k1 = 0, c2 = 0, k2 = 0, big = s % 420 > 300 || s % 420 == 0, wt = s > 420;
		uint64_t seed = base * 1000 + (s - 1) % 420 + 1;
		uint64_t d1 = flow_scenario(seed, big, wt, &c1, &k1);
		uint64_t d2 = flow_scenario(seed, big, wt, &c2, &k2);
		if (c1 || k1 || d1 != d2)
			fprintf(stderr, "flow scenario seed %llu%s: %d capacity/fairness, %d conservation, %s\n",
			        (unsigned long long)seed, wt ? " (classes)" : "", c1, k1,
			        d1 != d2 ? "not reproducible" : "reproducible");
		bad_cap += c1;
		bad_cons += k1;
		bad_det += d1 != d2;
	}
	CHECK(bad_cap == 0);
	CHECK(bad_cons == 0);
	CHECK(bad_det == 0);
}

int main(void)
{
	prop_flows();
	return CHECK_DONE("prop_flow");
}
