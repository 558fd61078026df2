/* sim/trace.c: Chrome trace event writer (trace.h). */
#include "trace.h"

#include <math.h>
#include <string.h>

struct ccs_trace {
	FILE *f;
	const struct ccs_sched *s;
	ccs_time *start;
	int first, nranks;
	const struct ccs_fabric *fab;   /* link counters when set */
	double *last;                   /* per resource: last utilisation written */
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
	t->nranks = nranks;
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
	ccs_sched_get(tr->s, op, &o);
	const char *what = o.kind == CCS_OP_NVLS ? "nvls" : o.kind == CCS_OP_DELAY ? "wait"
	                 : o.kind == CCS_OP_UP ? "up" : o.kind == CCS_OP_DOWN ? "down" : "send";
	fprintf(tr->f, "%s{\"name\": \"%s", tr->first ? "" : ",\n", what);
	if (o.kind == CCS_OP_XFER)
		fprintf(tr->f, " to %d", o.dst);
	fprintf(tr->f, "\", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.6f, \"dur\": %.6f, \"pid\": %d, \"tid\": %u, "
	               "\"args\": {\"op\": %llu, \"bytes\": %.0f}}",
	        what, (double)tr->start[op] * 1e-6, (double)(t - tr->start[op]) * 1e-6, o.src, o.channel,
	        (unsigned long long)op, o.bytes);
	tr->first = 0;
}

/* A counter per link, written when its utilisation changes. */
static void on_rates(void *ctx, const struct ccs_flows *fl, ccs_time t)
{
	struct ccs_trace *tr = ctx;
	if (!tr->last)
		return;
	uint32_t n;
	const uint32_t *res = ccs_flows_touched(fl, &n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = res[i];
		double cap = ccs_flows_cap(fl, r);
		double u = cap > 0 ? 100 * ccs_flows_load(fl, r) / cap : 0;
		if (fabs(u - tr->last[r]) < 1e-9)
			continue;
		tr->last[r] = u;
		char name[256];
		ccs_fabric_res_name(tr->fab, r, name, sizeof name);
		fprintf(tr->f, "%s{\"name\": \"", tr->first ? "" : ",\n");
		for (const char *p = name; *p; p++)
			if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
				fputc(*p, tr->f);
		fprintf(tr->f, "\", \"ph\": \"C\", \"ts\": %.6f, \"pid\": %d, \"args\": {\"util %%\": %.3f}}",
		        (double)t * 1e-6, tr->nranks, u);
		tr->first = 0;
	}
}

int ccs_trace_links(struct ccs_trace *t, const struct ccs_fabric *fab)
{
	uint32_t n = ccs_fabric_nres(fab);
	t->last = ccs_malloc(((size_t)n + 1) * sizeof *t->last);
	if (!t->last)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		t->last[i] = 0;
	t->fab = fab;
	fprintf(t->f, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"links (utilisation %%)\"}}",
	        t->first ? "" : ",\n", t->nranks);
	t->first = 0;
	return CCS_OK;
}

void ccs_trace_hooks(struct ccs_trace *t, struct ccs_sim_hooks *h)
{
	h->ctx = t;
	h->op_start = on_start;
	h->op_end = on_end;
	h->rates = on_rates;
}

int ccs_trace_close(struct ccs_trace *t)
{
	fprintf(t->f, "\n]}\n");
	int bad = ferror(t->f) != 0;
	bad |= fclose(t->f) != 0;
	ccs_free(t->start);
	ccs_free(t->last);
	ccs_free(t);
	return bad ? CCS_EIO : CCS_OK;
}

int ccs_trace_run(struct ccs_fabric *fab, const struct ccs_sched *s, int nranks, const char *path,
                  const char *title, const struct ccs_sim_hooks *watch, struct ccs_sim_stats *st,
                  struct ccs_flows **flows, int *in_trace, char *err, size_t errn)
{
	struct ccs_trace *tr = NULL;
	struct ccs_sim_hooks hooks;
	memset(&hooks, 0, sizeof hooks);
	*flows = NULL;
	*in_trace = 1;
	if (path) {
		int rc = ccs_trace_open(&tr, path, s, nranks, title, err, errn);
		if (!rc && ccs_trace_links(tr, fab)) {
			ccs_trace_close(tr);
			rc = CCS_ENOMEM;
		}
		if (rc) {
			if (rc == CCS_ENOMEM)
				snprintf(err, errn, "out of memory");
			return rc;
		}
		ccs_trace_hooks(tr, &hooks);
	}
	*in_trace = 0;
	if (watch) {
		hooks.tick_ctx = watch->tick_ctx;
		hooks.tick = watch->tick;
	}
	int rc = ccs_sim_run_hooked(fab, s, st, flows, tr || watch ? &hooks : NULL, err, errn);
	if (rc == CCS_ENOMEM)
		snprintf(err, errn, "out of memory");
	if (tr && ccs_trace_close(tr) && !rc) {
		*in_trace = 1;
		rc = CCS_EIO;
		snprintf(err, errn, "cannot write trace '%s'", path);
		ccs_flows_free(*flows);
		*flows = NULL;
	}
	return rc;
}
