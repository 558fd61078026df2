/* calibrate/pl.c: ccsim-profiler logs (ccs_pl_*, ingest.h), the lines
** calibrate/nccl/profiler.c writes for each collective of a running job. */
#include "ingest.h"
#include "lines.h"

#include "../model/coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NCCL's datatype names (ncclFloat32 ..., as ncclDatatypeToString gives
 * them to a profiler) as nccl-tests prints them, with their sizes; the
 * nccl-tests names are read too */
static const struct {
	const char *nccl, *name;
	int size;
} pl_types[] = {
	{ "ncclInt8", "int8", 1 },        { "ncclUint8", "uint8", 1 },       { "ncclInt32", "int32", 4 },
	{ "ncclUint32", "uint32", 4 },    { "ncclInt64", "int64", 8 },       { "ncclUint64", "uint64", 8 },
	{ "ncclFloat16", "half", 2 },     { "ncclFloat32", "float", 4 },     { "ncclFloat64", "double", 8 },
	{ "ncclBfloat16", "bfloat16", 2 }, { "ncclFloat8e4m3", "f8e4m3", 1 }, { "ncclFloat8e5m2", "f8e5m2", 1 },
};

enum { PL_FUNC, PL_COUNT, PL_TYPE, PL_RANKS, PL_NODES, PL_TIME, PL_ALGO, PL_PROTO, PL_PLACE, PL_CLOCK, PL_NKEYS };
static const char *const pl_keys[PL_NKEYS] = { "func", "count", "type", "ranks", "nodes", "time_ns", "algo",
                                               "proto", "place", "clock" };

/* The values of a record's keys (others are kept by the log, not read). */
static void pl_values(const struct ccs_lines_toks *k, const char **v, int *c)
{
	for (int i = 1; i < k->n; i++) {
		const char *eq = strchr(k->t[i], '=');
		for (int j = 0; eq && j < PL_NKEYS; j++)
			if (strlen(pl_keys[j]) == (size_t)(eq - k->t[i]) && !strncmp(pl_keys[j], k->t[i], (size_t)(eq - k->t[i]))) {
				v[j] = eq + 1;
				c[j] = k->col[i] + (int)(eq + 1 - k->t[i]);
			}
	}
}

/* One "coll ..." line into r; 0, or -1 with why and its column. */
static int pl_record(const struct ccs_lines_toks *k, struct ccs_pl_rec *r, char *msg, size_t msgn, int *col)
{
	const char *v[PL_NKEYS] = { 0 };
	int c[PL_NKEYS] = { 0 };
	memset(r, 0, sizeof *r);
	pl_values(k, v, c);
	for (int j = 0; j < PL_TIME + 1; j++)
		if (!v[j] || !*v[j]) {
			*col = k->n ? k->col[k->n - 1] : 1;
			snprintf(msg, msgn, "record without '%s' (cut short?)", pl_keys[j]);
			return -1;
		}
	int coll = ccs_coll_parse(v[PL_FUNC]);
	if (coll < 0 || coll == CCS_COLL_SENDRECV) {
		*col = c[PL_FUNC];
		snprintf(msg, msgn, "'%.40s' is not a collective ccsim fits", v[PL_FUNC]);
		return -1;
	}
	size_t t = 0;
	while (t < sizeof pl_types / sizeof pl_types[0] && strcmp(pl_types[t].nccl, v[PL_TYPE]) &&
	       strcmp(pl_types[t].name, v[PL_TYPE]))
		t++;
	if (t == sizeof pl_types / sizeof pl_types[0]) {
		*col = c[PL_TYPE];
		snprintf(msg, msgn, "unknown datatype '%.40s'", v[PL_TYPE]);
		return -1;
	}
	uint64_t u[4];
	const int num[4] = { PL_COUNT, PL_RANKS, PL_NODES, PL_TIME };
	for (int i = 0; i < 4; i++)
		if (ccs_lines_u63(v[num[i]], &u[i]) || (i && !u[i]) || u[i] > (i == 1 || i == 2 ? 1u << 24 : 1ull << 56)) {
			*col = c[num[i]];
			snprintf(msg, msgn, "expected a whole number for '%s', got '%.40s'", pl_keys[num[i]], v[num[i]]);
			return -1;
		}
	/* the size as nccl-tests counts it: AllGather's count is what each
	 * rank sends, ReduceScatter's what each receives */
	uint64_t per = u[0] * (uint64_t)pl_types[t].size;
	r->coll = coll;
	r->size = coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER ? per * u[1] : per;
	snprintf(r->type, sizeof r->type, "%s", pl_types[t].name);
	r->ranks = (int)u[1];
	r->nodes = (int)u[2];
	r->time_s = (double)u[3] * 1e-9;
	r->inplace = v[PL_PLACE] && !strcmp(v[PL_PLACE], "ip");
	snprintf(r->algo, sizeof r->algo, "%.15s", v[PL_ALGO] ? v[PL_ALGO] : "");
	snprintf(r->proto, sizeof r->proto, "%.15s", v[PL_PROTO] ? v[PL_PROTO] : "");
	/* clock=host: NCCL's enqueue, timed on the host because no kernel
	 * channel event came (kernel events off): not the collective's time */
	r->host_clock = v[PL_CLOCK] && strcmp(v[PL_CLOCK], "gpu");
	return 0;
}

