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
#include <stdint.h>

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

/*
** One simulator run watched (`ccsim simulate`): past `after` seconds of
** wall time, a line redrawn in place on a terminal with the simulated time
** reached against what the closed form expects, and the time left at the
** rate so far:
**   simulating allreduce 1GiB nvls_tree/Simple: 1204.7 of ~2629.5 us, 3.1 s, ETA 3.7 s
** (a class run that splits starts again from 0: the line counts it, and
** the ETA is the rate since).  The
** line is erased when the run ends, so the table is what stays.  On when
** stderr is a terminal; CCSIM_PROGRESS_AFTER=S sets `after` (default 2).
*/
struct ccs_progress_sim {
	char what[128];
	double expect_s;            /* the closed form's time; 0: unknown (no ETA) */
	double t0, last, after, reached;
	double t_run;               /* when the current attempt began (a class run splits, starts again) */
	int on, shown, restarts;
};

/* Whether this command watches its runs (stderr a terminal), and after how
 * long; call once. */
void ccs_progress_sim_init(void);
/* Start watching a run of what, expect_s long in the closed form. */
void ccs_progress_sim_start(struct ccs_progress_sim *p, const char *what, double expect_s);
/* The sim hooks' tick (sim/sim.h): ctx a struct ccs_progress_sim, t ps. */
void ccs_progress_sim_tick(void *ctx, int64_t t_ps);
/* The run ended: erase the line if it was drawn. */
void ccs_progress_sim_end(struct ccs_progress_sim *p);

#endif
