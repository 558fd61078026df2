/*
** sim/evq.h: the event queue: a binary min-heap ordered by (time, sequence).
**
** Time is integer picoseconds (ccs_time).  Ties are common (symmetric ranks
** finish together) and are broken by the order of the pushes, so the order
** is total and runs are reproducible, with no epsilon anywhere.  Events
** pushed one after another for the same time share one heap entry (a
** batch), so a thousand ranks finishing together cost one heap operation,
** not a thousand; the order is the same as with one entry each.
** Events are plain records (kind, id, version); what they mean is the
** engine's business.  Stale events (a flow whose rate changed) are skipped
** by their version, not removed.
*/
#ifndef CCS_EVQ_H
#define CCS_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "time.h"

struct ccs_event {
	ccs_time t;
	uint32_t kind, ver;
	uint64_t id;
};

struct ccs_evq_entry {
	ccs_time t;
	uint64_t seq;
	uint32_t batch;
};

struct ccs_evq_batch {
	struct ccs_event *ev;
	size_t n, cap, read;
	uint32_t next_free;
};

struct ccs_evq {
	struct ccs_evq_entry *h;
	size_t n, cap;
	uint64_t seq;
	struct ccs_evq_batch *b;
	size_t nb, capb;
	uint32_t free_b;
	int64_t cur;                /* batch being read, -1 if none */
	int64_t last;               /* batch of the last push, -1 if none */
	ccs_time last_t;
	size_t count;               /* events queued */
};

void ccs_evq_init(struct ccs_evq *q);
void ccs_evq_release(struct ccs_evq *q);
int  ccs_evq_push(struct ccs_evq *q, ccs_time t, uint32_t kind, uint64_t id, uint32_t ver);
/* Pop the earliest event into *e; 0 if the queue is empty. */
int  ccs_evq_pop(struct ccs_evq *q, struct ccs_event *e);
/* Time of the earliest event, CCS_TIME_MAX if empty. */
ccs_time ccs_evq_peek(const struct ccs_evq *q);

#endif
