/*
** tests/prop/prop_evq.c: the event queue (sim/evq.h) against a sort: random
** times with many ties, pushed in random batches and popped in between,
** come out earliest first, ties in push order, none lost; four seeds, the
** failing one printed.
*/
#include "../check.h"
#include "../unit/fixture.h"
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

int main(void)
{
	for (uint64_t seed = 1; seed <= 4; seed++)
		test_random(seed * 0x9e3779b97f4a7c15ull);
	return CHECK_DONE("prop_evq");
}
