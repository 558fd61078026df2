/* calibrate/merge.c: one ccsim database merged into another (merge.h). */
#include "merge.h"
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The columns of a result that are its content (all but id, scenario_id,
 * point, topo_hash, created and ord, the point's place in its scenario), as
 * both copies of a key are compared. */
static const char *const content[] = { "design", "workload", "axes", "ranks", "collective", "algo", "size",
	                                   "t_model_s", "t_sim_s", "bw_model_Bps", "bw_sim_Bps", "lat_s", "bwterm_s",
	                                   "step_s", "bound" };
#define NCONTENT (sizeof content / sizeof content[0])

/* A shard's results joined to the target's copy of their scenario. */
#define SHARD_RESULTS \
	" FROM sh.results r JOIN sh.scenarios sc ON sc.id = r.scenario_id" \
	" JOIN main.scenarios mc ON mc.hash = sc.hash AND mc.ccsim_version = sc.ccsim_version"

/* Whether column i of st equals column j (same type; text, integer and real
 * values exactly). */
static int same_value(sqlite3_stmt *st, int i, int j)
{
	int t = sqlite3_column_type(st, i);
	if (t != sqlite3_column_type(st, j))
		return 0;
	switch (t) {
	case SQLITE_NULL:
		return 1;
	case SQLITE_INTEGER:
		return sqlite3_column_int64(st, i) == sqlite3_column_int64(st, j);
	case SQLITE_FLOAT:
		return sqlite3_column_double(st, i) == sqlite3_column_double(st, j);
	default: {
		int n = sqlite3_column_bytes(st, i);
		const void *a = sqlite3_column_blob(st, i), *b = sqlite3_column_blob(st, j);
		return n == sqlite3_column_bytes(st, j) && (!n || (a && b && !memcmp(a, b, (size_t)n)));
	}
	}
}

/* Keys in both databases: conflicts reported, duplicates counted. */
static int compare_keys(struct ccs_store *s, struct ccs_merge_stats *st, ccs_merge_conflict_fn *conflict, void *ctx,
                        size_t *nconf, struct ccs_diag *d)
{
	char sql[2048];
	size_t l = (size_t)snprintf(sql, sizeof sql, "SELECT r.point");
	for (size_t k = 0; k < NCONTENT; k++)
		l += (size_t)snprintf(sql + l, sizeof sql - l, ", m.%s, r.%s", content[k], content[k]);
	snprintf(sql + l, sizeof sql - l, "%s JOIN main.results m ON m.scenario_id = mc.id AND m.point = r.point"
	         " AND m.topo_hash = r.topo_hash ORDER BY r.id", SHARD_RESULTS);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL))
		return ccs_store_dberr(s, d, "cannot compare the shard's results");
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		size_t k = 0;
		while (k < NCONTENT && same_value(q, 1 + 2 * (int)k, 2 + 2 * (int)k))
			k++;
		if (k == NCONTENT) {
			st->dup_results++;
			continue;
		}
		const unsigned char *a = sqlite3_column_text(q, 1 + 2 * (int)k), *b = sqlite3_column_text(q, 2 + 2 * (int)k);
		const unsigned char *p = sqlite3_column_text(q, 0);
		char diff[400];
		snprintf(diff, sizeof diff, "%s: %.180s vs %.180s", content[k], a ? (const char *)a : "NULL",
		         b ? (const char *)b : "NULL");
		(*nconf)++;
		if (conflict)
			conflict(ctx, p ? (const char *)p : "", diff);
	}
	sqlite3_finalize(q);
	return r == SQLITE_DONE ? CCS_OK : ccs_store_dberr(s, d, "cannot compare the shard's results");
}

/* Statement sql run once; *changes gets the rows it wrote. */
static int step_once(struct ccs_store *s, const char *sql, size_t *changes, const char *what, struct ccs_diag *d)
{
	CCS_TRY(ccs_store_exec(s, sql, d, what));
	if (changes)
		*changes += (size_t)sqlite3_changes(s->db);
	return CCS_OK;
}

