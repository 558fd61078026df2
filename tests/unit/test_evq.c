/*
** tests/unit/test_evq.c: the event queue and event time (sim/evq.h,
** sim/time.h): earliest first, ties in push order (also across batches and
** after pops), peek and pop on an empty queue, seconds to ticks rounding up
** and saturating; a seeded heap check against a sort (seed printed on
** failure).
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/evq.h"

#include <stdlib.h>

struct rec {
	ccs_time t;
	uint64_t id;
};

static int by_time_then_id(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

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

/* Random times (many ties) pushed in random batches, popped in between: the
 * pops come out sorted by time, ties by push order. */
static void test_random(uint64_t seed)
{
	enum { N = 20000 };
	struct rec *in = calloc(N, sizeof *in), *out = calloc(N, sizeof *out);
	if (!in || !out) {
		free(in);
		free(out);
		CHECK(0);
		return;
	}
	fx_rng = seed;
	struct ccs_evq q;
	ccs_evq_init(&q);
	size_t nin = 0, nout = 0, bad = 0;
	ccs_time now = 0;
	struct ccs_event e;
	while (nout < N) {
		int k = (int)(fx_next() % 8);
		for (int i = 0; i < k && nin < N; i++) {
			in[nin].t = now + (ccs_time)(fx_next() % 16);
			in[nin].id = nin;
			bad += ccs_evq_push(&q, in[nin].t, 0, in[nin].id, 0) != 0;
			nin++;
		}
		if (ccs_evq_pop(&q, &e)) {
			bad += e.t < now;
			now = e.t;
			out[nout].t = e.t;
			out[nout].id = e.id;
			nout++;
		}
	}
	/* what came out is every event, and in (time, push) order by time:
	 * compare with a stable sort of what was pushed up to each time */
	qsort(in, N, sizeof *in, by_time_then_id);
	for (size_t i = 1; i < N; i++)
		bad += out[i].t < out[i - 1].t || (out[i].t == out[i - 1].t && out[i].id < out[i - 1].id);
	uint64_t sin = 0, sout = 0;
	for (size_t i = 0; i < N; i++) {
		sin += in[i].id * 2654435761u + (uint64_t)in[i].t;
		sout += out[i].id * 2654435761u + (uint64_t)out[i].t;
	}
	bad += sin != sout;
	if (bad)
		fprintf(stderr, "test_evq: seed %llu: %zu events out of order or lost\n", (unsigned long long)seed, bad);
	CHECK(bad == 0);
	ccs_evq_release(&q);
	free(in);
	free(out);
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
	for (uint64_t seed = 1; seed <= 4; seed++)
		test_random(seed * 0x9e3779b97f4a7c15ull);
	test_time();
	return CHECK_DONE("test_evq");
}
