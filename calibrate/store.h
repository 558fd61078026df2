/*
** calibrate/store.h: the calibration history in SQLite (store.c, with
** merge.c the only files that include <sqlite3.h>, through store_int.h).
**
** Tables (schema version in PRAGMA user_version; migrations below):
**   hosts(id, name UNIQUE, first_seen)
**   runs(id, host_id, created, kind 'run'|'ingest', topology, sources,
**        versions, ccsim_version)
**   measurements(id, run_id, source, name, class, variant, devices, size,
**        iters, ranks, median_s, min_s, max_s, busbw_Bps, file, line)
**   fits(id, run_id, batch, created, class, name, lo, hi, alpha_s, alpha_lo,
**        alpha_hi, beta_spB, beta_lo, beta_hi, r2, rms, n)
**   scenarios(id, name, path, hash, ccsim_version, created)
**   results(id, scenario_id, point, topo_hash, design, workload, axes, ranks,
**        collective, algo, size, t_model_s, t_sim_s, bw_model_Bps,
**        bw_sim_Bps, lat_s, bwterm_s, step_s, bound, created, ord)
**   v1 creates the calibration tables; v2 adds the index measurements(run_id,
**   source, name, size) and the view run_summary (one line per run); v3 the
**   scenario tables of `ccsim run`; v4 results.ord, the point's place in its
**   scenario (results are read back in that order, then by id).  A scenario is its file's hash and the
**   ccsim version; a result is unique per (scenario, point, topology hash),
**   so a rerun skips what is stored and a changed topology is rerun.
** History is append-only: triggers refuse UPDATE and DELETE on runs,
** measurements and fits.  A run and its measurements go in one
** transaction, so an interrupted write leaves the run absent, never half
** there.  The journal is WAL and writers wait for each other (busy timeout
** 10 s), so two processes can append to one file.
** Times in seconds, sizes in bytes, bandwidths in B/s; readable with the
** sqlite3 shell.
*/
#ifndef CCS_STORE_H
#define CCS_STORE_H

#include "ingest.h"
#include "fit.h"

#include <stdint.h>

#define CCS_STORE_VERSION 5

struct ccs_store;

struct ccs_run_info {
	int64_t id;
	char host[64];
	char created[32];           /* UTC, ISO 8601 */
	char kind[8];               /* "run" or "ingest" */
	char topology[256];
	char sources[512];          /* the logs' names, space separated */
	char versions[192];
	char ccsim_version[16];
	int64_t nmeas;
};

/* Open (creating or migrating) the database at path.  CCS_EDB with d set
 * (the path and sqlite3_errmsg) when it cannot be opened, is not a ccsim
 * database, or has a newer schema than this ccsim knows. */
int  ccs_store_open(const char *path, struct ccs_store **out, struct ccs_diag *d);
/* The same, migrating only up to schema version target (tests of the
 * migrations). */
int  ccs_store_open_at(const char *path, int target, struct ccs_store **out, struct ccs_diag *d);
void ccs_store_close(struct ccs_store *s);
/* The schema version of an open store (CCS_STORE_VERSION after open). */
int  ccs_store_version(struct ccs_store *s);

/* Append one run with its measurements in one transaction; *id gets the
 * run's number.  r->host is created when new; r->id, created, nmeas are
 * filled in. */
int ccs_store_add_run(struct ccs_store *s, struct ccs_run_info *r, const struct ccs_meas *m, size_t n,
                      struct ccs_diag *d);
/* Every run, oldest first (*out the caller frees with ccs_free). */
int ccs_store_runs(struct ccs_store *s, struct ccs_run_info **out, size_t *n, struct ccs_diag *d);
/* One run's measurements in insertion order (caller frees *out): those
 * used by fits and checks, or with flagged also those stored with a flag
 * (ccs_meas.flag: kept out, and why). */
int ccs_store_meas(struct ccs_store *s, int64_t run, int flagged, struct ccs_meas **out, size_t *n,
                   struct ccs_diag *d);
/* Append fits made from run (one transaction). */
int ccs_store_add_fits(struct ccs_store *s, int64_t run, const struct ccs_fit *f, size_t n, struct ccs_diag *d);
/* The newest fits stored for run, one per (class, name, lo) (caller frees). */
int ccs_store_fits(struct ccs_store *s, int64_t run, struct ccs_fit **out, size_t *n, struct ccs_diag *d);
/* ---- scenario results (ccsim run) ---- */

struct ccs_scenario_info {
	int64_t id;
	char name[96], path[256], hash[24], ccsim_version[16], created[32];
	int64_t nresults;
};

struct ccs_result {
	char point[512];            /* the point's key: design, workload and axis values */
	char topo_hash[24];         /* of the expanded topology */
	char design[96], workload[96], axes[384];
	int ranks;
	char collective[24], algo[48], bound[16];
	uint64_t size;              /* bytes (collectives), 0 otherwise */
	double t_model_s, t_sim_s;  /* NAN when that engine did not run */
	double bw_model_Bps, bw_sim_Bps;   /* busbw, or the workload's own rate */
	double lat_s, bwterm_s, step_s;    /* the closed form's terms */
	int64_t ord;                /* the point's place in the scenario's points; -1 unknown */
};

/* The scenario with this hash and version (created when new). */
int ccs_store_scenario(struct ccs_store *s, const char *name, const char *path, const char *hash,
                       const char *version, int64_t *id, struct ccs_diag *d);
/* Append results in one transaction; a (point, topology hash) already
 * stored is left as it is. */
int ccs_store_add_results(struct ccs_store *s, int64_t scenario, const struct ccs_result *r, size_t n,
                          struct ccs_diag *d);
/* A scenario's results in insertion order; every scenario (caller frees). */
int ccs_store_results(struct ccs_store *s, int64_t scenario, struct ccs_result **out, size_t *n, struct ccs_diag *d);
int ccs_store_scenarios(struct ccs_store *s, struct ccs_scenario_info **out, size_t *n, struct ccs_diag *d);

/* PRAGMA integrity_check: 0 when "ok", else CCS_EDB with the first complaint. */
int ccs_store_check(struct ccs_store *s, struct ccs_diag *d);

#endif
