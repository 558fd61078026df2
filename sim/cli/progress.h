/*
** sim/cli/progress.h: one progress line on stderr for long commands (the
** run's workers, the MPI coordinator, merge): done / total, the rate, the
** elapsed time and the time left at that mean rate.
**   [=========>          ] 312/1000 points, 41.6/s, 7.5 s, ETA 16.5 s
** On a terminal the line is redrawn in place (at most 10 times a second);
** elsewhere (a batch job's log) it is printed as a new line at most every
** 30 s, and once at the end when the work took 2 s or more, so a log holds
** a few lines, not thousands, and a quick command's output stays the same
** from run to run.
*/
#ifndef CCS_PROGRESS_H
#define CCS_PROGRESS_H

#include <stddef.h>

struct ccs_progress {
	const char *what;           /* "points", "shards" */
	size_t n;
	double t0, last;            /* monotonic seconds */
	int tty, shown;
};

/* Start counting n items of what; tty: redraw in place (else new lines). */
void ccs_progress_start(struct ccs_progress *p, const char *what, size_t n, int tty);
/* done of n items now; final: the last call (the line ends, always shown). */
void ccs_progress_update(struct ccs_progress *p, size_t done, int final);
/* Monotonic seconds. */
double ccs_progress_now(void);

#endif
