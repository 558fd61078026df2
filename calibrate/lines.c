/* calibrate/lines.c: log text walked line by line, tokens with columns,
** numbers, positions and warnings (lines.h). */
#include "lines.h"
#include "../model/escape.h"

#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void split(const char *s, size_t len, size_t off, struct ccs_lines_toks *k)
{
	k->n = 0;
	size_t o = 0;
	for (size_t i = 0; i < len && k->n < CCS_LINES_MAXTOK;) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i >= len)
			break;
		size_t j = i;
		while (j < len && !isspace((unsigned char)s[j]))
			j++;
		if (o + (j - i) + 1 > sizeof k->buf)
			break;
		memcpy(k->buf + o, s + i, j - i);
		k->buf[o + (j - i)] = 0;
		k->t[k->n] = k->buf + o;
		k->col[k->n] = (int)(i + off) + 1;
		k->n++;
		o += j - i + 1;
		i = j;
	}
}


int ccs_lines_next(struct ccs_lines *L)
{
	if (L->pos >= L->len)
		return 0;
	const char *s = L->text + L->pos;
	const char *nl = memchr(s, '\n', L->len - L->pos);
	size_t ll = nl ? (size_t)(nl - s) : L->len - L->pos;
	L->pos += ll + 1;
	L->line++;
	size_t c = ll < sizeof L->raw - 1 ? ll : sizeof L->raw - 1;
	memcpy(L->raw, s, c);
	L->raw[c] = 0;
	size_t cut = L->strip ? ccs_lines_prefix(s, ll) : 0;
	split(s + cut, ll - cut, cut, &L->k);
	return 1;
}

static int host_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* The length of a time stamp at the start of s[0..n), with the blanks
 * after it, 0 when there is none: a date (YYYY-MM-DD), 'T' or a blank, a
 * time (HH:MM:SS, fractions after '.' or ',', a zone: Z or +hh:mm), in
 * square brackets or not. */
static size_t stamp(const char *s, size_t n)
{
	size_t i = n && s[0] == '[';
	if (i + 19 > n || !isdigit((unsigned char)s[i]) || s[i + 4] != '-' || s[i + 7] != '-' ||
	    (s[i + 10] != 'T' && s[i + 10] != ' ') || s[i + 13] != ':' || s[i + 16] != ':')
		return 0;
	size_t j = i + 11;
	while (j < n && (isdigit((unsigned char)s[j]) || s[j] == ':' || s[j] == '.' || s[j] == ',' || s[j] == 'Z' ||
	                 s[j] == '+' || s[j] == '-'))
		j++;
	if (s[0] == '[') {
		if (j >= n || s[j] != ']')
			return 0;
		j++;
	}
	if (j >= n || (s[j] != ' ' && s[j] != '\t'))
		return 0;
	while (j < n && (s[j] == ' ' || s[j] == '\t'))
		j++;
	return j;
}

size_t ccs_lines_prefix(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t b = i;
	/* a quote in a reply or a Markdown page: "> ", "> > " */
	if (i < n && s[i] == '>') {
		size_t j = i;
		while (j < n && (s[j] == '>' || s[j] == ' ' || s[j] == '\t'))
			j++;
		return j + ccs_lines_prefix(s + j, n - j);
	}
	/* a time stamp, then a blank: kubectl logs --timestamps
	 * (2024-05-01T12:00:00.123456789Z), a logger's "2024-05-01 12:00:00,123"
	 * or "[2024-05-01 12:00:00]", with its level word after it (INFO) */
	size_t ts = stamp(s + i, n - i);
	if (ts) {
		size_t j = i + ts;
		static const char *const levels[] = { "INFO ", "DEBUG ", "WARN ", "WARNING ", "ERROR " };
		for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
			if (j + strlen(levels[l]) <= n && !memcmp(s + j, levels[l], strlen(levels[l])))
				j += strlen(levels[l]);
		return j + ccs_lines_prefix(s + j, n - j);
	}
	/* torchrun --tee: [default0]: */
	if (i < n && s[i] == '[' && i + 1 < n && isalpha((unsigned char)s[i + 1])) {
		size_t j = i + 1;
		while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		if (j + 1 < n && s[j] == ']' && s[j + 1] == ':' && isdigit((unsigned char)s[j - 1]))
			return j + 2;
	}
	/* mpirun --tag-output: [job,rank]<stdout>: */
	if (i < n && s[i] == '[') {
		size_t j = i + 1;
		while (j < n && (isdigit((unsigned char)s[j]) || s[j] == ','))
			j++;
		static const char *const tags[] = { "]<stdout>:", "]<stderr>:" };
		for (int t = 0; t < 2; t++) {
			size_t tl = strlen(tags[t]);
			if (j > i + 1 && j + tl <= n && !memcmp(s + j, tags[t], tl))
				return j + tl;
		}
		return 0;
	}
	/* srun --label: digits, a colon, a blank (or the end) */
	size_t j = i;
	while (j < n && isdigit((unsigned char)s[j]))
		j++;
	if (j > b && j < n && s[j] == ':' && (j + 1 == n || s[j + 1] == ' ' || s[j + 1] == '\t'))
		return j + 1;
	/* pdsh/clush: host, a colon, blanks, then '#' or a digit */
	j = b;
	while (j < n && host_char(s[j]))
		j++;
	if (j == b || j >= n || s[j] != ':' || !isalpha((unsigned char)s[b]))
		return 0;
	size_t k = j + 1;
	if (k < n && s[k] != ' ' && s[k] != '\t')
		return 0;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return k < n && (s[k] == '#' || isdigit((unsigned char)s[k])) ? j + 1 : 0;
}