static const char add_results[] =
	"INSERT INTO main.results(scenario_id, point, topo_hash, design, workload, axes, ranks, collective, algo, size,"
	" t_model_s, t_sim_s, bw_model_Bps, bw_sim_Bps, lat_s, bwterm_s, step_s, bound, created, ord)"
	" SELECT mc.id, r.point, r.topo_hash, r.design, r.workload, r.axes, r.ranks, r.collective, r.algo, r.size,"
	" r.t_model_s, r.t_sim_s, r.bw_model_Bps, r.bw_sim_Bps, r.lat_s, r.bwterm_s, r.step_s, r.bound, r.created, r.ord"
	SHARD_RESULTS
	" WHERE NOT EXISTS (SELECT 1 FROM main.results m WHERE m.scenario_id = mc.id AND m.point = r.point"
	" AND m.topo_hash = r.topo_hash) ORDER BY r.id";

/* The shard's calibration runs the target lacks, with their measurements
 * and fits, oldest first. */
static const char shard_runs[] =
	"SELECT r.id, h.name, h.first_seen, r.created, r.kind, r.topology, r.sources, r.versions, r.ccsim_version"
	" FROM sh.runs r JOIN sh.hosts h ON h.id = r.host_id WHERE NOT EXISTS (SELECT 1 FROM main.runs x"
	" JOIN main.hosts y ON y.id = x.host_id WHERE y.name = h.name AND x.created = r.created AND x.kind = r.kind"
	" AND x.topology IS r.topology AND x.sources = r.sources AND x.versions IS r.versions"
	" AND x.ccsim_version = r.ccsim_version AND (SELECT count(*) FROM main.measurements m WHERE m.run_id = x.id)"
	" = (SELECT count(*) FROM sh.measurements m WHERE m.run_id = r.id)) ORDER BY r.id";
static const char *const copy_run[] = {
	"INSERT OR IGNORE INTO main.hosts(name, first_seen) VALUES(?2, ?3)",
	"INSERT INTO main.runs(host_id, created, kind, topology, sources, versions, ccsim_version)"
	" SELECT (SELECT id FROM main.hosts WHERE name = ?2), ?4, ?5, ?6, ?7, ?8, ?9",
	"INSERT INTO main.measurements(run_id, source, name, class, variant, devices, size, iters, ranks, median_s,"
	" min_s, max_s, busbw_Bps, file, line, flag) SELECT (SELECT max(id) FROM main.runs), source, name, class,"
	" variant, devices, size, iters, ranks, median_s, min_s, max_s, busbw_Bps, file, line, flag FROM sh.measurements"
	" WHERE run_id = ?1 ORDER BY id",
	"INSERT INTO main.fits(run_id, batch, created, class, name, lo, hi, alpha_s, alpha_lo, alpha_hi, beta_spB,"
	" beta_lo, beta_hi, r2, rms, n) SELECT (SELECT max(id) FROM main.runs), batch, created, class, name, lo, hi,"
	" alpha_s, alpha_lo, alpha_hi, beta_spB, beta_lo, beta_hi, r2, rms, n FROM sh.fits WHERE run_id = ?1 ORDER BY id",
};
#define NCOPY (sizeof copy_run / sizeof copy_run[0])

/* Each of the shard's runs the target lacks: its host, the run, its
 * measurements and fits (columns of shard_runs bound as ?1..?9). */
static int add_runs(struct ccs_store *s, struct ccs_merge_stats *st, struct ccs_diag *d)
{
	sqlite3_stmt *q = NULL, *c[NCOPY] = { NULL };
	int rc = CCS_OK, r = SQLITE_OK;
	if (sqlite3_prepare_v2(s->db, shard_runs, -1, &q, NULL))
		rc = ccs_store_dberr(s, d, "cannot read the shard's runs");
	for (size_t k = 0; k < NCOPY && !rc; k++)
		if (sqlite3_prepare_v2(s->db, copy_run[k], -1, &c[k], NULL))
			rc = ccs_store_dberr(s, d, "cannot copy a run");
	while (!rc && (r = sqlite3_step(q)) == SQLITE_ROW) {
		for (size_t k = 0; k < NCOPY && !rc; k++) {
			sqlite3_reset(c[k]);
			int e = 0;
			for (int i = 0; i < 9 && i < sqlite3_bind_parameter_count(c[k]); i++)
				e |= sqlite3_bind_value(c[k], i + 1, sqlite3_column_value(q, i));
			if (e || sqlite3_step(c[k]) != SQLITE_DONE)
				rc = ccs_store_dberr(s, d, "cannot copy a run");
		}
		st->runs += !rc;
	}
	if (!rc && r != SQLITE_DONE)
		rc = ccs_store_dberr(s, d, "cannot read the shard's runs");
	for (size_t k = 0; k < NCOPY; k++)
		sqlite3_finalize(c[k]);
	sqlite3_finalize(q);
	return rc;
}

