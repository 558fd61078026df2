/*
** tests/bench/child.h: a bench case in a child process, so that each case
** has its own peak RSS (wait4) and a crash or a time limit ends only it.
*/
#ifndef CCS_BENCH_CHILD_H
#define CCS_BENCH_CHILD_H

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run fn(arg, out, fd) in a child, which then sends the n bytes of out back
 * through a pipe (fd is its write end, for a signal handler that must send
 * early and exit); out starts as the caller's.  *mib: the child's peak RSS.
 * 0 when n bytes came back. */
static inline int bench_child(void (*fn)(const void *arg, void *out, int fd), const void *arg, void *out, size_t n,
                              double *mib)
{
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		fn(arg, out, fds[1]);
		ssize_t w = write(fds[1], out, n);
		_exit(w == (ssize_t)n ? 0 : 1);
	}
	close(fds[1]);
	ssize_t got = read(fds[0], out, n);
	close(fds[0]);
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	*mib = (double)ru.ru_maxrss / 1024.0;
	return got == (ssize_t)n ? 0 : -1;
}

#endif
