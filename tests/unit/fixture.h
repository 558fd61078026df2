/*
** tests/unit/fixture.h: what unit tests share: a topology loaded with --set
** pairs (fx_load), the same with its communicator and fabric (fx_up, or a
** world), one collective's simulated time (fx_sim_time), and one seeded generator (xorshift64: fx_next, fx_urand in [0, 1)).  A test
** that draws numbers sets fx_rng to its seed and prints the seed when a
** check fails.
*/
#ifndef CCS_FIXTURE_H
#define CCS_FIXTURE_H

#include "../../model/topo_yaml.h"
#include "../../model/cost.h"
#include "../../sim/fabric.h"
#include "../../sim/sched/sched.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fx_rng = 88172645463325252ull;

static inline uint64_t fx_next(void)
{
	fx_rng ^= fx_rng << 13;
	fx_rng ^= fx_rng >> 7;
	fx_rng ^= fx_rng << 17;
	return fx_rng;
}

static inline double fx_urand(void)
{
	return (double)(fx_next() >> 11) / 9007199254740992.0;
}

/* The topology at path with nsets --set pairs; NULL (the reason printed)
 * when it does not load. */
static inline struct ccs_topo *fx_load(const char *path, const char *const *sets, int nsets)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	if (ccs_topo_yaml_load(path, sets, nsets, &t, &d)) {
		fprintf(stderr, "load %s: %s\n", path, d.msg);
		return NULL;
	}
	return t;
}

/* A topology, a communicator of all its GPUs (ppn per node, 0: all) and
 * the fabric it runs on. */
struct fx_world {
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
};

/* The topology at path with its --set pairs, a communicator of all its GPUs
 * (ppn per node, 0: all) and its fabric, each in its own variable: 0, or -1
 * with nothing left to release (the reason printed; *t is then NULL). */
static inline int fx_up(const char *path, const char *const *sets, int nsets, int ppn, struct ccs_topo **t,
                        struct ccs_comm *c, struct ccs_fabric **fab)
{
	char err[256];
	memset(c, 0, sizeof *c);
	*fab = NULL;
	*t = fx_load(path, sets, nsets);
	if (!*t)
		return -1;
	if (ccs_comm_build(*t, 0, ppn, c, err, sizeof err)) {
		fprintf(stderr, "comm %s: %s\n", path, err);
		ccs_topo_free(*t);
		*t = NULL;
		return -1;
	}
	if (ccs_fabric_new(c, fab)) {
		ccs_comm_release(c);
		ccs_topo_free(*t);
		*t = NULL;
		return -1;
	}
	return 0;
}

static inline void fx_down(struct ccs_topo *t, struct ccs_comm *c, struct ccs_fabric *fab)
{
	ccs_fabric_free(fab);
	ccs_comm_release(c);
	ccs_topo_free(t);
}

/* Set w up on path with its --set pairs: fx_up's 0 or -1. */
static inline int fx_world_up(struct fx_world *w, const char *path, const char *const *sets, int nsets, int ppn)
{
	memset(w, 0, sizeof *w);
	return fx_up(path, sets, nsets, ppn, &w->t, &w->c, &w->fab);
}

/* One simulated collective on c's fabric: its time in seconds (st filled),
 * or -1 when it does not build or run. */
static inline double fx_sim_time(const struct ccs_comm *c, struct ccs_fabric *fab, int coll, int algo, int proto,
                                 int ch, uint64_t bytes, struct ccs_sim_stats *st)
{
	struct ccs_sched s;
	const char *why;
	char err[256];
	if (ccs_sched_build(c, coll, algo, proto, ch, bytes, &s, &why))
		return -1;
	int rc = ccs_sim_run(fab, &s, st, NULL, err, sizeof err);
	ccs_sched_release(&s);
	return rc ? -1 : st->time_s;
}

/* Flow completions as ccs_flows_update reports them (its callback
 * fx_push_end; at most 4096 kept), for tests that drive the solver by hand. */
struct fx_end {
	ccs_time t;
	uint32_t id, ver;
};
struct fx_ends {
	struct fx_end v[4096];
	int n;
};

static inline int fx_push_end(void *ctx, uint32_t flow, ccs_time done, uint32_t ver)
{
	struct fx_ends *p = ctx;
	if (p->n < 4096)
		p->v[p->n++] = (struct fx_end){ done, flow, ver };
	return CCS_OK;
}

/* The file at path whole, NUL-ended (the caller frees it), then removed
 * (a test's scratch file); NULL when it cannot be read. */
static inline char *fx_slurp_rm(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	if (f && !fseek(f, 0, SEEK_END)) {
		long n = ftell(f);
		buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
		rewind(f);
		size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
		if (buf)
			buf[got] = 0;
	}
	if (f)
		fclose(f);
	remove(path);
	return buf;
}

/* nodes HGX H100 nodes (topologies/hgx-h100.yaml), ppn ranks a node. */
static inline int fx_world_hgx(struct fx_world *w, int nodes, int ppn)
{
	char nb[32];
	snprintf(nb, sizeof nb, "nodes=%d", nodes);
	const char *sets[] = { nb };
	return fx_world_up(w, "topologies/hgx-h100.yaml", sets, 1, ppn);
}

static inline void fx_world_down(struct fx_world *w)
{
	fx_down(w->t, &w->c, w->fab);
	memset(w, 0, sizeof *w);
}

#endif
