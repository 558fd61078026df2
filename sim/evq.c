/* sim/evq.c: heap of batches of events (evq.h). */
#include "evq.h"

#include "../model/ccs.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

void ccs_evq_init(struct ccs_evq *q)
{
	memset(q, 0, sizeof *q);
	q->free_b = NONE;
	q->cur = q->last = -1;
}

void ccs_evq_release(struct ccs_evq *q)
{
	for (size_t i = 0; i < q->nb; i++)
		ccs_free(q->b[i].ev);
	ccs_free(q->b);
	ccs_free(q->h);
	ccs_evq_init(q);
}

static int before(const struct ccs_evq_entry *a, const struct ccs_evq_entry *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int new_batch(struct ccs_evq *q, uint32_t *out)
{
	uint32_t k;
	if (q->free_b != NONE) {
		k = q->free_b;
		q->free_b = q->b[k].next_free;
	} else {
		CCS_TRY(ccs_grow(&q->b, &q->capb, q->nb + 1, sizeof *q->b));
		k = (uint32_t)q->nb++;
		memset(&q->b[k], 0, sizeof q->b[k]);
	}
	q->b[k].n = q->b[k].read = 0;
	q->b[k].next_free = NONE;
	*out = k;
	return CCS_OK;
}

int ccs_evq_push(struct ccs_evq *q, ccs_time t, uint32_t kind, uint64_t id, uint32_t ver)
{
	uint32_t k;
	if (q->last >= 0 && q->last_t == t) {
		k = (uint32_t)q->last;
	} else {
		CCS_TRY(new_batch(q, &k));
		CCS_TRY(ccs_grow(&q->h, &q->cap, q->n + 1, sizeof *q->h));
		size_t i = q->n++;
		struct ccs_evq_entry e = { t, q->seq++, k };
		while (i > 0) {
			size_t p = (i - 1) / 2;
			if (!before(&e, &q->h[p]))
				break;
			q->h[i] = q->h[p];
			i = p;
		}
		q->h[i] = e;
		q->last = k;
		q->last_t = t;
	}
	struct ccs_evq_batch *b = &q->b[k];
	CCS_TRY(ccs_grow(&b->ev, &b->cap, b->n + 1, sizeof *b->ev));
	struct ccs_event ev = { t, kind, ver, id };
	b->ev[b->n++] = ev;
	q->count++;
	return CCS_OK;
}

static void heap_pop(struct ccs_evq *q, struct ccs_evq_entry *out)
{
	*out = q->h[0];
	struct ccs_evq_entry last = q->h[--q->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct ccs_evq_entry *best = &last;
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
}

int ccs_evq_pop(struct ccs_evq *q, struct ccs_event *out)
{
	for (;;) {
		if (q->cur >= 0) {
			struct ccs_evq_batch *b = &q->b[q->cur];
			if (b->read < b->n) {
				*out = b->ev[b->read++];
				q->count--;
				return 1;
			}
			/* done with it: free it, and stop appending to it */
			if (q->last == q->cur)
				q->last = -1;
			b->next_free = q->free_b;
			q->free_b = (uint32_t)q->cur;
			q->cur = -1;
		}
		if (!q->n)
			return 0;
		struct ccs_evq_entry e;
		heap_pop(q, &e);
		q->cur = e.batch;
	}
}

ccs_time ccs_evq_peek(const struct ccs_evq *q)
{
	if (q->cur >= 0 && q->b[q->cur].read < q->b[q->cur].n)
		return q->b[q->cur].ev[q->b[q->cur].read].t;
	return q->n ? q->h[0].t : CCS_TIME_MAX;
}
