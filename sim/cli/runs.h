/*
** sim/cli/runs.h: what the `ccsim calibrate` subcommands share: their options,
** the database they open, and the runs read back from it (runs.c); diff and
** check (cmd_calibrate_cmp.c).
*/
#ifndef CCS_RUNS_H
#define CCS_RUNS_H

#include "cli.h"

#include "../../calibrate/store.h"

#define ME "ccsim calibrate"
#define DEFAULT_DB "ccsim.db"

/* A subcommand's options (run numbers as the database numbers them, -1:
 * the newest; tol a fraction). */
struct ccs_runs_opts {
	const char *db, *host, *topo, *out, *baseline, *junit, *bench_dir;
	int residuals;
	int coll, ranks, ppn;       /* ingest -c (CCS_COLL_ + 1), -n, --ppn; 0 not given */
	long long run;
	double tol;
	struct ccs_args_sets sets;
	const char *pos[64];
	int npos;
};

/* runs.c: a diag's message (or fallback) on stderr; the database (must_exist:
 * refuse to create it); the runs (none is an error); run id's index (-1:
 * the newest; -1 after a message when absent); a run number argument; a
 * run's measurements; fits as a table.  Each returns 0 or -1 after its
 * message. */
void ccs_runs_say(const struct ccs_diag *d, const char *fallback);
int ccs_runs_open_store(const struct ccs_runs_opts *o, struct ccs_store **s, int must_exist);
int ccs_runs_load(struct ccs_store *s, struct ccs_run_info **runs, size_t *n);
long ccs_runs_find(const struct ccs_run_info *runs, size_t n, long long id, const char *what);
int ccs_runs_parse_arg(const char *s, long long *id);
int ccs_runs_read_meas(struct ccs_store *s, int64_t run, int flagged, struct ccs_meas **m, size_t *n);
void ccs_runs_print_fits(const struct ccs_fit *f, size_t n);
/* The topology of run r: -t, else the one it was ingested with (*t NULL
 * when neither names one; *path, when path is not NULL, its file or NULL);
 * 0, or -1 after a message. */
int ccs_runs_topology(const struct ccs_runs_opts *o, const struct ccs_run_info *r, struct ccs_topo **t, const char **path);

/* diff (check 0) or check: the exit status. */
int ccs_cmd_calibrate_cmp(const struct ccs_runs_opts *o, int check);

#endif
