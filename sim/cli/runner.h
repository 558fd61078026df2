/*
** sim/cli/runner.h: run many independent tasks, in worker processes, with a
** progress bar; stop cleanly on SIGINT or SIGTERM.
**
** compute(task) runs in a worker (a fork of the caller, so it sees what the
** caller loaded) and fills a result of result_size bytes; collect(task,
** result) runs in the calling process, in the order results arrive, and is
** where results are stored.  With jobs = 1 everything runs in the caller.
** Tasks go to workers one at a time over a pipe each; results come back on
** one pipe (each message at most PIPE_BUF bytes, so writes do not mix).
** A signal stops the handing out of tasks: the tasks in flight finish and
** are collected (a second signal kills the workers), so what was computed
** is kept.  The bar (stderr, when asked: the caller checks for a terminal)
** shows done / total, elapsed time and an ETA from the mean rate.
*/
#ifndef CCS_RUNNER_H
#define CCS_RUNNER_H

#include <stddef.h>

struct ccs_runner {
	int jobs;                   /* worker processes; 1 = none */
	size_t result_size;         /* <= CCS_RUNNER_MAX_RESULT */
	int (*compute)(void *ctx, size_t task, void *result);
	/* rc: compute's status; a non-zero return stops the run */
	int (*collect)(void *ctx, size_t task, int rc, const void *result);
	void *ctx;
	int progress;               /* draw the bar on stderr */
	long stop_after;            /* test hook: act as if SIGINT came after this many results (0: never) */
};

#define CCS_RUNNER_MAX_RESULT 4000

enum { CCS_RUN_DONE = 0, CCS_RUN_INTERRUPTED = 1, CCS_RUN_STOPPED = 2, CCS_RUN_FAILED = -1 };

/* Run tasks[0..n).  *done gets the number collected.  CCS_RUN_DONE,
 * CCS_RUN_INTERRUPTED (a signal), CCS_RUN_STOPPED (collect said stop), or
 * CCS_RUN_FAILED (fork, pipe or a worker that died: message printed). */
int ccs_runner_run(const struct ccs_runner *r, const size_t *tasks, size_t n, size_t *done);

#endif
