/*
** sim/cli/moe_io.c: the text inputs of expert-parallel runs (moe_io.h).
**
** Routing trace: one line per token, its expert ids separated by commas or
** blanks; '#' starts a comment; blank lines are skipped.  Tokens fill rank
** 0's T tokens first, then rank 1's, and so on: the file must hold exactly
** n x T tokens of exactly k distinct ids in [0, E).
** Byte matrix (AllToAllv): n lines of n comma-separated byte counts (row =
** sender), each a whole number or a size with a unit (4096, 16KiB, 1.5MB);
** '#' comments and blank lines are skipped.
** Every error names file:line:column.
*/
#include "moe_io.h"

#include "../../model/units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct ccs_diag *d, const char *path, int line, int col, const char *fmt, ...) CCS_PRINTF(5, 6);
static int fail(struct ccs_diag *d, const char *path, int line, int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ccs_diag_msg(d, "%s:%d:%d: %s", path, line, col, msg);
}

/* Traces and matrices are text of at most this many bytes (docs/moe.md). */
#define MAX_FILE (256u << 20)

/* Read the whole file into a NUL-terminated buffer. */
static int slurp(const char *path, char **out, struct ccs_diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return ccs_diag_msg(d, "%s: cannot open: %s", path, strerror(errno));
	size_t n;
	int rc = ccs_stream_read(f, MAX_FILE, out, &n);
	fclose(f);
	if (rc == CCS_EINPUT)
		return ccs_diag_msg(d, "%s: larger than %u MiB; not a trace or matrix", path, MAX_FILE >> 20);
	if (rc)
		return rc == CCS_EIO ? ccs_diag_msg(d, "%s: read error", path) : rc;
	if (memchr(*out, 0, n)) {
		ccs_free(*out);
		*out = NULL;
		return ccs_diag_msg(d, "%s: not a text file (NUL byte)", path);
	}
	return CCS_OK;
}

/* The next line holding more than blanks and a comment: its first
 * non-blank character, with the line's start in *start (for columns); NULL
 * at the end.  *line counts every line read; each is cut at its end and
 * at '#'. */
static char *next_line(char **cur, int *line, char **start)
{
	while (**cur) {
		char *p = *cur;
		(*line)++;
		char *eol = strchr(p, '\n');
		*cur = eol ? eol + 1 : p + strlen(p);
		if (eol)
			*eol = 0;
		char *hash = strchr(p, '#');
		if (hash)
			*hash = 0;
		char *q = p;
		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q) {
			*start = p;
			return q;
		}
	}
	return NULL;
}

int ccs_moe_trace_load(const char *path, int n, int tokens, int topk, int experts, int32_t **out,
                       struct ccs_diag *d)
{
	char *buf = NULL;
	int rc = slurp(path, &buf, d);
	if (rc)
		return rc;
	size_t want = (size_t)n * (size_t)tokens;
	int32_t *ids = ccs_malloc((want * (size_t)topk + 1) * sizeof *ids);
	if (!ids) {
		ccs_free(buf);
		return CCS_ENOMEM;
	}
	size_t tok = 0;
	int line = 0;
	char *cur = buf, *p = buf;
	rc = CCS_OK;
	char *q;
	while (!rc && (q = next_line(&cur, &line, &p)) != NULL) {
		if (tok == want) {
			rc = fail(d, path, line, (int)(q - p) + 1, "more tokens than %d ranks x %d tokens", n, tokens);
			break;
		}
		int32_t *row = ids + tok * (size_t)topk;
		int got = 0;
		while (*q && !rc) {
			while (*q == ' ' || *q == '\t' || *q == ',' || *q == '\r')
				q++;
			if (!*q)
				break;
			int col = (int)(q - p) + 1;
			char *end;
			errno = 0;
			long v = strtol(q, &end, 10);
			if (end == q || (*end && *end != ' ' && *end != '\t' && *end != ',' && *end != '\r')) {
				char word[48];
				size_t wl = strcspn(q, " \t,\r");
				snprintf(word, sizeof word, "%.*s", (int)(wl < 40 ? wl : 40), q);
				rc = fail(d, path, line, col, "expert id '%s' is not a whole number", word);
				break;
			}
			if (errno || v < 0 || v >= experts) {
				rc = fail(d, path, line, col, "expert id %ld is out of range [0, %d)", v, experts);
				break;
			}
			if (got == topk) {
				rc = fail(d, path, line, col, "more than top-k = %d expert ids on a token", topk);
				break;
			}
			for (int j = 0; j < got; j++)
				if (row[j] == v) {
					rc = fail(d, path, line, col, "expert id %ld appears twice on one token", v);
					break;
				}
			row[got++] = (int32_t)v;
			q = end;
		}
		if (!rc && got < topk)
			rc = fail(d, path, line, 1, "a token needs top-k = %d expert ids, this one has %d", topk, got);
		tok++;
	}
	if (!rc && tok < want)
		rc = fail(d, path, line + 1, 1, "the trace has %zu tokens; %zu are needed (ranks x tokens)", tok, want);
	ccs_free(buf);
	if (rc) {
		ccs_free(ids);
		return rc;
	}
	*out = ids;
	return CCS_OK;
}

