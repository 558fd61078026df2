/* sim/cli/runs.c: the calibration runs stored in the results database, read
** back for `ccsim calibrate` show, fit, diff and check (runs.h). */
#define _DEFAULT_SOURCE
#include "runs.h"

#include "../../calibrate/calib.h"
#include "../../calibrate/store.h"
#include "../../model/ccs.h"
#include "../../model/coll.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


void ccs_runs_say(const struct ccs_diag *d, const char *fallback)
{
	fprintf(stderr, "%s\n", d->set ? d->msg : fallback);
}

int ccs_runs_open_store(const struct ccs_runs_opts *o, struct ccs_store **s, int must_exist)
{
	struct stat st;
	if (must_exist && stat(o->db, &st)) {
		fprintf(stderr, "%s: no database '%s' (ingest or run something first, or pass --db)\n", ME, o->db);
		return -1;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_open(o->db, s, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot open the database");
		return -1;
	}
	return 0;
}

/* The runs; *pick the index of run id (-1: the newest). */
int ccs_runs_load(struct ccs_store *s, struct ccs_run_info **runs, size_t *n)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_runs(s, runs, n, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot list runs");
		return -1;
	}
	if (!*n) {
		fprintf(stderr, "%s: the database has no run yet\n", ME);
		ccs_free(*runs);
		return -1;
	}
	return 0;
}

long ccs_runs_find(const struct ccs_run_info *runs, size_t n, long long id, const char *what)
{
	if (id < 0)
		return (long)n - 1;
	for (size_t i = 0; i < n; i++)
		if (runs[i].id == id)
			return (long)i;
	fprintf(stderr, "%s: no run %lld%s%s (the database has runs %lld to %lld)\n", ME, id, what ? " for " : "",
	        what ? what : "", (long long)runs[0].id, (long long)runs[n - 1].id);
	return -1;
}

int ccs_runs_parse_arg(const char *s, long long *id)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v < 1) {
		fprintf(stderr, "%s: expected a run number, got '%s'\n", ME, s);
		return -1;
	}
	*id = v;
	return 0;
}

int ccs_runs_topology(const struct ccs_runs_opts *o, const struct ccs_run_info *r, struct ccs_topo **t, const char **path)
{
	*t = NULL;
	const char *topo = o->topo ? o->topo : r->topology[0] ? r->topology : NULL;
	if (path)
		*path = topo;
	if (!topo)
		return 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_topo_yaml_load(topo, (const char *const *)o->sets.v, o->sets.n, t, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot load the topology");
		return -1;
	}
	return 0;
}

int ccs_runs_read_meas(struct ccs_store *s, int64_t run, int flagged, struct ccs_meas **m, size_t *n)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_meas(s, run, flagged, m, n, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot read measurements");
		return -1;
	}
	return 0;
}

void ccs_runs_print_fits(const struct ccs_fit *f, size_t n)
{
	printf("%-6s %-22s %-20s %12s %24s %12s %24s %9s %7s %4s\n", "class", "name", "sizes", "alpha",
	       "alpha 95% CI", "bandwidth", "bandwidth 95% CI", "R2", "rms", "n");
	for (size_t i = 0; i < n; i++) {
		char lo[24], hi[24], sz[48], a[24], al[24], ah[24], ci[56], bw[24], bl[24], bh[24], bci[56];
		ccs_fmt_size((double)f[i].lo, lo, sizeof lo);
		ccs_fmt_size((double)f[i].hi, hi, sizeof hi);
		snprintf(sz, sizeof sz, "%s-%s", lo, hi);
		ccs_fmt_time(f[i].alpha_s, a, sizeof a);
		ccs_fmt_time(f[i].alpha_lo, al, sizeof al);
		ccs_fmt_time(f[i].alpha_hi, ah, sizeof ah);
		snprintf(ci, sizeof ci, "[%s, %s]", al, ah);
		if (f[i].beta_spB > 0)
			ccs_fmt_Bps(1 / f[i].beta_spB, bw, sizeof bw);
		else
			snprintf(bw, sizeof bw, "unbounded");
		if (f[i].beta_hi > 0)
			ccs_fmt_Bps(1 / f[i].beta_hi, bl, sizeof bl);
		else
			snprintf(bl, sizeof bl, "unbounded");
		if (f[i].beta_lo > 0)
			ccs_fmt_Bps(1 / f[i].beta_lo, bh, sizeof bh);
		else
			snprintf(bh, sizeof bh, "unbounded");
		snprintf(bci, sizeof bci, "[%s, %s]", bl, bh);
		printf("%-6s %-22s %-20s %12s %24s %12s %24s %9.6f %7.4f %4d\n", f[i].cls, f[i].name, sz, a, ci, bw, bci,
		       f[i].r2, f[i].rms, f[i].n);
	}
}

