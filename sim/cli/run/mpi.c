/*
** sim/cli/run/mpi.c: `mpirun -n P ccsim run SCENARIO --mpi`: every rank
** reads and checks the scenario (the same file, so the same points in the
** same order); rank 0 opens the results database, hands out the points not
** stored yet one at a time to whichever rank asks, slowest first, and alone
** writes what comes back (in batches, as -j does: ccs_exec_collect), so a
** job killed at any moment leaves a database that the same command resumes.
**
** Slowest first: a simulated point's cost grows with its rank count and
** with the length of its schedule, which the closed form's time stands for,
** so points go out by ranks x t_model (closed form, computed on rank 0),
** largest first; the longest point starts early instead of last (LPT
** scheduling, Graham 1969).  A model-only scenario keeps the file's order.
**
** Messages (tags): a worker sends READY with the result of its last point
** (none the first time); rank 0 answers TASK with a point's number, or STOP.
** MPI itself is the plugin bin/ccsim-mpi.so (mpi_abi.h).
*/
#include "run.h"
#include "mpi_abi.h"
#include "../progress.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *me = "ccsim run";

enum { TAG_READY = 1, TAG_TASK = 2, TAG_STOP = 3 };
#define NO_TASK UINT64_MAX

struct ready {
	uint64_t task;              /* NO_TASK: nothing done yet */
	int32_t rc;
	struct job j;
};

static const struct ccs_mpi_ops *ops;
static int my_rank, n_ranks;

/* The plugin: $CCSIM_MPI_PLUGIN, else ccsim-mpi.so beside the binary. */
static void *load_plugin(char *path, size_t n)
{
	const char *env = getenv("CCSIM_MPI_PLUGIN");
	if (env && *env) {
		snprintf(path, n, "%s", env);
	} else {
		ssize_t l = readlink("/proc/self/exe", path, n - 32);
		if (l <= 0)
			return NULL;
		path[l] = 0;
		char *sl = strrchr(path, '/');
		snprintf(sl ? sl + 1 : path, 32, "ccsim-mpi.so");
	}
	return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

int ccs_mpi_start(int *argc, char ***argv, int *rank, int *size)
{
	char path[PATH_MAX];
	void *h = load_plugin(path, sizeof path);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "%s: --mpi needs the MPI plugin '%s' (%s); it is built by make where mpicc is found "
		        "(Debian: apt-get install openmpi-bin libopenmpi-dev)\n", me, path, e ? e : "not found");
		return 1;
	}
	ccs_mpi_ops_fn *get = (ccs_mpi_ops_fn *)dlsym(h, "ccsim_mpi_ops");
	const struct ccs_mpi_ops *o = get ? get() : NULL;
	if (!o || o->version != CCS_MPI_ABI_VERSION) {
		fprintf(stderr, "%s: '%s' is not a ccsim MPI plugin of version %d\n", me, path, CCS_MPI_ABI_VERSION);
		return 1;
	}
	if (o->init(argc, argv, rank, size))
		return 1;
	ops = o;
	my_rank = *rank;
	n_ranks = *size;
	return 0;
}

void ccs_mpi_stop(int failed)
{
	if (!ops)
		return;
	if (failed && n_ranks > 1)
		ops->abort(failed);
	ops->finalize();
	ops = NULL;
}

struct est {
	double cost;
	size_t task;
};

static int by_cost(const void *a, const void *b)
{
	const struct est *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* todo reordered by ranks x the closed form's time, largest first. */
static int slowest_first(const struct scen *S, size_t *todo, size_t n)
{
	if (!S->engine || n < 2)
		return 0;
	struct est *e = ccs_calloc(n, sizeof *e);
	if (!e)
		return CCS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct point *pt = &S->pt[todo[i]];
		const struct inst *in = &S->inst[pt->inst];
		const struct winst *wi = &S->wi[pt->wi];
		struct cell ce;
		memset(&ce, 0, sizeof ce);
		char err[256];
		int r = wi->w.ranks ? (int)wi->w.ranks : in->c.n;
		e[i].task = todo[i];
		e[i].cost = !ccs_cell_run(in->t, &in->c, S->gs[in->design].ppn, &wi->w, 0, &ce, err, sizeof err) && ce.t_model > 0
		                    ? ce.t_model * r : 0;
	}
	qsort(e, n, sizeof *e, by_cost);
	for (size_t i = 0; i < n; i++)
		todo[i] = e[i].task;
	ccs_free(e);
	return 0;
}

/* Rank 0: points out, results in, until every worker has been told STOP. */
static int coordinate(struct scen *S, const size_t *todo, size_t n, size_t *done)
{
	struct ready *m = ccs_malloc(sizeof *m);
	if (!m)
		return CCS_RUN_FAILED;
	struct ccs_progress pg;
	ccs_progress_start(&pg, "points", n, isatty(2));
	size_t next = 0;
	int active = n_ranks - 1, how = CCS_RUN_DONE;
	while (active > 0) {
		int from, tag;
		size_t len;
		if (ops->recv(m, sizeof *m, CCS_MPI_ANY, &from, &tag, &len) || tag != TAG_READY || len != sizeof *m) {
			fprintf(stderr, "%s: rank 0: a bad message from rank %d\n", me, from);
			how = CCS_RUN_FAILED;
			break;
		}
		if (m->task != NO_TASK) {
			(*done)++;
			if (m->task >= S->npt || ccs_exec_collect(S, (size_t)m->task, m->rc, &m->j))
				how = CCS_RUN_STOPPED;
			ccs_progress_update(&pg, *done, 0);
		}
		uint64_t t = how == CCS_RUN_DONE && next < n ? (uint64_t)todo[next++] : NO_TASK;
		if (ops->send(&t, sizeof t, from, t == NO_TASK ? TAG_STOP : TAG_TASK)) {
			how = CCS_RUN_FAILED;
			break;
		}
		active -= t == NO_TASK;
	}
	if (n)
		ccs_progress_update(&pg, *done, 1);
	ccs_free(m);
	return how;
}

/* Other ranks: READY, then a point per TASK, until STOP. */
static int work(struct scen *S)
{
	struct ready *m = ccs_calloc(1, sizeof *m);
	if (!m)
		return CCS_RUN_FAILED;
	m->task = NO_TASK;
	int how = CCS_RUN_DONE;
	for (;;) {
		if (ops->send(m, sizeof *m, 0, TAG_READY)) {
			how = CCS_RUN_FAILED;
			break;
		}
		uint64_t t;
		int from, tag;
		size_t len;
		if (ops->recv(&t, sizeof t, 0, &from, &tag, &len) || len != sizeof t || (tag == TAG_TASK && t >= S->npt)) {
			how = CCS_RUN_FAILED;
			break;
		}
		if (tag == TAG_STOP)
			break;
		memset(m, 0, sizeof *m);
		m->task = t;
		m->rc = ccs_exec_compute(S, (size_t)t, &m->j);
	}
	ccs_free(m);
	return how;
}

int ccs_mpi_run(struct scen *S, size_t *todo, size_t n, size_t *done)
{
	*done = 0;
	if (my_rank)
		return work(S);
	if (slowest_first(S, todo, n))
		return CCS_RUN_FAILED;
	return coordinate(S, todo, n, done);
}
