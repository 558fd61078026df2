/*
** tests/tools/failmalloc.c: an LD_PRELOAD shim that makes the Nth call to
** malloc, calloc or realloc of a process fail (CCS_FAIL_LIBC=N), counting
** from the shim's constructor, so that the allocations ccsim's own hook
** does not see fail too: libyaml's, GSL's, expat's, SQLite's and libc's.
** CCS_COUNT_LIBC set prints "failmalloc: N allocations" at exit.  For the
** release build (sanitizers replace malloc themselves); tests/alloc.sh
** --libc uses it.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);

static long countdown, count;
static int armed, counting;

static void report(void)
{
	char b[64];
	int k = snprintf(b, sizeof b, "failmalloc: %ld allocations\n", count);
	if (k > 0 && write(2, b, (size_t)k) < 0)
		return;
}

__attribute__((constructor)) static void arm(void)
{
	const char *s = getenv("CCS_FAIL_LIBC");
	countdown = s ? strtol(s, NULL, 10) : 0;
	counting = getenv("CCS_COUNT_LIBC") != NULL;
	armed = 1;
	if (counting)
		atexit(report);
}

static int fail_now(void)
{
	if (!armed)
		return 0;
	count++;
	if (countdown > 0 && --countdown == 0) {
		errno = ENOMEM;   /* as malloc itself says it */
		return 1;
	}
	return 0;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return fail_now() ? NULL : __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
