/*
** tests/unit/test_flow.c: the flow solver (sim/flow.h) on a case worked by
** hand (its seeded properties are tests/prop/prop_flow.c).
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/sim.h"


/* Two flows share a 10 GB/s resource; one also crosses a 3 GB/s one:
 * max-min gives 3 and 7, and both end at 1 s. */
static void test_flows(void)
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
	CHECK(p.n == 2 && p.v[0].t == 1000000000000ll && p.v[1].t == 1000000000000ll);
	CHECK(ccs_flows_check(f) == 0);
	ccs_flows_free(f);
}

int main(void)
{
	test_flows();
	return CHECK_DONE("test_flow");
}
