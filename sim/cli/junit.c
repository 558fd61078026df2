/* sim/cli/junit.c: a JUnit XML report (junit.h). */
#include "junit.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

void ccs_junit_text(FILE *f, const char *s)
{
	static const struct { char c; const char *e; } ents[] = {
		{ '&', "&amp;" }, { '<', "&lt;" }, { '>', "&gt;" }, { '"', "&quot;" },
	};
	for (; *s; s++) {
		size_t i = 0;
		while (i < sizeof ents / sizeof ents[0] && ents[i].c != *s)
			i++;
		if (i < sizeof ents / sizeof ents[0])
			fputs(ents[i].e, f);
		else
			fputc(*s, f);
	}
}

static void attr(FILE *f, const char *k, const char *v)
{
	if (!v)
		return;
	fprintf(f, " %s=\"", k);
	ccs_junit_text(f, v);
	fputc('"', f);
}

struct report {
	const char *suite, *timestamp, *host;
	const struct ccs_junit_case *c;
	size_t n;
};

static int fill(FILE *f, void *ctx)
{
	const struct report *r = ctx;
	const struct ccs_junit_case *c = r->c;
	size_t n = r->n, fails = 0, errs = 0;
	for (size_t i = 0; i < n; i++) {
		fails += c[i].outcome && !strcmp(c[i].outcome, "failure");
		errs += c[i].outcome && !strcmp(c[i].outcome, "error");
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
	        n, fails, errs);
	fprintf(f, "  <testsuite");
	attr(f, "name", r->suite);
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\"", n, fails, errs);
	attr(f, "timestamp", r->timestamp);
	attr(f, "hostname", r->host);
	fprintf(f, ">\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "    <testcase");
		attr(f, "classname", c[i].cls);
		attr(f, "name", c[i].name);
		fprintf(f, " time=\"0\"");
		if (!c[i].outcome) {
			fprintf(f, "/>\n");
			continue;
		}
		fprintf(f, ">\n      <%s", c[i].outcome);
		attr(f, "type", c[i].type);
		attr(f, "message", c[i].msg);
		fprintf(f, "/>\n    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	return 0;
}

int ccs_junit_write(const char *path, const char *me, const char *suite, const char *timestamp, const char *host,
                    const struct ccs_junit_case *c, size_t n)
{
	struct report r = { suite, timestamp, host, c, n };
	return ccs_args_write_atomic(me, path, fill, &r);
}
