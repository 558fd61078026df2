/*
** sim/cli/junit.h: a JUnit XML report, as CI systems read it (calibrate
** check --junit, diagnose --junit).
**
** One <testsuites> holding one <testsuite> of the cases given; a case
** passes, or carries one <failure> or <error> with a type and message.
** Text is escaped for XML attributes.  The file is written whole or not
** at all (ccs_args_write_atomic).
*/
#ifndef CCS_JUNIT_H
#define CCS_JUNIT_H

#include <stddef.h>
#include <stdio.h>

struct ccs_junit_case {
	const char *cls, *name;
	const char *outcome;        /* NULL: passed; "failure" or "error" */
	const char *type, *msg;     /* the outcome's type and message */
};

/* suite: the suite's name; timestamp, host: its attributes (NULL: left
 * out); me names the command in messages.  0, or -1 after a message. */
int ccs_junit_write(const char *path, const char *me, const char *suite, const char *timestamp, const char *host,
                    const struct ccs_junit_case *c, size_t n);

/* s escaped for an XML attribute or text. */
void ccs_junit_text(FILE *f, const char *s);

#endif
