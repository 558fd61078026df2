/* sim/trace.c: Chrome trace event writer (trace.h). */
#include "trace.h"

#include <math.h>
#include <string.h>

const char *const ccs_trace_level_name[CCS_TRACE_LEVEL_N] = { "step", "collective", "chunk" };

/* one merged span of a rank's track (step and collective levels) */
struct span {
	ccs_time s, e;
	double bytes;
	uint64_t n;
	int open;
};

/* The step level: op k of each of a rank's channels is that rank's step k
 * (its ordinal among the ops of its rank and channel, in id order); a step
 * spans from the first of them to start to the last to end, and its wait
 * likewise.  A rank holds STEP_WIN steps open at once (channels drift a
 * few steps apart); a step is written once every channel's op k ended, or
 * when its slot is needed. */
#define STEP_WIN 64
struct step {
	struct span d, w;
	uint64_t k;
	uint32_t ended;
};

struct ccs_trace {
	FILE *f;
	const struct ccs_sched *s;
	ccs_time *start;
	int first, nranks, level;
	const struct ccs_fabric *fab;   /* link counters when set */
	double *last;                   /* per resource: last utilisation written */
	struct span *data, *wait;       /* per rank (collective) */
	struct step *steps;             /* per rank x STEP_WIN (step) */
	uint32_t *ord;                  /* per op: its step k (step) */
	uint32_t *nch;                  /* per rank: channels with ops (step) */
	const char *title;
};

static void sep(struct ccs_trace *t)
{
	if (!t->first)
		fputs(",\n", t->f);
	t->first = 0;
}

static void put_str(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			fputc(*p, f);
}

static void thread_name(struct ccs_trace *t, int pid, unsigned tid, const char *name)
{
	sep(t);
	fprintf(t->f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %u, \"args\": {\"name\": \"%s\"}}",
	        pid, tid, name);
}

/* a complete event */
static void span_out(struct ccs_trace *t, const char *name, const char *cat, ccs_time s, ccs_time e, int pid,
                     unsigned tid, uint64_t n, double bytes)
{
	sep(t);
	fprintf(t->f, "{\"name\": \"");
	put_str(t->f, name);
	fprintf(t->f, "\", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.6f, \"dur\": %.6f, \"pid\": %d, \"tid\": %u",
	        cat, (double)s * 1e-6, (double)(e - s) * 1e-6, pid, tid);
	if (n)
		fprintf(t->f, ", \"args\": {\"ops\": %llu, \"bytes\": %.0f}", (unsigned long long)n, bytes);
	fputc('}', t->f);
}

/* Tracks of the merged levels: tid 0 the data, tid 1 the latency and
 * synchronisation waits before the ops. */
enum { TID_DATA, TID_WAIT };

static void trace_free(struct ccs_trace *t)
{
	ccs_free(t->start);
	ccs_free(t->last);
	ccs_free(t->data);
	ccs_free(t->wait);
	ccs_free(t->steps);
	ccs_free(t->ord);
	ccs_free(t->nch);
	ccs_free(t);
}

/* The step level's numbering: each op's ordinal among its rank's ops on
 * its channel (t->ord), and each rank's channels (t->nch), through a map of
 * (rank, channel) pairs to their counts. */
static int number_steps(struct ccs_trace *t)
{
	const struct ccs_sched *s = t->s;
	uint64_t cap = 64;
	while (cap < 2 * s->nops + 2)
		cap *= 2;
	uint64_t *key = ccs_malloc(cap * sizeof *key);
	uint32_t *cnt = ccs_calloc(cap, sizeof *cnt);
	t->ord = ccs_malloc((s->nops ? s->nops : 1) * sizeof *t->ord);
	t->nch = ccs_calloc((size_t)t->nranks + 1, sizeof *t->nch);
	t->steps = ccs_calloc(((size_t)t->nranks + 1) * STEP_WIN, sizeof *t->steps);
	int rc = key && cnt && t->ord && t->nch && t->steps ? CCS_OK : CCS_ENOMEM;
	for (uint64_t i = 0; !rc && i < cap; i++)
		key[i] = UINT64_MAX;
	for (uint64_t i = 0; !rc && i < s->nops; i++) {
		struct ccs_op o;
		ccs_sched_get(s, i, &o);
		if (o.src < 0 || o.src >= t->nranks) {
			t->ord[i] = 0;
			continue;
		}
		uint64_t k = (uint64_t)o.src << 32 | o.channel, h = (k * 0x9e3779b97f4a7c15ull) & (cap - 1);
		while (key[h] != UINT64_MAX && key[h] != k)
			h = (h + 1) & (cap - 1);
		if (key[h] == UINT64_MAX) {
			key[h] = k;
			t->nch[o.src]++;
		}
		t->ord[i] = cnt[h]++;
	}
	ccs_free(key);
	ccs_free(cnt);
	return rc;
}

