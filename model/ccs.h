/*
** model/ccs.h: what every module shares: status codes, the allocation hook,
** the per-object arena, source positions and positioned diagnostics.
**
** Status:  functions that can fail return an int (enum ccs_status) and pass
**          results through out-pointers; CCS_TRY propagates a failure.
** Memory:  every allocation goes through ccs_malloc/ccs_realloc so that a test
**          build can make the Nth one fail (CCS_FAIL_ALLOC=N in the
**          environment, or ccs_alloc_fail_at()).  A loaded object keeps its
**          small pieces in one struct ccs_arena and frees them in one call.
** Marks:   a position in an input: source index (0 = the file, 1.. = each
**          --set argument), 1-based line and column.
*/
#ifndef CCS_H
#define CCS_H

/* what `ccsim version` prints; stored with each calibration run and study */
#define CCS_VERSION "0.1.0"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum ccs_status { CCS_OK = 0, CCS_ENOMEM, CCS_EINPUT, CCS_EIO,
                  CCS_EDB, CCS_EFIT, CCS_EINTERNAL };

void ccs_trace_fail(const char *file, int line, int rc);

#define CCS_TRY(expr) do { int rc_ = (expr); \
	if (rc_ != CCS_OK) { ccs_trace_fail(__FILE__, __LINE__, rc_); return rc_; } } while (0)

#define CCS_BUG(msg) ccs_bug(__FILE__, __LINE__, (msg))
_Noreturn void ccs_bug(const char *file, int line, const char *msg);

#if defined(__GNUC__)
#define CCS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CCS_PRINTF(f, a)
#endif

/* Allocation hook.  ccs_malloc(0) returns a valid unique pointer. */
void *ccs_malloc(size_t n);
void *ccs_calloc(size_t n, size_t size);
void *ccs_realloc(void *p, size_t n);
void  ccs_free(void *p);
/* Make the nth allocation from now fail (1 = the next one); 0 disables. */
void  ccs_alloc_fail_at(long n);
/* Whether an injected failure has happened since the last ccs_alloc_fail_at. */
int   ccs_alloc_failed(void);
/* Read CCS_FAIL_ALLOC from the environment (call once, in main). */
void  ccs_alloc_init_from_env(void);
/* Grow *p (an array of *cap elements of size sz) to hold at least need;
 * the common case (room already) costs one comparison, inline. */
int   ccs_grow_slow(void *p, size_t *cap, size_t need, size_t sz);
static inline int ccs_grow(void *p, size_t *cap, size_t need, size_t sz)
{
	return need <= *cap ? 0 : ccs_grow_slow(p, cap, need, sz);
}

/* Arena: bump allocation in chunks, freed all at once. */
struct ccs_arena_chunk;
struct ccs_arena {
	struct ccs_arena_chunk *head;
	size_t used, cap;           /* of head */
	size_t total;               /* bytes obtained from ccs_malloc */
};
void  ccs_arena_init(struct ccs_arena *a);
void *ccs_arena_alloc(struct ccs_arena *a, size_t n);     /* 16-aligned, zeroed */
char *ccs_arena_strdup(struct ccs_arena *a, const char *s);
char *ccs_arena_strndup(struct ccs_arena *a, const char *s, size_t n);
char *ccs_arena_printf(struct ccs_arena *a, const char *fmt, ...) CCS_PRINTF(2, 3);

/* A growing text (the YAML the XML readers write): ccs_text_printf appends;
 * on running out of memory it sets oom and appends nothing more.  s is
 * NUL-ended once anything was written, ccs_malloc'd, the owner's to free. */
struct ccs_text {
	char *s;
	size_t n, cap;
	int oom;
};
void ccs_text_printf(struct ccs_text *t, const char *fmt, ...) CCS_PRINTF(2, 3);
void  ccs_arena_release(struct ccs_arena *a);

/* Source positions. */
struct ccs_mark { int32_t src, line, col; };

/* Positioned diagnostic: the first error wins; later ones are ignored. */
struct ccs_diag {
	const char *const *srcs;    /* source names, indexed by mark.src */
	int nsrcs;
	int set;
	char msg[1024];
};
/* Record "src:line:col: message" and return CCS_EINPUT. */
int ccs_diag_at(struct ccs_diag *d, struct ccs_mark m, const char *fmt, ...) CCS_PRINTF(3, 4);
/* Record a message with no position and return CCS_EINPUT. */
int ccs_diag_msg(struct ccs_diag *d, const char *fmt, ...) CCS_PRINTF(2, 3);

/* All of an open stream in a ccs_malloc'd buffer with a NUL after its
 * *len bytes: CCS_OK; CCS_ENOMEM; CCS_EIO when reading fails (errno as
 * the read left it); CCS_EINPUT when it holds max bytes or more (max 0:
 * no limit).  The stream stays open: the caller names the file in its
 * own messages and closes it. */
int ccs_stream_read(FILE *f, size_t max, char **out, size_t *len);

/* Edit distance for "did you mean" suggestions (bounded, small strings). */
int ccs_edit_distance(const char *a, const char *b);
/* The closest of cands[0..n) to s, or NULL if none is close enough. */
const char *ccs_suggest(const char *s, const char *const *cands, int n);

#endif
