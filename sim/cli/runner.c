/* sim/cli/runner.c: tasks in worker processes with a progress bar (runner.h). */
#define _DEFAULT_SOURCE
#include "runner.h"
#include "progress.h"

#include "../../model/ccs.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;

static void on_sig(int sig)
{
	(void)sig;
	stop_sig++;
}

struct msg {
	uint32_t worker;
	int32_t rc;
	uint64_t task;
	unsigned char result[CCS_RUNNER_MAX_RESULT];
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, c + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got ? -1 : 1;    /* 1: end of file before anything */
		got += (size_t)r;
	}
	return 0;
}

static int run_here(const struct ccs_runner *r, const size_t *tasks, size_t n, size_t *done, struct ccs_progress *pg)
{
	unsigned char *res = ccs_malloc(r->result_size ? r->result_size : 1);
	if (!res)
		return CCS_RUN_FAILED;
	int out = CCS_RUN_DONE;
	for (size_t i = 0; i < n; i++) {
		if (stop_sig || (r->stop_after && (long)*done >= r->stop_after)) {
			out = CCS_RUN_INTERRUPTED;
			break;
		}
		memset(res, 0, r->result_size);
		int rc = r->compute(r->ctx, tasks[i], res);
		(*done)++;
		if (r->collect(r->ctx, tasks[i], rc, res)) {
			out = CCS_RUN_STOPPED;
			break;
		}
		if (r->progress)
			ccs_progress_update(pg, *done, 0);
	}
	ccs_free(res);
	return out;
}

/* A worker: reads task numbers from tfd, computes each, writes the result
 * to rfd; never returns.  The terminal's ^C goes to the parent, which lets
 * the task in hand finish. */
static _Noreturn void worker(const struct ccs_runner *r, int tfd, int rfd, const int *task_fd, int me_, struct msg *m,
                             size_t msz)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	for (int k = 0; k < me_; k++)
		close(task_fd[k]);
	for (;;) {
		uint64_t t;
		int e = read_all(tfd, &t, sizeof t);
		if (e)
			_exit(e > 0 ? 0 : 3);
		memset(m, 0, msz);
		m->worker = (uint32_t)me_;
		m->task = t;
		m->rc = r->compute(r->ctx, (size_t)t, m->result);
		if (write_all(rfd, m, msz))
			_exit(4);
	}
}

/* Results as they come, one more task per result, until none is in flight;
 * on a stop, the remaining tasks are not handed out (a second signal kills
 * the workers). */
static int collect_results(const struct ccs_runner *r, const size_t *tasks, size_t n, size_t *done, struct ccs_progress *pg,
                           int *task_fd, const pid_t *pid, int started, int rfd, struct msg *m, size_t msz,
                           size_t next, size_t inflight, int out)
{
	int killed = 0;
	while (inflight) {
		int e = read_all(rfd, m, msz);
		if (e) {
			if (!(stop_sig > 1 && killed))
				fprintf(stderr, "\nccsim: a worker died with %zu task%s in hand\n", inflight, inflight == 1 ? "" : "s");
			out = stop_sig ? CCS_RUN_INTERRUPTED : CCS_RUN_FAILED;
			break;
		}
		inflight--;
		(*done)++;
		if (out == CCS_RUN_DONE && r->collect(r->ctx, (size_t)m->task, m->rc, m->result))
			out = CCS_RUN_STOPPED;
		if (r->progress)
			ccs_progress_update(pg, *done, 0);
		if (out == CCS_RUN_DONE && (stop_sig || (r->stop_after && (long)*done >= r->stop_after)))
			out = CCS_RUN_INTERRUPTED;
		if (out == CCS_RUN_DONE && next < n) {
			uint64_t t = tasks[next++];
			if (write_all(task_fd[m->worker], &t, sizeof t))
				out = CCS_RUN_FAILED;
			else
				inflight++;
		}
		if (out != CCS_RUN_DONE) {
			/* no more tasks; the ones in flight still come back */
			for (int w = 0; w < started; w++)
				if (task_fd[w] >= 0) {
					close(task_fd[w]);
					task_fd[w] = -1;
				}
			if (stop_sig > 1 && !killed) {
				for (int w = 0; w < started; w++)
					kill(pid[w], SIGKILL);
				killed = 1;
			}
		}
	}
	return out;
}

static int run_workers(const struct ccs_runner *r, const size_t *tasks, size_t n, size_t *done, struct ccs_progress *pg)
{
	int jobs = r->jobs;
	if ((size_t)jobs > n)
		jobs = (int)n;
	size_t msz = offsetof(struct msg, result) + r->result_size;
	int resp[2];
	if (pipe(resp)) {
		fprintf(stderr, "ccsim: cannot make a pipe: %s\n", strerror(errno));
		return CCS_RUN_FAILED;
	}
	int *task_fd = ccs_calloc((size_t)jobs, sizeof *task_fd);
	pid_t *pid = ccs_calloc((size_t)jobs, sizeof *pid);
	struct msg *m = ccs_malloc(sizeof *m);
	if (!task_fd || !pid || !m) {
		ccs_free(task_fd);
		ccs_free(pid);
		ccs_free(m);
		close(resp[0]);
		close(resp[1]);
		return CCS_RUN_FAILED;
	}
	int started = 0, out = CCS_RUN_DONE;
	for (; started < jobs; started++) {
		int tp[2];
		if (pipe(tp)) {
			out = CCS_RUN_FAILED;
			break;
		}
		fflush(stdout);
		fflush(stderr);
		pid_t p = fork();
		if (p < 0) {
			close(tp[0]);
			close(tp[1]);
			out = CCS_RUN_FAILED;
			break;
		}
		if (p == 0) {
			close(resp[0]);
			close(tp[1]);
			worker(r, tp[0], resp[1], task_fd, started, m, msz);
		}
		close(tp[0]);
		task_fd[started] = tp[1];
		pid[started] = p;
	}
	close(resp[1]);
	if (out == CCS_RUN_FAILED)
		fprintf(stderr, "ccsim: cannot start worker %d: %s\n", started, strerror(errno));
	/* hand out the first tasks, then one more per result */
	size_t next = 0, inflight = 0;
	for (int w = 0; w < started && next < n && out == CCS_RUN_DONE; w++) {
		uint64_t t = tasks[next++];
		if (write_all(task_fd[w], &t, sizeof t)) {
			out = CCS_RUN_FAILED;
			break;
		}
		inflight++;
	}
	out = collect_results(r, tasks, n, done, pg, task_fd, pid, started, resp[0], m, msz, next, inflight, out);
	for (int w = 0; w < started; w++)
		if (task_fd[w] >= 0)
			close(task_fd[w]);
	close(resp[0]);
	for (int w = 0; w < started; w++) {
		int st;
		while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
			;
	}
	ccs_free(task_fd);
	ccs_free(pid);
	ccs_free(m);
	return out;
}

int ccs_runner_run(const struct ccs_runner *r, const size_t *tasks, size_t n, size_t *done)
{
	*done = 0;
	if (r->result_size > CCS_RUNNER_MAX_RESULT)
		CCS_BUG("runner result too large");
	stop_sig = 0;
	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	struct ccs_progress prog, *pg = &prog;
	ccs_progress_start(pg, "points", n, 1);
	if (r->progress)
		ccs_progress_update(pg, 0, 0);
	int out = r->jobs > 1 && n > 1 ? run_workers(r, tasks, n, done, pg) : run_here(r, tasks, n, done, pg);
	if (r->progress)
		ccs_progress_update(pg, *done, 1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return out;
}
