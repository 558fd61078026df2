/*
** tests/unit/test_evq.c: the event queue and event time (sim/evq.h,
** sim/time.h): earliest first, ties in push order (also across batches and
** after pops), peek and pop on an empty queue, seconds to ticks rounding up
** and saturating (the seeded heap check is tests/prop/prop_evq.c).
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/evq.h"

#include <stdlib.h>

static void test_order(void)
{
	struct ccs_evq q;
	struct ccs_event e;
	ccs_evq_init(&q);
	CHECK(ccs_evq_peek(&q) == CCS_TIME_MAX);
	CHECK(ccs_evq_pop(&q, &e) == 0);
	/* ties at 5 keep their push order, even with an earlier event between */
	CHECK(!ccs_evq_push(&q, 5, 1, 10, 0));
	CHECK(!ccs_evq_push(&q, 5, 1, 11, 0));
	CHECK(!ccs_evq_push(&q, 2, 2, 20, 7));
	CHECK(!ccs_evq_push(&q, 5, 1, 12, 0));
	CHECK(ccs_evq_peek(&q) == 2);
	CHECK(ccs_evq_pop(&q, &e) == 1 && e.t == 2 && e.id == 20 && e.kind == 2 && e.ver == 7);
	uint64_t want[] = { 10, 11, 12 };
	for (int i = 0; i < 3; i++)
		CHECK(ccs_evq_pop(&q, &e) == 1 && e.t == 5 && e.id == want[i]);
	CHECK(ccs_evq_peek(&q) == CCS_TIME_MAX);
	/* a push for the current time while it is being read comes after it */
	CHECK(!ccs_evq_push(&q, 9, 0, 1, 0));
	CHECK(!ccs_evq_push(&q, 9, 0, 2, 0));
	CHECK(ccs_evq_pop(&q, &e) == 1 && e.id == 1);
	CHECK(!ccs_evq_push(&q, 9, 0, 3, 0));
	CHECK(ccs_evq_pop(&q, &e) == 1 && e.id == 2);
	CHECK(ccs_evq_pop(&q, &e) == 1 && e.id == 3);
	ccs_evq_release(&q);
}

static void test_time(void)
{
	CHECK(ccs_time_from_s(0) == 0);
	CHECK(ccs_time_from_s(-1) == 0);
	CHECK(ccs_time_from_s(1e-12) == 1);
	CHECK(ccs_time_from_s(1.5e-12) == 2);          /* rounds up */
	CHECK(ccs_time_from_s(1e-6) == 1000000);
	CHECK(ccs_time_from_s(1e30) == CCS_TIME_MAX);   /* saturates */
	CHECK(ccs_time_from_s((double)NAN) == 0);
	CHECK_NEAR(ccs_time_to_s(2500000), 2.5e-6, 1e-15);
	CHECK(ccs_time_moved(1e9, 1000000) == 1e9 * 1000000.0 * 1e-12);
}

int main(void)
{
	test_order();
	test_time();
	return CHECK_DONE("test_evq");
}