/* The shard's calibration runs, as many as there are. */
static int count_runs(struct ccs_store *s, size_t *n, struct ccs_diag *d)
{
	int64_t k = 0;
	int r = ccs_store_once(s, "SELECT count(*) FROM sh.runs", NULL, 0, &k);
	*n = r == SQLITE_ROW ? (size_t)k : 0;
	return r == SQLITE_ROW ? CCS_OK : ccs_store_dberr(s, d, "cannot read the shard's runs");
}

/* The copy itself, inside the caller's transaction. */
static int copy_shard(struct ccs_store *s, const char *shard, struct ccs_merge_stats *st,
                      ccs_merge_conflict_fn *conflict, void *ctx, struct ccs_diag *d)
{
	size_t nconf = 0;
	CCS_TRY(step_once(s, "INSERT OR IGNORE INTO main.scenarios(name, path, hash, ccsim_version, created)"
	                  " SELECT name, path, hash, ccsim_version, created FROM sh.scenarios ORDER BY id",
	                  &st->scenarios, "cannot add the shard's scenarios", d));
	CCS_TRY(compare_keys(s, st, conflict, ctx, &nconf, d));
	if (nconf) {
		st->conflicts += nconf;
		ccs_diag_msg(d, "%s: %zu point%s computed differently here than in '%s'; nothing of this shard merged", shard,
		             nconf, nconf == 1 ? "" : "s", s->path);
		return CCS_EINPUT;
	}
	CCS_TRY(step_once(s, add_results, &st->results, "cannot add the shard's results", d));
	size_t nruns;
	CCS_TRY(count_runs(s, &nruns, d));
	CCS_TRY(add_runs(s, st, d));
	st->dup_runs = nruns - st->runs;
	return CCS_OK;
}

/* The shard exists, is not the target, and is a ccsim database (opening it
 * checks that, and migrates an older one). */
static int check_shard(struct ccs_store *s, const char *shard, struct ccs_diag *d)
{
	struct stat a, b;
	if (stat(shard, &a)) {
		ccs_diag_msg(d, "%s: cannot read it: %s", shard, strerror(errno));
		return CCS_EINPUT;
	}
	if (!S_ISREG(a.st_mode)) {
		ccs_diag_msg(d, "%s: not a file", shard);
		return CCS_EINPUT;
	}
	if (!stat(s->path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		ccs_diag_msg(d, "%s: is the database merged into", shard);
		return CCS_EINPUT;
	}
	/* a shard is somebody else's file: SQLite's full integrity check
	 * before a row of it is read (a flipped bit merged silently before) */
	struct ccs_store *t;
	CCS_TRY(ccs_store_open(shard, &t, d));
	int rc = ccs_store_check(t, d);
	ccs_store_close(t);
	return rc;
}

int ccs_merge_shard(struct ccs_store *s, const char *shard, struct ccs_merge_stats *st, ccs_merge_conflict_fn *conflict,
                    void *ctx, struct ccs_diag *d)
{
	CCS_TRY(check_shard(s, shard, d));
	sqlite3_stmt *at;
	if (sqlite3_prepare_v2(s->db, "ATTACH ?1 AS sh", -1, &at, NULL))
		return ccs_store_dberr(s, d, "cannot attach the shard");
	int r = sqlite3_bind_text(at, 1, shard, -1, SQLITE_TRANSIENT);
	r = r ? r : sqlite3_step(at);
	sqlite3_finalize(at);
	if (r != SQLITE_DONE)
		return ccs_store_dberr(s, d, "cannot attach the shard");
	struct ccs_merge_stats mine;
	memset(&mine, 0, sizeof mine);
	int rc = ccs_store_exec(s, "BEGIN IMMEDIATE", d, "cannot start a transaction");
	if (!rc) {
		rc = copy_shard(s, shard, &mine, conflict, ctx, d);
		if (!rc)
			rc = ccs_store_exec(s, "COMMIT", d, "cannot commit the merge");
		if (rc)
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_exec(s->db, "DETACH sh", NULL, NULL, NULL);
	if (rc) {
		st->conflicts += mine.conflicts;
		return rc;
	}
	st->scenarios += mine.scenarios;
	st->results += mine.results;
	st->dup_results += mine.dup_results;
	st->runs += mine.runs;
	st->dup_runs += mine.dup_runs;
	return CCS_OK;
}
