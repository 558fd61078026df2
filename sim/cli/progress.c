/* sim/cli/progress.c: one progress line on stderr (progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

static int sim_on = -1;
static double sim_after = 2.0;

void ccs_progress_sim_init(void)
{
	sim_on = isatty(2);
	const char *a = getenv("CCSIM_PROGRESS_AFTER");
	char *end;
	double v = a && *a ? strtod(a, &end) : -1;
	if (a && *a && !*end && v >= 0 && v < 1e6)
		sim_after = v;
}

void ccs_progress_sim_start(struct ccs_progress_sim *p, const char *what, double expect_s)
{
	if (sim_on < 0)
		ccs_progress_sim_init();
	snprintf(p->what, sizeof p->what, "%s", what);
	p->expect_s = expect_s > 0 && isfinite(expect_s) ? expect_s : 0;
	p->t0 = ccs_progress_now();
	p->last = 0;
	p->after = sim_after;
	p->reached = 0;
	p->t_run = p->t0;
	p->restarts = 0;
	p->on = sim_on;
	p->shown = 0;
}

void ccs_progress_sim_tick(void *ctx, int64_t t_ps)
{
	struct ccs_progress_sim *p = ctx;
	if (!p->on)
		return;
	double now = ccs_progress_now(), el = now - p->t0, t = (double)t_ps * 1e-12;
	/* a class run that split starts again at 0: the rate from there */
	if (t < p->reached) {
		p->restarts++;
		p->t_run = now;
	}
	p->reached = t;
	if (el < p->after || now - p->last < 0.1)
		return;
	p->last = now;
	p->shown = 1;
	char of[48] = "", split[48] = "", eta[32] = "";
	if (p->expect_s > 0)
		snprintf(of, sizeof of, " of ~%.1f", p->expect_s * 1e6);
	if (p->restarts)
		snprintf(split, sizeof split, " (classes split %d time%s)", p->restarts, p->restarts == 1 ? "" : "s");
	if (p->expect_s > t && t > 0)
		snprintf(eta, sizeof eta, ", ETA %.1f s", (now - p->t_run) * (p->expect_s - t) / t);
	fprintf(stderr, "\r\033[Ksimulating %s: %.1f%s us, %.1f s%s%s", p->what, t * 1e6, of, el, split, eta);
	fflush(stderr);
}

void ccs_progress_sim_end(struct ccs_progress_sim *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = 0;
}
