/* sim/cli/progress.c: one progress line on stderr (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <time.h>

double ccs_progress_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ccs_progress_start(struct ccs_progress *p, const char *what, size_t n, int tty)
{
	p->what = what;
	p->n = n;
	p->t0 = ccs_progress_now();
	p->last = p->t0;
	p->tty = tty;
	p->shown = 0;
}

void ccs_progress_update(struct ccs_progress *p, size_t done, int final)
{
	double now = ccs_progress_now(), el = now - p->t0;
	if (!final && now - p->last < (p->tty ? 0.1 : 30.0))
		return;
	if (final && !p->tty && !p->shown && el < 2.0)
		return;
	p->last = now;
	p->shown = 1;
	int w = 30, k = p->n ? (int)((double)done / (double)p->n * w) : w;
	char b[40];
	for (int i = 0; i < w; i++)
		b[i] = i < k ? '=' : i == k ? '>' : ' ';
	b[w] = 0;
	char rate[32] = "", eta[32] = "";
	if (done && el > 0)
		snprintf(rate, sizeof rate, ", %.3g/s", (double)done / el);
	if (done && done < p->n)
		snprintf(eta, sizeof eta, ", ETA %.1f s", el / (double)done * (double)(p->n - done));
	fprintf(stderr, "%s[%s] %zu/%zu %s%s, %.1f s%s%s", p->tty ? "\r" : "", b, done, p->n, p->what, rate, el, eta,
	        p->tty && !final ? "   " : "\n");
	fflush(stderr);
}
