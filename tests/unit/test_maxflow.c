/*
** tests/unit/test_maxflow.c: model/maxflow.h against values worked by hand:
** the textbook network of CLRS figure 26.1 (23 from s to t); a
** full-duplex edge used both ways at its own capacity each; two parallel
** paths with a shared bottleneck; a disconnected sink (0); capacities
** below 1e-12 of the largest as zero; reset giving the same flow again;
** the edges' net flows conserving at every inner vertex.
*/
#include "../check.h"

#include "../../model/maxflow.h"

#include <math.h>
#include <string.h>

static void test_clrs(void)
{
	/* s=0, v1..v4 = 1..4, t=5 (CLRS 3rd ed., figure 26.1: max flow 23) */
	struct ccs_maxflow f;
	memset(&f, 0, sizeof f);
	f.nv = 6;
	static const struct { uint32_t u, v; double c; } e[] = {
		{ 0, 1, 16 }, { 0, 2, 13 }, { 2, 1, 4 }, { 1, 3, 12 }, { 3, 2, 9 },
		{ 2, 4, 14 }, { 4, 3, 7 }, { 3, 5, 20 }, { 4, 5, 4 },
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
		CHECK(ccs_maxflow_add(&f, e[i].u, e[i].v, e[i].c, 0) == CCS_OK);
	double v = 0;
	CHECK(ccs_maxflow_run(&f, 0, 5, &v) == CCS_OK);
	CHECK_NEAR(v, 23, 1e-12);
	/* conservation at the inner vertices, capacities kept */
	double net[6] = { 0 };
	for (uint32_t i = 0; i < f.ne; i++) {
		double x = ccs_maxflow_flow(&f, i);
		CHECK(x <= e[i].c + 1e-9 && x >= -1e-9);
		net[f.eu[i]] -= x;
		net[f.ev[i]] += x;
	}
	for (int k = 1; k <= 4; k++)
		CHECK(fabs(net[k]) < 1e-9);
	CHECK_NEAR(net[5], 23, 1e-12);
	/* again after a reset: the same value */
	ccs_maxflow_reset(&f);
	CHECK(ccs_maxflow_run(&f, 0, 5, &v) == CCS_OK);
	CHECK_NEAR(v, 23, 1e-12);
	/* from t to s nothing flows (every edge one way) */
	ccs_maxflow_reset(&f);
	CHECK(ccs_maxflow_run(&f, 5, 0, &v) == CCS_OK && v == 0);
	ccs_maxflow_release(&f);
}

static void test_duplex(void)
{
	/* a - b full duplex 10 / 10, and two paths a - x - b of 3 and a - y - b
	 * sharing y - b of 4 with a - y of 6: a to b = 10 + 3 + 4 */
	struct ccs_maxflow f;
	memset(&f, 0, sizeof f);
	f.nv = 4;   /* a 0, b 1, x 2, y 3 */
	CHECK(ccs_maxflow_add(&f, 0, 1, 10, 10) == CCS_OK);
	CHECK(ccs_maxflow_add(&f, 0, 2, 3, 3) == CCS_OK);
	CHECK(ccs_maxflow_add(&f, 2, 1, 5, 5) == CCS_OK);
	CHECK(ccs_maxflow_add(&f, 0, 3, 6, 6) == CCS_OK);
	CHECK(ccs_maxflow_add(&f, 3, 1, 4, 4) == CCS_OK);
	double v = 0;
	CHECK(ccs_maxflow_run(&f, 0, 1, &v) == CCS_OK);
	CHECK_NEAR(v, 17, 1e-12);
	/* the other way: each direction its own capacity, the same 17 */
	ccs_maxflow_reset(&f);
	CHECK(ccs_maxflow_run(&f, 1, 0, &v) == CCS_OK);
	CHECK_NEAR(v, 17, 1e-12);
	ccs_maxflow_release(&f);
	/* an edge below 1e-12 of the largest counts as none; a sink alone, 0 */
	memset(&f, 0, sizeof f);
	f.nv = 4;
	CHECK(ccs_maxflow_add(&f, 0, 1, 1e9, 1e9) == CCS_OK);
	CHECK(ccs_maxflow_add(&f, 1, 2, 1e-6, 1e-6) == CCS_OK);
	CHECK(ccs_maxflow_run(&f, 0, 2, &v) == CCS_OK && v == 0);
	ccs_maxflow_reset(&f);
	CHECK(ccs_maxflow_run(&f, 0, 3, &v) == CCS_OK && v == 0);
	ccs_maxflow_release(&f);
}

int main(void)
{
	test_clrs();
	test_duplex();
	return CHECK_DONE("test_maxflow");
}
