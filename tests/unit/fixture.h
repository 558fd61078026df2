/*
** tests/unit/fixture.h: what unit tests share: a topology loaded with --set
** pairs (fx_load), the same with its communicator and fabric (a world), and
** one seeded generator (xorshift64: fx_next, fx_urand in [0, 1)).  A test
** that draws numbers sets fx_rng to its seed and prints the seed when a
** check fails.
*/
#ifndef CCS_FIXTURE_H
#define CCS_FIXTURE_H

#include "../../model/topo_yaml.h"
#include "../../model/cost.h"
#include "../../sim/fabric.h"

#include <stdio.h>
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
	if (ccs_topo_load(path, sets, nsets, &t, &d)) {
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

/* Set w up on path with its --set pairs: 0, or -1 with nothing left to
 * release (the reason printed). */
static inline int fx_world_up(struct fx_world *w, const char *path, const char *const *sets, int nsets, int ppn)
{
	char err[256];
	memset(w, 0, sizeof *w);
	w->t = fx_load(path, sets, nsets);
	if (!w->t)
		return -1;
	if (ccs_comm_build(w->t, 0, ppn, &w->c, err, sizeof err)) {
		fprintf(stderr, "comm %s: %s\n", path, err);
		ccs_topo_free(w->t);
		w->t = NULL;
		return -1;
	}
	if (ccs_fabric_new(&w->c, &w->fab)) {
		ccs_comm_release(&w->c);
		ccs_topo_free(w->t);
		w->t = NULL;
		return -1;
	}
	return 0;
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
	ccs_fabric_free(w->fab);
	ccs_comm_release(&w->c);
	ccs_topo_free(w->t);
	memset(w, 0, sizeof *w);
}

#endif
