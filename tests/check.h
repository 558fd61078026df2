/*
** tests/check.h: the tiny test harness.  CHECK(cond) and CHECK_NEAR(a, b,
** rel) count a pass or print the failing line and count a failure;
** CHECK_DONE() prints "name: N passed, N failed" and returns the exit code.
*/
#ifndef CCS_CHECK_H
#define CCS_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_pass, check_fail;

#define CHECK(cond) do { if (cond) check_pass++; else { check_fail++; \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define CHECK_NEAR(a, b, rel) do { double a_ = (a), b_ = (b); \
	if (fabs(a_ - b_) <= (rel) * fabs(b_) || a_ == b_) check_pass++; else { check_fail++; \
	fprintf(stderr, "%s:%d: check failed: %s = %.9g, expected %s = %.9g (rel %g)\n", \
	        __FILE__, __LINE__, #a, a_, #b, b_, (double)(rel)); } } while (0)

#define CHECK_DONE(name) (printf("%s: %d passed, %d failed\n", (name), check_pass, check_fail), \
	check_fail ? 1 : 0)

#endif
