/*
** sim/synth/synth_routes.h: the synthesis program's capacity rows, read
** from the fabric's routes once.
**
** Every ordered pair (u, v) of ranks crosses resources e with shares
**   sh(u, v, e) = sum over salts s < S and ways w < W of
**                 [e on route(u, v, s, w)] / (S W)
** S = 8 channels (a schedule spreads a pair's chunks over its channels:
** ECMP hashes the channel, and across groups channel s leaves by NIC s mod
** k of each end), W the ways a sprayed transfer takes.  The rows are the
** resources some route crosses, numbered as first met; cap(e) is the row's
** capacity over the largest (capmax).  Per pair also hop_sB, the slowest
** resource's seconds per byte (the ways averaged, then the salts), and
** hop_lat, NCCL's ring hop latency inside a group or across (what a
** schedule file's send pays). */
#ifndef CCS_SYNTH_ROUTES_H
#define CCS_SYNTH_ROUTES_H

#include "../../model/comm.h"
#include "../fabric.h"

#include <stddef.h>
#include <stdint.h>

struct ccs_synth_routes {
	uint32_t *start;            /* pair p = u n + v: its entries [start[p], start[p + 1]) */
	int *row;                   /* an entry's row */
	double *sh;                 /* an entry's share */
	size_t rowcap, shcap;       /* entries allocated */
	int nrow;
	uint32_t *row_res;          /* a row's fabric resource */
	double *cap;                /* a row's capacity over the largest */
	double capmax;
};

/* The rows of c's ranks on fabric f into *r (released by the caller, also
 * after a failure), hop_sB and hop_lat (n x n, by the caller) filled: 0,
 * CCS_ENOMEM, or CCS_EINPUT with why in err (no route, a resource of no
 * capacity). */
int  ccs_synth_routes_read(struct ccs_fabric *f, const struct ccs_comm *c, struct ccs_synth_routes *r, double *hop_sB,
                           double *hop_lat, char *err, size_t errn);
void ccs_synth_routes_release(struct ccs_synth_routes *r);

#endif
