/*
** calibrate/lines.h: what the log readers share (lines.c): a text walked
** line by line, each line split on blanks into at most 48 tokens with their
** 1-based columns (a line's text truncated at 1 KiB), whole and real
** numbers checked, positions for diagnostics, warnings collected.
*/
#ifndef CCS_LINES_H
#define CCS_LINES_H

#include "../model/ccs.h"

#define CCS_LINES_MAXTOK 48

/* One line split on blanks: tokens (NUL-terminated copies) and their
 * 1-based columns. */
struct ccs_lines_toks {
	int n;
	char buf[1024];
	char *t[CCS_LINES_MAXTOK];
	int col[CCS_LINES_MAXTOK];
};

/* A text walked line by line: each line split into k, its text (NUL-
 * terminated, truncated to the buffer) in raw, its number in line.  With
 * strip set, a launcher's prefix is cut from each line before it is split
 * (columns still count from the line's start; raw keeps the whole line):
 *   srun --label          "  0: "             a rank number and a colon
 *   mpirun --tag-output   "[1,0]<stdout>:"    (or <stderr>)
 *   pdsh, clush           "node01: "          a host name and a colon,
 *                         where what follows starts with '#' or a digit
 *   kubectl --timestamps  "2024-05-01T12:00:00.123Z "  (then any of these)
 *   a logger's stamp      "2024-05-01 12:00:00,123 INFO ", "[2024-05-01 12:00:00] "
 *   a reply's quote       "> ", "> > "        (then any of these)
 *   torchrun --tee        "[default0]:" */
struct ccs_lines {
	const char *text;
	size_t len, pos;
	int line;
	int strip;
	char raw[1024];
	struct ccs_lines_toks k;
};

/* The length of the launcher prefix at the start of s[0..n) (lines.h), 0
 * when there is none. */
size_t ccs_lines_prefix(const char *s, size_t n);
/* The next line into L (0 at the end); L for text, diag d naming src (srcs
 * must outlive it), NULL when out of memory; freed, d cleared. */
int ccs_lines_next(struct ccs_lines *L);
struct ccs_lines *ccs_lines_new(const char *text, size_t len, const char *const *srcs, struct ccs_diag *d);
void ccs_lines_free(struct ccs_lines *L, struct ccs_diag *d);
/* s all digits; s a finite real (0, else -1); a position in the one source;
 * a formatted warning appended to w[n] (CCS_ENOMEM); the warnings freed. */
int ccs_lines_is_uint(const char *s);
int ccs_lines_num(const char *s, double *out);
/* A whole number of decimal digits below 2^63 (what SQLite's integers hold)
 * into *out; -1 when s is not one (too large included). */
int ccs_lines_u63(const char *s, uint64_t *out);
struct ccs_mark ccs_lines_mark(int line, int col);
int ccs_lines_warn(char ***w, size_t *n, const char *fmt, ...) CCS_PRINTF(3, 4);
void ccs_lines_warn_free(char **w, size_t n);

/* A log of ccsim's own records (the benches' ccsim-bench, the profiler
 * plugin's ccsim-profiler): a '# MAGIC 1' line before any record, other
 * '#' lines its header, every other line one record.  ccs_lines_records
 * reads text line by line: a newer version than 1 is an error at its
 * column; a record before the magic line is an error; comment() gets the
 * other '#' lines; record() each record line, returning CCS_OK (kept), 1
 * (skipped: msg at column *col becomes a warning "src:line:col: msg;
 * record skipped" in *warn) or an error.  At the end, end() (magic: whether
 * the magic line came) may warn, and says through *msg why the log has
 * nothing usable (an error at its last line), NULL when it has. */
struct ccs_lines_records {
	const char *magic;
	void (*comment)(void *out, const struct ccs_lines_toks *k);
	int (*record)(void *out, const struct ccs_lines_toks *k, int line, char *msg, size_t msgn, int *col);
	int (*end)(void *out, const char *src, int magic, const char **msg);
};
int ccs_lines_records(const char *src, const char *text, size_t len, const struct ccs_lines_records *rd, void *out,
                      char ***warn, size_t *nwarn, struct ccs_diag *d);

#endif
