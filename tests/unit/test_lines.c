/*
** tests/unit/test_lines.c: calibrate/lines.h, by hand: tokens and their
** 1-based columns, line numbers across blank and CRLF lines, each launcher
** prefix stripped with columns still counted from the line's start, the
** number checks (whole, real, below 2^63), and ccs_lines_records on a log of
** records: kept, skipped with a warning at its column, a newer version
** refused at its column, a record before the magic line refused, and an
** empty log said by its end().
*/
#include "../check.h"

#include "../../calibrate/lines.h"

#include <stdio.h>
#include <string.h>

static void test_tokens(void)
{
	const char *text = "alpha  beta\tgamma\n\n  x 12\r\nlast";
	struct ccs_lines L;
	memset(&L, 0, sizeof L);
	L.text = text;
	L.len = strlen(text);
	CHECK(ccs_lines_next(&L) && L.line == 1 && L.k.n == 3);
	CHECK(!strcmp(L.k.t[0], "alpha") && L.k.col[0] == 1);
	CHECK(!strcmp(L.k.t[1], "beta") && L.k.col[1] == 8);
	CHECK(!strcmp(L.k.t[2], "gamma") && L.k.col[2] == 13);
	CHECK(ccs_lines_next(&L) && L.line == 2 && L.k.n == 0);
	CHECK(ccs_lines_next(&L) && L.line == 3 && L.k.n == 2 && L.k.col[0] == 3 && !strcmp(L.k.t[1], "12"));
	CHECK(ccs_lines_next(&L) && L.line == 4 && L.k.n == 1 && !strcmp(L.k.t[0], "last"));
	CHECK(!ccs_lines_next(&L));
}

/* Each prefix a launcher adds, cut; the table's first token keeps its
 * column in the whole line. */
static void test_prefixes(void)
{
	static const struct { const char *line; const char *first; int col; } c[] = {
		{ "  0: #  size count", "#", 6 },
		{ "[1,0]<stdout>:     8192   2048", "8192", 20 },
		{ "node01: # nThread 1", "#", 9 },
		{ "2024-05-01T12:00:00.123Z 1024 256 float", "1024", 26 },
		{ "> > 1024 256 float", "1024", 5 },
		{ "[default0]:1024 256 float", "1024", 12 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct ccs_lines L;
		memset(&L, 0, sizeof L);
		L.text = c[i].line;
		L.len = strlen(c[i].line);
		L.strip = 1;
		int ok = ccs_lines_next(&L) && L.k.n > 0 && !strcmp(L.k.t[0], c[i].first) && L.k.col[0] == c[i].col;
		if (!ok)
			fprintf(stderr, "prefix of '%s': first '%s' at %d\n", c[i].line, L.k.n ? L.k.t[0] : "", L.k.n ? L.k.col[0] : 0);
		CHECK(ok);
		CHECK(!strcmp(L.raw, c[i].line));
	}
	CHECK(ccs_lines_prefix("plain text", 10) == 0);
}

static void test_numbers(void)
{
	double x = 0;
	uint64_t u = 0;
	CHECK(ccs_lines_is_uint("0123") && !ccs_lines_is_uint("") && !ccs_lines_is_uint("12a"));
	CHECK(ccs_lines_num("1.5e3", &x) == 0 && x == 1500);
	CHECK(ccs_lines_num("inf", &x) == -1 && ccs_lines_num("nan", &x) == -1 && ccs_lines_num("3x", &x) == -1);
	CHECK(ccs_lines_u63("9223372036854775807", &u) == 0 && u == 9223372036854775807ull);
	CHECK(ccs_lines_u63("9223372036854775808", &u) == -1);
	CHECK(ccs_lines_u63("-1", &u) == -1);
}

/* A log of "rec NAME VALUE" records. */
struct recs {
	int n, comments;
	double sum;
};

static void r_comment(void *o, const struct ccs_lines_toks *k)
{
	(void)k;
	((struct recs *)o)->comments++;
}

static int r_line(void *o, const struct ccs_lines_toks *k, int line, char *msg, size_t msgn, int *col)
{
	(void)line;
	struct recs *r = o;
	double v;
	if (k->n != 3 || strcmp(k->t[0], "rec")) {
		snprintf(msg, msgn, "expected 'rec NAME VALUE'");
		return 1;
	}
	if (ccs_lines_num(k->t[2], &v)) {
		*col = k->col[2];
		snprintf(msg, msgn, "'%s' is not a number", k->t[2]);
		return 1;
	}
	r->n++;
	r->sum += v;
	return CCS_OK;
}

static int r_end(void *o, const char *src, int magic, const char **msg)
{
	(void)src;
	*msg = ((struct recs *)o)->n ? NULL : magic ? "no record" : "not a test log";
	return CCS_OK;
}

static int read_recs(const char *text, struct recs *r, char ***w, size_t *nw, struct ccs_diag *d)
{
	static const struct ccs_lines_records rd = { "test-log", r_comment, r_line, r_end };
	memset(r, 0, sizeof *r);
	memset(d, 0, sizeof *d);
	*w = NULL;
	*nw = 0;
	return ccs_lines_records("t.log", text, strlen(text), &rd, r, w, nw, d);
}

static void test_records(void)
{
	struct recs r;
	char **w;
	size_t nw;
	struct ccs_diag d;
	CHECK(read_recs("# test-log 1\n# host: a\nrec x 1.5\nrec y oops\nrec z 2\n", &r, &w, &nw, &d) == CCS_OK);
	CHECK(r.n == 2 && r.sum == 3.5 && r.comments == 1);
	CHECK(nw == 1 && !strcmp(w[0], "t.log:4:7: 'oops' is not a number; record skipped"));
	ccs_lines_warn_free(w, nw);
	/* a newer version, at its column */
	CHECK(read_recs("# test-log 2\nrec x 1\n", &r, &w, &nw, &d) == CCS_EINPUT);
	CHECK(!strcmp(d.msg, "t.log:1:12: test-log log version '2' is newer than this ccsim reads (1)"));
	ccs_lines_warn_free(w, nw);
	/* a record before the magic line */
	CHECK(read_recs("rec x 1\n# test-log 1\n", &r, &w, &nw, &d) == CCS_EINPUT);
	CHECK(!strcmp(d.msg, "t.log:1:1: not a test-log log: expected '# test-log 1' before any record"));
	ccs_lines_warn_free(w, nw);
	/* nothing usable: end() says why, at the last line */
	CHECK(read_recs("# test-log 1\nrec broken\n", &r, &w, &nw, &d) == CCS_EINPUT);
	CHECK(!strcmp(d.msg, "t.log:2:1: no record"));
	ccs_lines_warn_free(w, nw);
	CHECK(read_recs("", &r, &w, &nw, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "not a test log") != NULL);
	ccs_lines_warn_free(w, nw);
}

int main(void)
{
	test_tokens();
	test_prefixes();
	test_numbers();
	test_records();
	return CHECK_DONE("test_lines");
}
