/* sim/trace.c: Chrome trace event writer (trace.h). */
#include "trace.h"

#include <string.h>

struct ccs_trace {
	FILE *f;
	const struct ccs_sched *s;
	ccs_time *start;
	int first;
};

int ccs_trace_open(struct ccs_trace **out, const char *path, const struct ccs_sched *s, int nranks,
                   const char *title, char *err, size_t errn)
{
	if (s->nops > CCS_TRACE_MAX_OPS) {
		snprintf(err, errn, "a trace keeps every op; this schedule has %llu, at most %u (fewer ranks or sizes)",
		         (unsigned long long)s->nops, CCS_TRACE_MAX_OPS);
		return CCS_EINPUT;
	}
	struct ccs_trace *t = ccs_calloc(1, sizeof *t);
	if (!t)
		return CCS_ENOMEM;
	t->start = ccs_malloc((s->nops ? s->nops : 1) * sizeof *t->start);
	if (!t->start) {
		ccs_free(t);
		return CCS_ENOMEM;
	}
	t->f = fopen(path, "w");
	if (!t->f) {
		snprintf(err, errn, "cannot write trace '%s'", path);
		ccs_free(t->start);
		ccs_free(t);
		return CCS_EINPUT;
	}
	t->s = s;
	t->first = 1;
	fprintf(t->f, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"title\": \"");
	for (const char *p = title; *p; p++)
		if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			fputc(*p, t->f);
	fprintf(t->f, "\"},\n\"traceEvents\": [\n");
	for (int r = 0; r < nranks; r++) {
		fprintf(t->f, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"rank %d\"}}",
		        t->first ? "" : ",\n", r, r);
		t->first = 0;
	}
	*out = t;
	return CCS_OK;
}

static void on_start(void *ctx, uint64_t op, const struct ccs_op *o, ccs_time t)
{
	(void)o;
	struct ccs_trace *tr = ctx;
	tr->start[op] = t;
}

static void on_end(void *ctx, uint64_t op, ccs_time t)
{
	struct ccs_trace *tr = ctx;
	struct ccs_op o;
	tr->s->get(tr->s, op, &o);
	const char *what = o.kind == CCS_OP_NVLS ? "nvls" : o.kind == CCS_OP_DELAY ? "wait" : "send";
	fprintf(tr->f, "%s{\"name\": \"%s", tr->first ? "" : ",\n", what);
	if (o.kind == CCS_OP_XFER)
		fprintf(tr->f, " to %d", o.dst);
	fprintf(tr->f, "\", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.6f, \"dur\": %.6f, \"pid\": %d, \"tid\": %u, "
	               "\"args\": {\"op\": %llu, \"bytes\": %.0f}}",
	        what, (double)tr->start[op] * 1e-6, (double)(t - tr->start[op]) * 1e-6, o.src, o.channel,
	        (unsigned long long)op, o.bytes);
	tr->first = 0;
}

void ccs_trace_hooks(struct ccs_trace *t, struct ccs_sim_hooks *h)
{
	h->ctx = t;
	h->op_start = on_start;
	h->op_end = on_end;
}

int ccs_trace_close(struct ccs_trace *t)
{
	fprintf(t->f, "\n]}\n");
	int bad = ferror(t->f) != 0;
	bad |= fclose(t->f) != 0;
	ccs_free(t->start);
	ccs_free(t);
	return bad ? CCS_EIO : CCS_OK;
}