struct pl_read {
	struct ccs_pl_log *out;
	size_t cap;
};

static void pl_comment(void *o, const struct ccs_lines_toks *k)
{
	struct ccs_pl_log *out = ((struct pl_read *)o)->out;
	if (k->n >= 3 && !strcmp(k->t[1], "host:") && !out->host[0])
		snprintf(out->host, sizeof out->host, "%s", k->t[2]);
}

/* A 'coll' record: kept, or counted when timed on the host. */
static int pl_line(void *o, const struct ccs_lines_toks *k, int line, char *msg, size_t msgn, int *col)
{
	struct pl_read *p = o;
	struct ccs_pl_rec r;
	if (strcmp(k->t[0], "coll")) {
		snprintf(msg, msgn, "expected a 'coll' record, got '%.40s'", k->t[0]);
		return 1;
	}
	if (pl_record(k, &r, msg, msgn, col))
		return 1;
	r.line = line;
	if (r.host_clock) {
		p->out->nhost++;
		return CCS_OK;
	}
	CCS_TRY(ccs_grow(&p->out->rec, &p->cap, p->out->nrec + 1, sizeof *p->out->rec));
	p->out->rec[p->out->nrec++] = r;
	return CCS_OK;
}

static int pl_end(void *o, const char *src, int magic, const char **msg)
{
	struct ccs_pl_log *out = ((struct pl_read *)o)->out;
	*msg = NULL;
	if (out->nhost)
		CCS_TRY(ccs_lines_warn(&out->warn, &out->nwarn,
		                       "%s: %zu record(s) timed on the host (clock=host: no kernel channel events, so NCCL's "
		                       "enqueue, not the collective) not used; enable NCCL's kernel profiler events", src,
		                       out->nhost));
	if (!out->nrec)
		*msg = !magic ? "not a ccsim-profiler log"
		     : out->nhost ? "every record of the ccsim-profiler log was timed on the host (clock=host): no "
		                    "kernel channel events came, so none measures a collective"
		                  : "no usable record in the ccsim-profiler log";
	return CCS_OK;
}

int ccs_pl_parse(const char *src, const char *text, size_t len, struct ccs_pl_log *out, struct ccs_diag *d)
{
	static const struct ccs_lines_records rd = { "ccsim-profiler", pl_comment, pl_line, pl_end };
	memset(out, 0, sizeof *out);
	struct pl_read p = { out, 0 };
	int rc = ccs_lines_records(src, text, len, &rd, &p, &out->warn, &out->nwarn, d);
	if (rc)
		ccs_pl_release(out);
	return rc;
}

/* Records of one series (collective, type, placement, ranks, size): 0 */
int ccs_pl_series(const struct ccs_pl_rec *x, const struct ccs_pl_rec *y)
{
	int c = x->coll != y->coll ? x->coll - y->coll : strcmp(x->type, y->type);
	if (!c)
		c = x->inplace != y->inplace ? x->inplace - y->inplace : x->ranks != y->ranks ? x->ranks - y->ranks : 0;
	return c ? c : (x->size > y->size) - (x->size < y->size);
}

/* by series, then time */
static int pl_by_series(const void *a, const void *b)
{
	const struct ccs_pl_rec *x = a, *y = b;
	int c = ccs_pl_series(x, y);
	return c ? c : (x->time_s > y->time_s) - (x->time_s < y->time_s);
}

void ccs_pl_sort(struct ccs_pl_log *l)
{
	qsort(l->rec, l->nrec, sizeof *l->rec, pl_by_series);
}

void ccs_pl_release(struct ccs_pl_log *l)
{
	ccs_free(l->rec);
	ccs_lines_warn_free(l->warn, l->nwarn);
	memset(l, 0, sizeof *l);
}