/* Lines of text, diagnostics in d naming src (srcs, which must outlive the
 * parse); NULL when out of memory. */
struct ccs_lines *ccs_lines_new(const char *text, size_t len, const char *const *srcs, struct ccs_diag *d)
{
	struct ccs_lines *L = ccs_calloc(1, sizeof *L);
	if (L) {
		L->text = text;
		L->len = len;
		d->srcs = srcs;
		d->nsrcs = 1;
	}
	return L;
}

void ccs_lines_free(struct ccs_lines *L, struct ccs_diag *d)
{
	ccs_free(L);
	d->srcs = NULL;
	d->nsrcs = 0;
}

int ccs_lines_is_uint(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int ccs_lines_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(x))
		return -1;
	*out = x;
	return 0;
}

int ccs_lines_u63(const char *s, uint64_t *out)
{
	if (!ccs_lines_is_uint(s))
		return -1;
	uint64_t x = 0;
	for (; *s; s++) {
		if (x > (UINT64_C(1) << 63) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x >> 63)
			return -1;
	}
	*out = x;
	return 0;
}

struct ccs_mark ccs_lines_mark(int line, int col)
{
	struct ccs_mark m = { 0, line, col };
	return m;
}

int ccs_lines_warn(char ***w, size_t *n, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ccs_escape_utf8_fix(buf);   /* a quote cut to fit keeps whole characters */
	char **nw = ccs_realloc(*w, (*n + 1) * sizeof **w);
	if (!nw)
		return CCS_ENOMEM;
	*w = nw;
	size_t l = strlen(buf) + 1;
	if (!(nw[*n] = ccs_malloc(l)))
		return CCS_ENOMEM;
	memcpy(nw[*n], buf, l);
	(*n)++;
	return CCS_OK;
}

void ccs_lines_warn_free(char **w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ccs_free(w[i]);
	ccs_free(w);
}

int ccs_lines_records(const char *src, const char *text, size_t len, const struct ccs_lines_records *rd, void *out,
                      char ***warn, size_t *nwarn, struct ccs_diag *d)
{
	const char *srcs[1] = { src };
	int rc = CCS_OK, seen = 0, *magic = &seen;
	struct ccs_lines *L = ccs_lines_new(text, len, srcs, d);
	if (!L)
		return CCS_ENOMEM;
	const struct ccs_lines_toks *k = &L->k;
	while (!rc && ccs_lines_next(L)) {
		int line = L->line;
		if (!k->n)
			continue;
		if (k->t[0][0] == '#') {
			if (k->n >= 3 && !strcmp(k->t[1], rd->magic)) {
				if (strcmp(k->t[2], "1"))
					rc = ccs_diag_at(d, ccs_lines_mark(line, k->col[2]),
					                 "%s log version '%s' is newer than this ccsim reads (1)", rd->magic, k->t[2]);
				*magic = 1;
			} else if (rd->comment)
				rd->comment(out, k);
			continue;
		}
		if (!*magic) {
			rc = ccs_diag_at(d, ccs_lines_mark(line, 1), "not a %s log: expected '# %s 1' before any record",
			                 rd->magic, rd->magic);
			break;
		}
		char msg[256];
		int col = 1;
		int r = rd->record(out, k, line, msg, sizeof msg, &col);
		if (r == 1)
			rc = ccs_lines_warn(warn, nwarn, "%s:%d:%d: %s; record skipped", src, line, col, msg);
		else
			rc = r;
	}
	const char *msg = NULL;
	if (!rc)
		rc = rd->end(out, src, seen, &msg);
	if (!rc && msg)
		rc = ccs_diag_at(d, ccs_lines_mark(L->line > 0 ? L->line : 1, 1), "%s", msg);
	ccs_lines_free(L, d);
	return rc;
}
