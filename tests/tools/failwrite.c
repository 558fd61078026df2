/*
** tests/tools/failwrite.c: an LD_PRELOAD shim that makes the Nth write to a
** file fail as a full disk does (CCS_FAIL_WRITE=N), counting from the
** shim's constructor: write, pwrite, pwrite64, writev, fsync or fdatasync on
** a descriptor above 2 returns -1 with ENOSPC (EIO for the syncs).  SQLite's
** unix VFS and any direct write go through these symbols.  glibc's stdio
** writes through an internal entry the shim cannot see, so a stream open for
** writing counts at fclose instead: the stream is closed and EOF returned
** with ENOSPC, as when the last buffer could not be written (what a small
** file on a full disk meets).  CCS_COUNT_WRITE set prints
** "failwrite: N writes" at exit.  For the release build; tests/alloc.sh
** uses it.
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long countdown, count;
static int armed, counting;

/* next: the definition of NAME after this one, looked up once. */
#define NEXT(name) \
	static __typeof__(&name) next; \
	if (!next) \
		next = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

static void report(void)
{
	char b[64];
	int k = snprintf(b, sizeof b, "failwrite: %ld writes\n", count);
	NEXT(write);
	if (k > 0 && next && next(2, b, (size_t)k) < 0)
		return;
}

__attribute__((constructor)) static void arm(void)
{
	const char *s = getenv("CCS_FAIL_WRITE");
	countdown = s ? strtol(s, NULL, 10) : 0;
	counting = getenv("CCS_COUNT_WRITE") != NULL;
	armed = 1;
	if (counting)
		atexit(report);
}

/* Whether this write to FD is the one to fail; only files (fd > 2) count. */
static int fail_now(int fd, int err)
{
	if (!armed || fd <= 2)
		return 0;
	count++;
	if (countdown > 0 && --countdown == 0) {
		errno = err;
		return 1;
	}
	return 0;
}

ssize_t write(int fd, const void *b, size_t n)
{
	NEXT(write);
	return fail_now(fd, ENOSPC) ? -1 : next(fd, b, n);
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t o)
{
	NEXT(pwrite);
	return fail_now(fd, ENOSPC) ? -1 : next(fd, b, n, o);
}

ssize_t pwrite64(int fd, const void *b, size_t n, off_t o)
{
	NEXT(pwrite64);
	return fail_now(fd, ENOSPC) ? -1 : next(fd, b, n, o);
}

ssize_t writev(int fd, const struct iovec *v, int k)
{
	NEXT(writev);
	return fail_now(fd, ENOSPC) ? -1 : next(fd, v, k);
}

int fsync(int fd)
{
	NEXT(fsync);
	return fail_now(fd, EIO) ? -1 : next(fd);
}

int fdatasync(int fd)
{
	NEXT(fdatasync);
	return fail_now(fd, EIO) ? -1 : next(fd);
}

int fclose(FILE *f)
{
	NEXT(fclose);
	if (f && __fwritable(f) && fail_now(fileno(f), ENOSPC)) {
		next(f);
		errno = ENOSPC;
		return EOF;
	}
	return next(f);
}