int ccs_trace_open(struct ccs_trace **out, const char *path, const struct ccs_sched *s, int nranks, int level,
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
	t->data = ccs_calloc((size_t)nranks + 1, sizeof *t->data);
	t->wait = ccs_calloc((size_t)nranks + 1, sizeof *t->wait);
	t->s = s;
	t->nranks = nranks;
	t->level = level >= 0 && level < CCS_TRACE_LEVEL_N ? level : CCS_TRACE_STEP;
	if (!t->start || !t->data || !t->wait || (t->level == CCS_TRACE_STEP && number_steps(t))) {
		trace_free(t);
		return CCS_ENOMEM;
	}
	t->f = fopen(path, "w");
	if (!t->f) {
		snprintf(err, errn, "cannot write trace '%s'", path);
		trace_free(t);
		return CCS_EINPUT;
	}
	t->first = 1;
	t->title = title;
	fprintf(t->f, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"title\": \"");
	put_str(t->f, title);
	fprintf(t->f, "\", \"level\": \"%s\"},\n\"traceEvents\": [\n", ccs_trace_level_name[t->level]);
	for (int r = 0; r < nranks; r++) {
		sep(t);
		fprintf(t->f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"rank %d\"}}", r, r);
		if (t->level != CCS_TRACE_CHUNK) {
			thread_name(t, r, TID_DATA, t->level == CCS_TRACE_STEP ? "data (every channel)" : "collective");
			thread_name(t, r, TID_WAIT, "latency and sync");
		}
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

static const char *op_what(const struct ccs_op *o)
{
	return o->kind == CCS_OP_NVLS ? "nvls" : o->kind == CCS_OP_DELAY ? "wait" : o->kind == CCS_OP_UP ? "up"
	     : o->kind == CCS_OP_DOWN ? "down" : "send";
}

/* Write rank r's open span of track tid and close it (the collective
 * level). */
static void flush(struct ccs_trace *t, struct span *sp, int r, unsigned tid)
{
	if (!sp->open)
		return;
	span_out(t, tid == TID_WAIT ? "latency and sync" : t->title, tid == TID_WAIT ? "latency" : "data", sp->s, sp->e, r,
	         tid, tid == TID_WAIT ? 0 : sp->n, sp->bytes);
	sp->open = 0;
}

/* Write step slot x of rank r (its data and its wait) and free it. */
static void step_flush(struct ccs_trace *t, struct step *x, int r)
{
	if (!x->d.open)
		return;
	/* the name carries the step's number; the args its ops and bytes */
	char name[48];
	snprintf(name, sizeof name, "step %llu", (unsigned long long)x->k);
	span_out(t, name, "data", x->d.s, x->d.e, r, TID_DATA, x->d.n, x->d.bytes);
	if (x->w.open)
		span_out(t, "latency and sync", "latency", x->w.s, x->w.e, r, TID_WAIT, 0, 0);
	memset(x, 0, sizeof *x);
}

static void grow(struct span *sp, ccs_time a, ccs_time b)
{
	if (!sp->open) {
		*sp = (struct span){ a, b, 0, 0, 1 };
		return;
	}
	if (a < sp->s)
		sp->s = a;
	if (b > sp->e)
		sp->e = b;
}

/* Op (its rank r, step k) ran [st, end] after waiting [ws, st]. */
static void step_add(struct ccs_trace *t, int r, uint64_t k, ccs_time ws, ccs_time st, ccs_time end, double bytes)
{
	struct step *x = &t->steps[(size_t)r * STEP_WIN + k % STEP_WIN];
	if (x->d.open && x->k != k)
		step_flush(t, x, r);
	x->k = k;
	grow(&x->d, st, end);
	x->d.bytes += bytes;
	x->d.n++;
	if (st > ws)
		grow(&x->w, ws, st);
	if (++x->ended >= t->nch[r])
		step_flush(t, x, r);
}

/* Add [a, b] to rank r's one span (the collective level). */
static void merge(struct span *sp, ccs_time a, ccs_time b, double bytes)
{
	grow(sp, a, b);
	sp->bytes += bytes;
	sp->n++;
}

static void on_end(void *ctx, uint64_t op, ccs_time t)
{
	struct ccs_trace *tr = ctx;
	struct ccs_op o;
	ccs_sched_get(tr->s, op, &o);
	ccs_time st = tr->start[op], w = ccs_time_from_s(o.delay_s);
	ccs_time ws = w < st ? st - w : 0;
	if (tr->level != CCS_TRACE_CHUNK) {
		if (o.src < 0 || o.src >= tr->nranks)
			return;
		if (tr->level == CCS_TRACE_STEP) {
			step_add(tr, o.src, tr->ord[op], ws, st, t, o.bytes);
			return;
		}
		/* the collective's wait: from the first op's wait to the first
		 * data, its latency */
		struct span *wp = &tr->wait[o.src];
		if (st > ws && !wp->open)
			*wp = (struct span){ ws, st, 0, 1, 1 };
		else if (st > ws) {
			wp->s = ws < wp->s ? ws : wp->s;
			wp->e = st < wp->e ? st : wp->e;
		}
		merge(&tr->data[o.src], st, t, o.bytes);
		return;
	}
	/* chunk: every op on its channel's thread, its latency and sync wait
	 * on the channel's second thread; an op of no rank with a receiver (a
	 * schedule file's arrival, sched/file.c) only its latency, there */
	if (o.src < 0 || o.src >= tr->nranks) {
		if (o.dst >= 0 && o.dst < tr->nranks && st > ws)
			span_out(tr, "latency", "latency", ws, st, o.dst, 2 * o.channel + 1, 0, 0);
		return;
	}
	char name[48];
	snprintf(name, sizeof name, o.kind == CCS_OP_XFER ? "%s to %d" : "%s", op_what(&o), o.dst);
	span_out(tr, name, op_what(&o), st, t, o.src, 2 * o.channel, 1, o.bytes);
	if (st > ws)
		span_out(tr, "latency and sync", "latency", ws, st, o.src, 2 * o.channel + 1, 0, 0);
}

/* A counter per link, written when its utilisation changes (the chunk
 * level). */
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
		sep(tr);
		fprintf(tr->f, "{\"name\": \"");
		put_str(tr->f, name);
		fprintf(tr->f, "\", \"ph\": \"C\", \"ts\": %.6f, \"pid\": %d, \"args\": {\"util %%\": %.3f}}",
		        (double)t * 1e-6, tr->nranks, u);
	}
}

