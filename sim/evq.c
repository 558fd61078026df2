/* sim/evq.c: binary heap of events (evq.h). */
#include "evq.h"

#include "../model/ccs.h"

#include <math.h>
#include <string.h>

ccs_time ccs_time_from_s(double s)
{
	if (!(s > 0))
		return 0;
	double ps = ceil(s * 1e12);
	if (ps >= 9.2e18)
		return CCS_TIME_MAX;
	return (ccs_time)ps;
}

void ccs_evq_init(struct ccs_evq *q) { memset(q, 0, sizeof *q); }

void ccs_evq_release(struct ccs_evq *q)
{
	ccs_free(q->h);
	memset(q, 0, sizeof *q);
}

static int before(const struct ccs_event *a, const struct ccs_event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int ccs_evq_push(struct ccs_evq *q, ccs_time t, uint32_t kind, uint64_t id, uint32_t ver)
{
	CCS_TRY(ccs_grow(&q->h, &q->cap, q->n + 1, sizeof *q->h));
	size_t i = q->n++;
	struct ccs_event e = { t, q->seq++, kind, ver, id };
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = e;
	return CCS_OK;
}

int ccs_evq_pop(struct ccs_evq *q, struct ccs_event *out)
{
	if (!q->n)
		return 0;
	*out = q->h[0];
	struct ccs_event last = q->h[--q->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct ccs_event *best = &last;
		if (l < q->n && before(&q->h[l], best)) {
			m = l;
			best = &q->h[l];
		}
		if (r < q->n && before(&q->h[r], best))
			m = r;
		if (m == i)
			break;
		q->h[i] = q->h[m];
		i = m;
	}
	if (q->n)
		q->h[i] = last;
	return 1;
}

ccs_time ccs_evq_peek(const struct ccs_evq *q) { return q->n ? q->h[0].t : CCS_TIME_MAX; }
