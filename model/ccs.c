/* model/ccs.c: allocation hook, arena, diagnostics, suggestions. */
#include "ccs.h"
#include "escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fault injection for tests: the only mutable state in model/, touched
 * only by the test hooks below. */
static long fail_countdown;    /* >0: allocations left before one fails */
static int fail_happened;

void ccs_trace_fail(const char *file, int line, int rc)
{
	if (getenv("CCS_TRACE"))
		fprintf(stderr, "ccsim: trace: %s:%d: status %d\n", file, line, rc);
}

void ccs_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "ccsim: internal error at %s:%d: %s\n", file, line, msg);
	abort();
}

void ccs_alloc_fail_at(long n)
{
	fail_countdown = n;
	fail_happened = 0;
}

int ccs_alloc_failed(void) { return fail_happened; }

/* Test builds: CCS_FAIL_ALLOC=N fails the Nth allocation; CCS_COUNT_ALLOC
 * set prints how many there were at exit (tests/alloc.sh sweeps them). */
#ifdef CCS_TEST_HOOKS
static long nalloc;

static void print_count(void) { fprintf(stderr, "ccsim: %ld allocations\n", nalloc); }
#endif

void ccs_alloc_init_from_env(void)
{
#ifdef CCS_TEST_HOOKS
	const char *s = getenv("CCS_FAIL_ALLOC");
	if (s && *s)
		fail_countdown = strtol(s, NULL, 10);
	if (getenv("CCS_COUNT_ALLOC"))
		atexit(print_count);
#endif
}

static int should_fail(void)
{
#ifdef CCS_TEST_HOOKS
	nalloc++;
#endif
	if (fail_countdown <= 0)
		return 0;
	if (--fail_countdown)
		return 0;
	fail_happened = 1;
	return 1;
}

void *ccs_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *ccs_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *ccs_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
}

void ccs_free(void *p) { free(p); }

int ccs_grow_slow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	if (need <= *cap)
		return CCS_OK;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / sz)
			return CCS_ENOMEM;
		nc *= 2;
	}
	void *q = ccs_realloc(*p, nc * sz);
	if (!q)
		return CCS_ENOMEM;
	*p = q;
	*cap = nc;
	return CCS_OK;
}

/* ---- arena ---- */

struct ccs_arena_chunk {
	struct ccs_arena_chunk *next;
	size_t size;
	_Alignas(16) unsigned char data[];
};

void ccs_arena_init(struct ccs_arena *a) { memset(a, 0, sizeof *a); }

void *ccs_arena_alloc(struct ccs_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!a->head || a->used + n > a->cap) {
		size_t sz = n > 65536 ? n : 65536;
		if (a->total > 65536 * 4 && sz < a->total / 4 && n <= a->total / 4)
			sz = a->total / 4;          /* grow chunks with the arena */
		struct ccs_arena_chunk *c = ccs_malloc(sizeof *c + sz);
		if (!c)
			return NULL;
		c->next = a->head;
		c->size = sz;
		a->head = c;
		a->used = 0;
		a->cap = sz;
		a->total += sz;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *ccs_arena_strndup(struct ccs_arena *a, const char *s, size_t n)
{
	char *p = ccs_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

char *ccs_arena_strdup(struct ccs_arena *a, const char *s)
{
	return ccs_arena_strndup(a, s, strlen(s));
}

char *ccs_arena_printf(struct ccs_arena *a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof buf)
		return ccs_arena_strndup(a, buf, (size_t)n);
	char *p = ccs_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ccs_text_printf(struct ccs_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0 || t->oom)
		return;
	if (ccs_grow(&t->s, &t->cap, t->n + (size_t)k + 1, 1)) {
		t->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	t->n += (size_t)k;
}

void ccs_arena_release(struct ccs_arena *a)
{
	struct ccs_arena_chunk *c = a->head;
	while (c) {
		struct ccs_arena_chunk *n = c->next;
		ccs_free(c);
		c = n;
	}
	memset(a, 0, sizeof *a);
}

/* ---- diagnostics ---- */

int ccs_diag_at(struct ccs_diag *d, struct ccs_mark m, const char *fmt, ...)
{
	if (!d || d->set)
		return CCS_EINPUT;
	const char *src = (d->srcs && m.src >= 0 && m.src < d->nsrcs) ? d->srcs[m.src] : "<input>";
	int n = snprintf(d->msg, sizeof d->msg, "%s:%d:%d: ", src, m.line, m.col);
	if (n < 0 || (size_t)n >= sizeof d->msg)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
	va_end(ap);
	ccs_escape_utf8_fix(d->msg);   /* a quote cut to fit keeps whole characters */
	d->set = 1;
	return CCS_EINPUT;
}

int ccs_diag_msg(struct ccs_diag *d, const char *fmt, ...)
{
	if (!d || d->set)
		return CCS_EINPUT;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	ccs_escape_utf8_fix(d->msg);
	d->set = 1;
	return CCS_EINPUT;
}

int ccs_stream_read(FILE *f, size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = ccs_malloc(cap);
	*out = NULL;
	*len = 0;
	if (!b)
		return CCS_ENOMEM;
	for (;;) {
		if (n + 1 == cap) {
			if (max && n >= max) {
				ccs_free(b);
				return CCS_EINPUT;
			}
			size_t grow = max && cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nb = ccs_realloc(b, grow);
			if (!nb) {
				ccs_free(b);
				return CCS_ENOMEM;
			}
			b = nb;
			cap = grow;
		}
		size_t r = fread(b + n, 1, cap - 1 - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f) || (max && n >= max)) {
		ccs_free(b);
		return ferror(f) ? CCS_EIO : CCS_EINPUT;
	}
	b[n] = 0;
	*out = b;
	*len = n;
	return CCS_OK;
}

int ccs_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = a[i - 1] == b[j - 1] ? 0 : 1;
			int v = diag + cost;
			if (up + 1 < v) v = up + 1;
			if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

const char *ccs_suggest(const char *s, const char *const *cands, int n)
{
	const char *best = NULL;
	int bd = 99;
	for (int i = 0; i < n; i++) {
		int d = ccs_edit_distance(s, cands[i]);
		if (d < bd) {
			bd = d;
			best = cands[i];
		}
	}
	size_t l = strlen(s);
	int limit = l <= 3 ? 1 : l <= 6 ? 2 : 3;
	return bd <= limit ? best : NULL;
}