int ccs_trace_links(struct ccs_trace *t, const struct ccs_fabric *fab)
{
	if (t->level != CCS_TRACE_CHUNK)
		return CCS_OK;
	uint32_t n = ccs_fabric_nres(fab);
	t->last = ccs_malloc(((size_t)n + 1) * sizeof *t->last);
	if (!t->last)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		t->last[i] = 0;
	t->fab = fab;
	sep(t);
	fprintf(t->f, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"links (utilisation %%)\"}}",
	        t->nranks);
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
	for (int r = 0; r < t->nranks; r++) {
		flush(t, &t->wait[r], r, TID_WAIT);
		flush(t, &t->data[r], r, TID_DATA);
		for (int j = 0; t->steps && j < STEP_WIN; j++)
			step_flush(t, &t->steps[(size_t)r * STEP_WIN + j], r);
	}
	fprintf(t->f, "\n]}\n");
	int bad = ferror(t->f) != 0;
	bad |= fclose(t->f) != 0;
	trace_free(t);
	return bad ? CCS_EIO : CCS_OK;
}

int ccs_trace_run(struct ccs_fabric *fab, const struct ccs_sched *s, int nranks, const char *path, int level,
                  const char *title, const struct ccs_sim_hooks *watch, struct ccs_sim_stats *st,
                  struct ccs_flows **flows, int *in_trace, char *err, size_t errn)
{
	struct ccs_trace *tr = NULL;
	struct ccs_sim_hooks hooks;
	memset(&hooks, 0, sizeof hooks);
	*flows = NULL;
	*in_trace = 1;
	if (path) {
		int rc = ccs_trace_open(&tr, path, s, nranks, level, title, err, errn);
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