int ccs_moe_matrix_load(const char *path, int n, double **out, struct ccs_diag *d)
{
	char *buf = NULL;
	int rc = slurp(path, &buf, d);
	if (rc)
		return rc;
	double *m = ccs_calloc((size_t)n * (size_t)n + 1, sizeof *m);
	if (!m) {
		ccs_free(buf);
		return CCS_ENOMEM;
	}
	int line = 0, row = 0;
	char *cur = buf, *p = buf;
	rc = CCS_OK;
	char *q;
	while (!rc && (q = next_line(&cur, &line, &p)) != NULL) {
		if (row == n) {
			rc = fail(d, path, line, (int)(q - p) + 1, "more than %d rows (one per rank)", n);
			break;
		}
		int colno = 0;
		for (;;) {
			while (*q == ' ' || *q == '\t')
				q++;
			int col = (int)(q - p) + 1;
			size_t len = strcspn(q, ",");
			char cell[64];
			size_t cl = len;
			while (cl && (q[cl - 1] == ' ' || q[cl - 1] == '\t' || q[cl - 1] == '\r'))
				cl--;
			if (cl == 0 || cl >= sizeof cell) {
				rc = fail(d, path, line, col, "an empty or overlong cell");
				break;
			}
			memcpy(cell, q, cl);
			cell[cl] = 0;
			if (colno == n) {
				rc = fail(d, path, line, col, "row has more than %d columns (one per rank)", n);
				break;
			}
			double v;
			char err[160];
			char *end;
			v = strtod(cell, &end);
			if (*end) {
				uint64_t b;
				if (cell[0] == '-' || ccs_parse_size(cell, &b, err, sizeof err)) {
					rc = fail(d, path, line, col, "'%s' is not a byte count (a whole number or a size such as 16KiB)", cell);
					break;
				}
				v = (double)b;
			}
			if (!(v >= 0) || v > 1e18 || v != (double)(uint64_t)v) {
				rc = fail(d, path, line, col, "'%s' must be a whole number of bytes, not negative", cell);
				break;
			}
			m[(size_t)row * (size_t)n + (size_t)colno++] = v;
			q += len;
			if (*q != ',')
				break;
			q++;
		}
		if (!rc && colno < n)
			rc = fail(d, path, line, 1, "row has %d columns; %d are needed (one per rank)", colno, n);
		row++;
	}
	if (!rc && row < n)
		rc = fail(d, path, line + 1, 1, "the matrix has %d rows; %d are needed (one per rank)", row, n);
	ccs_free(buf);
	if (rc) {
		ccs_free(m);
		return rc;
	}
	*out = m;
	return CCS_OK;
}
