/* calibrate/store.c: the SQLite calibration history (store.h). */
#include "store_int.h"

#include <sqlite3.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

/* Migration i takes the schema from version i to i + 1. */
static const char *const migrations[CCS_STORE_VERSION] = {
	/* 0 -> 1: the tables and the append-only triggers */
	"CREATE TABLE hosts(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, first_seen TEXT NOT NULL);"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES hosts(id),"
	" created TEXT NOT NULL, kind TEXT NOT NULL CHECK(kind IN ('run','ingest')), topology TEXT,"
	" sources TEXT NOT NULL, versions TEXT, ccsim_version TEXT NOT NULL);"
	"CREATE TABLE measurements(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	" source TEXT NOT NULL, name TEXT NOT NULL, class TEXT NOT NULL, variant TEXT NOT NULL, devices TEXT,"
	" size INTEGER NOT NULL CHECK(size >= 0), iters INTEGER, ranks INTEGER,"
	" median_s REAL NOT NULL CHECK(median_s > 0), min_s REAL, max_s REAL, busbw_Bps REAL, file TEXT, line INTEGER);"
	"CREATE TABLE fits(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), batch INTEGER NOT NULL,"
	" created TEXT NOT NULL,"
	" class TEXT NOT NULL, name TEXT NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL,"
	" alpha_s REAL NOT NULL, alpha_lo REAL, alpha_hi REAL, beta_spB REAL NOT NULL, beta_lo REAL, beta_hi REAL,"
	" r2 REAL, rms REAL, n INTEGER NOT NULL);"
	"CREATE TRIGGER runs_ro_u BEFORE UPDATE ON runs BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER runs_ro_d BEFORE DELETE ON runs BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER meas_ro_u BEFORE UPDATE ON measurements BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER meas_ro_d BEFORE DELETE ON measurements BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER fits_ro_u BEFORE UPDATE ON fits BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER fits_ro_d BEFORE DELETE ON fits BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;",
	/* 1 -> 2: lookups by run and a one-line-per-run view */
	"CREATE INDEX meas_by_run ON measurements(run_id, source, name, size);"
	"CREATE INDEX fits_by_run ON fits(run_id, class, name);"
	"CREATE VIEW run_summary AS SELECT r.id AS run, h.name AS host, r.created, r.kind, r.topology,"
	" (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) AS measurements,"
	" (SELECT count(*) FROM fits f WHERE f.run_id = r.id) AS fits, r.sources"
	" FROM runs r JOIN hosts h ON h.id = r.host_id;",
	/* 2 -> 3: scenario results (ccsim run) */
	"CREATE TABLE scenarios(id INTEGER PRIMARY KEY, name TEXT NOT NULL, path TEXT, hash TEXT NOT NULL,"
	" ccsim_version TEXT NOT NULL, created TEXT NOT NULL, UNIQUE(hash, ccsim_version));"
	"CREATE TABLE results(id INTEGER PRIMARY KEY, scenario_id INTEGER NOT NULL REFERENCES scenarios(id),"
	" point TEXT NOT NULL, topo_hash TEXT NOT NULL, design TEXT NOT NULL, workload TEXT NOT NULL, axes TEXT NOT NULL,"
	" ranks INTEGER, collective TEXT, algo TEXT, size INTEGER, t_model_s REAL, t_sim_s REAL, bw_model_Bps REAL,"
	" bw_sim_Bps REAL, lat_s REAL, bwterm_s REAL, step_s REAL, bound TEXT, created TEXT NOT NULL,"
	" UNIQUE(scenario_id, point, topo_hash));"
	"CREATE INDEX results_by_scenario ON results(scenario_id, workload, design);"
	"CREATE TRIGGER results_ro_u BEFORE UPDATE ON results BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;"
	"CREATE TRIGGER results_ro_d BEFORE DELETE ON results BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;",
	/* 3 -> 4: a result's place in its scenario's list of points, so a study
	 * read back (report, a merge of shards) is in the file's order */
	"ALTER TABLE results ADD COLUMN ord INTEGER;",
	/* 4 -> 5: why a measurement is kept out of fits and checks (numbers
	 * that contradict themselves), '' for one that is used */
	"ALTER TABLE measurements ADD COLUMN flag TEXT NOT NULL DEFAULT '';",
};

int ccs_store_dberr(struct ccs_store *s, struct ccs_diag *d, const char *what)
{
	ccs_diag_msg(d, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	return CCS_EDB;
}

/* A database whose directory ccsim cannot write: SQLite's WAL journal
 * creates PATH-wal and PATH-shm beside it even to read, and says only
 * "unable to open database file"; say why.  1 when that is the case. */
static int ro_dir(const struct ccs_store *s, struct ccs_diag *d)
{
	char dir[sizeof s->path];
	snprintf(dir, sizeof dir, "%s", s->path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (!access(dir, W_OK))
		return 0;
	ccs_diag_msg(d, "%s: its directory %s is not writable, and SQLite's WAL journal must create %s-wal and "
	             "%s-shm beside it (even to read); copy the database to a writable directory", s->path, dir, s->path,
	             s->path);
	return 1;
}

/* dberr after a failed first read: "not a SQLite database" only when SQLite
 * says so (a full disk or an I/O error is not the file's fault). */
static int readerr(struct ccs_store *s, struct ccs_diag *d)
{
	int notadb = (sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB;
	if (!notadb && ro_dir(s, d))
		return CCS_EDB;
	return ccs_store_dberr(s, d, notadb ? "not a SQLite database" : "cannot read it");
}

int ccs_store_exec(struct ccs_store *s, const char *sql, struct ccs_diag *d, const char *what)
{
	char *err = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		ccs_diag_msg(d, "%s: %s: %s", s->path, what, err ? err : sqlite3_errmsg(s->db));
		sqlite3_free(err);
		return CCS_EDB;
	}
	return CCS_OK;
}

int ccs_store_once(struct ccs_store *s, const char *sql, const char *const *args, int n, int64_t *out)
{
	sqlite3_stmt *st;
	int r = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (r != SQLITE_OK)
		return r == SQLITE_ROW || r == SQLITE_DONE ? SQLITE_ERROR : r;
	for (int i = 0; i < n && r == SQLITE_OK; i++)
		r = sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_TRANSIENT);
	if (r == SQLITE_OK)
		r = sqlite3_step(st);
	if (r == SQLITE_ROW && out)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return r;
}

/* A PRAGMA that answers "ok" when all is well: 0, 1 with its answer in
 * buf, or -1 when it could not run. */
static int pragma_ok(struct ccs_store *s, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		rc = t && !strcmp((const char *)t, "ok") ? 0 : 1;
		snprintf(buf, n, "%s", t ? (const char *)t : "no answer");
	}
	sqlite3_finalize(st);
	return rc;
}

static int user_version(struct ccs_store *s, int *v)
{
	int64_t x = 0;
	int rc = ccs_store_once(s, "PRAGMA user_version", NULL, 0, &x) == SQLITE_ROW ? 0 : -1;
	*v = (int)x;
	return rc;
}

int ccs_store_version(struct ccs_store *s)
{
	int v = -1;
	return user_version(s, &v) ? -1 : v;
}

int ccs_store_open(const char *path, struct ccs_store **out, struct ccs_diag *d)
{
	return ccs_store_open_at(path, CCS_STORE_VERSION, out, d);
}

/* SQLite allocates through ccs_malloc, so an injected allocation failure
 * (CCS_FAIL_ALLOC, test builds) reaches it too.  Each block carries its
 * size in a 16-byte header for xSize. */
static void *sq_malloc(int n)
{
	size_t *p = n > 0 ? ccs_malloc((size_t)n + 16) : NULL;
	if (!p)
		return NULL;
	p[0] = (size_t)n;
	return (char *)p + 16;
}

static void sq_free(void *p)
{
	if (p)
		ccs_free((char *)p - 16);
}

static int sq_size(void *p) { return p ? (int)*(size_t *)(void *)((char *)p - 16) : 0; }

static void *sq_realloc(void *p, int n)
{
	if (!p)
		return sq_malloc(n);
	size_t *q = n > 0 ? ccs_realloc((char *)p - 16, (size_t)n + 16) : NULL;
	if (!q)
		return NULL;
	q[0] = (size_t)n;
	return (char *)q + 16;
}

static int sq_roundup(int n) { return (n + 7) & ~7; }
static int sq_init(void *unused) { (void)unused; return SQLITE_OK; }
static void sq_shutdown(void *unused) { (void)unused; }

/* Once per process, before SQLite initialises itself (the one piece of
 * process state here; SQLite's own configuration is process-wide too). */
static void sq_configure(void)
{
	static int done;
	static const sqlite3_mem_methods m = { sq_malloc, sq_free, sq_realloc, sq_size, sq_roundup, sq_init,
	                                       sq_shutdown, NULL };
	if (!done)
		sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
	done = 1;
}

/* PRAGMA quick_check on a database ccsim is about to use: "ok", or
 * CCS_EDB naming the first problem (SQLite's own words). */
static int quick_check(struct ccs_store *s, struct ccs_diag *d)
{
	char t[256];
	int r = pragma_ok(s, "PRAGMA quick_check(1)", t, sizeof t);
	if (r < 0)
		return readerr(s, d);
	if (r)
		return ccs_diag_msg(d, "%s: damaged (SQLite's quick_check: %.200s); restore it or start a new database",
		                    s->path, t), CCS_EDB;
	return CCS_OK;
}

/* Whether the file at schema version v is one ccsim may open: a version it
 * writes, SQLite's quick check passing, and a version 0 file empty (not
 * somebody else's database).  CCS_OK, or CCS_EDB with d set. */
static int vet_version(struct ccs_store *s, int v, struct ccs_diag *d)
{
	if (v > CCS_STORE_VERSION)
		return ccs_diag_msg(d, "%s: schema version %d is newer than this ccsim knows (%d); use a newer ccsim", s->path,
		                    v, CCS_STORE_VERSION), CCS_EDB;
	/* the migrations are indexed by it: a negative one crashed */
	if (v < 0)
		return ccs_diag_msg(d, "%s: schema version %d is not one ccsim writes (0 to %d); not a ccsim database, or "
		                       "damaged", s->path, v, CCS_STORE_VERSION), CCS_EDB;
	if (v > 0)
		return quick_check(s, d);
	/* version 0: an empty file, or somebody else's database */
	int64_t n = -1;
	int r = ccs_store_once(s, "SELECT count(*) FROM sqlite_master", NULL, 0, &n);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return readerr(s, d);
	if (n != 0)
		return ccs_diag_msg(d, "%s: a SQLite database that ccsim did not create (no schema version); refusing to change "
		                       "it", s->path), CCS_EDB;
	return CCS_OK;
}

/* Migrate s from schema version v to target: one transaction for all the
 * steps; BEGIN IMMEDIATE so two processes opening a new file do not both
 * migrate.  CCS_OK, or an error with d set and nothing changed. */
static int migrate(struct ccs_store *s, int v, int target, struct ccs_diag *d)
{
	int rc;
	if ((rc = ccs_store_exec(s, "BEGIN IMMEDIATE", d, "cannot start the migration")))
		return rc;
	if (user_version(s, &v) || v < 0 || v > CCS_STORE_VERSION) {
		rc = v < 0 || v > CCS_STORE_VERSION
		       ? (ccs_diag_msg(d, "%s: schema version %d changed under us to one ccsim does not write", s->path, v),
		          CCS_EDB)
		       : ccs_store_dberr(s, d, "cannot read the schema version");
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	for (; v < target; v++) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", v + 1);
		if ((rc = ccs_store_exec(s, migrations[v], d, "migration failed")) ||
		    (rc = ccs_store_exec(s, sql, d, "migration failed"))) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	return ccs_store_exec(s, "COMMIT", d, "cannot commit the migration");
}

int ccs_store_open_at(const char *path, int target, struct ccs_store **out, struct ccs_diag *d)
{
	sq_configure();
	*out = NULL;
	struct ccs_store *s = ccs_calloc(1, sizeof *s);
	if (!s)
		return CCS_ENOMEM;
	snprintf(s->path, sizeof s->path, "%s", path);
	int rc = CCS_OK;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		rc = ro_dir(s, d) ? CCS_EDB
		   : s->db        ? ccs_store_dberr(s, d, "cannot open")
		                  : (ccs_diag_msg(d, "%s: cannot open", path), CCS_EDB);
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	int v;
	if (user_version(s, &v)) {
		rc = readerr(s, d);
		goto fail;
	}
	if ((rc = vet_version(s, v, d)))
		goto fail;
	if ((rc = ccs_store_exec(s, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;", d,
	               "cannot set WAL")))
		goto fail;
	if (target > CCS_STORE_VERSION || target < 1)
		target = CCS_STORE_VERSION;
	if (v < target && (rc = migrate(s, v, target, d)))
		goto fail;
	*out = s;
	return CCS_OK;
fail:
	sqlite3_close(s->db);
	ccs_free(s);
	return rc;
}

void ccs_store_close(struct ccs_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	ccs_free(s);
}

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Binds return SQLite's code: a copy that SQLite cannot allocate fails the
 * row (the callers OR the codes together), never stores an empty value. */
static int bind_real(sqlite3_stmt *st, int i, double x)
{
	return isfinite(x) ? sqlite3_bind_double(st, i, x) : sqlite3_bind_null(st, i);
}

static int bind_text(sqlite3_stmt *st, int i, const char *x)
{
	return x && *x ? sqlite3_bind_text(st, i, x, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* A struct's fields as a statement's parameters or columns, in their
 * order, and how each binds and reads back:
 *   TEXT   char[]: bound as it is; NULL reads ""
 *   TEXT0  char[]: "" binds NULL; NULL reads ""
 *   I64    int64_t or uint64_t
 *   U64_0  uint64_t: 0 binds NULL; NULL reads 0
 *   INT    int;  INT0: 0 binds NULL, NULL reads 0
 *   REAL   double, bound as it is
 *   REALN  double: a value not finite binds NULL; NULL reads NaN
 *   ORD    int64_t: below 0 binds NULL; NULL reads -1
 * One table per struct serves its INSERT and its SELECT. */
enum { F_TEXT, F_TEXT0, F_I64, F_U64_0, F_INT, F_INT0, F_REAL, F_REALN, F_ORD };
struct field {
	int kind;
	size_t off, size;
};
#define FIELD(k, T, f) { k, offsetof(T, f), sizeof(((T *)0)->f) }

/* Fields f[0..n) of the struct at p into parameters first, first + 1, ... */
static int bind_fields(sqlite3_stmt *st, int first, const struct field *f, int n, const void *p)
{
	int e = 0;
	for (int i = 0; i < n; i++) {
		const char *x = (const char *)p + f[i].off;
		int k = first + i;
		int64_t v64;
		int vi;
		double vd;
		switch (f[i].kind) {
		case F_TEXT: e |= sqlite3_bind_text(st, k, x, -1, SQLITE_TRANSIENT); break;
		case F_TEXT0: e |= bind_text(st, k, x); break;
		case F_I64:
		case F_U64_0:
		case F_ORD:
			memcpy(&v64, x, sizeof v64);
			e |= (f[i].kind == F_U64_0 && !v64) || (f[i].kind == F_ORD && v64 < 0) ? sqlite3_bind_null(st, k)
			                                                                       : sqlite3_bind_int64(st, k, v64);
			break;
		case F_INT:
		case F_INT0:
			memcpy(&vi, x, sizeof vi);
			e |= f[i].kind == F_INT0 && !vi ? sqlite3_bind_null(st, k) : sqlite3_bind_int(st, k, vi);
			break;
		default:
			memcpy(&vd, x, sizeof vd);
			e |= f[i].kind == F_REALN ? bind_real(st, k, vd) : sqlite3_bind_double(st, k, vd);
			break;
		}
	}
	return e;
}

/* A text column into dst; SQLITE_NOMEM when SQLite could not make the text
 * of a value that is not NULL (the row must not be read as empty). */
static int col_text(sqlite3_stmt *st, int i, char *dst, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	if (!t && sqlite3_column_type(st, i) != SQLITE_NULL)
		return SQLITE_NOMEM;
	snprintf(dst, n, "%s", t ? (const char *)t : "");
	return SQLITE_OK;
}

/* Columns first, first + 1, ... into fields f[0..n) of the struct at p. */
static int fill_fields(sqlite3_stmt *st, int first, const struct field *f, int n, void *p)
{
	int e = 0;
	for (int i = 0; i < n; i++) {
		char *x = (char *)p + f[i].off;
		int k = first + i;
		int64_t v64;
		int vi;
		double vd;
		switch (f[i].kind) {
		case F_TEXT:
		case F_TEXT0:
			e |= col_text(st, k, x, f[i].size);
			break;
		case F_I64:
		case F_U64_0:
		case F_ORD:
			v64 = f[i].kind == F_ORD && sqlite3_column_type(st, k) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, k);
			memcpy(x, &v64, sizeof v64);
			break;
		case F_INT:
		case F_INT0:
			vi = sqlite3_column_int(st, k);
			memcpy(x, &vi, sizeof vi);
			break;
		default:
			vd = f[i].kind == F_REALN && sqlite3_column_type(st, k) == SQLITE_NULL ? (double)NAN
			                                                                       : sqlite3_column_double(st, k);
			memcpy(x, &vd, sizeof vd);
			break;
		}
	}
	return e;
}

static int host_id(struct ccs_store *s, const char *host, const char *created, int64_t *id, struct ccs_diag *d)
{
	const char *add[] = { host, created };
	if (ccs_store_once(s, "INSERT OR IGNORE INTO hosts(name, first_seen) VALUES(?1, ?2)", add, 2, NULL) != SQLITE_DONE)
		return ccs_store_dberr(s, d, "cannot add the host");
	if (ccs_store_once(s, "SELECT id FROM hosts WHERE name = ?1", &host, 1, id) != SQLITE_ROW)
		return ccs_store_dberr(s, d, "cannot find the host");
	return CCS_OK;
}

/* Rows 0..n of an INSERT statement, each bound by bind(st, i, ctx), inside
 * the caller's transaction.  CCS_EDB with d set (naming what) on failure. */
static int write_rows(struct ccs_store *s, const char *sql, size_t n, int (*bind)(sqlite3_stmt *, size_t, void *),
                      void *ctx, const char *what, struct ccs_diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL))
		return ccs_store_dberr(s, d, what);
	int rc = CCS_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_reset(st);
		if (bind(st, i, ctx) || sqlite3_step(st) != SQLITE_DONE)
			rc = ccs_store_dberr(s, d, what);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Commit, or roll back when rc says the writes failed. */
static int finish_tx(struct ccs_store *s, int rc, const char *what, struct ccs_diag *d)
{
	if (!rc)
		rc = ccs_store_exec(s, "COMMIT", d, what);
	if (rc)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

struct meas_rows {
	int64_t run;
	const struct ccs_meas *m;
};

/* A measurement's fields, as stored (schema 5: its flag last). */
static const struct field meas_fields[] = {
	FIELD(F_TEXT, struct ccs_meas, source),     FIELD(F_TEXT, struct ccs_meas, name),
	FIELD(F_TEXT, struct ccs_meas, cls),        FIELD(F_TEXT, struct ccs_meas, variant),
	FIELD(F_TEXT0, struct ccs_meas, devices),   FIELD(F_I64, struct ccs_meas, size),
	FIELD(F_U64_0, struct ccs_meas, iters),     FIELD(F_INT0, struct ccs_meas, ranks),
	FIELD(F_REAL, struct ccs_meas, median_s),   FIELD(F_REALN, struct ccs_meas, min_s),
	FIELD(F_REALN, struct ccs_meas, max_s),     FIELD(F_REALN, struct ccs_meas, busbw_Bps),
	FIELD(F_TEXT0, struct ccs_meas, file),      FIELD(F_INT, struct ccs_meas, line),
	FIELD(F_TEXT, struct ccs_meas, flag),
};
#define MEAS_FIELDS ((int)(sizeof meas_fields / sizeof meas_fields[0]))

/* A schema 4 database has no flag column. */
static int bind_meas_v4(sqlite3_stmt *st, size_t i, void *ctx)
{
	const struct meas_rows *w = ctx;
	return sqlite3_bind_int64(st, 1, w->run) | bind_fields(st, 2, meas_fields, MEAS_FIELDS - 1, &w->m[i]);
}

static int bind_meas(sqlite3_stmt *st, size_t i, void *ctx)
{
	const struct meas_rows *w = ctx;
	return sqlite3_bind_int64(st, 1, w->run) | bind_fields(st, 2, meas_fields, MEAS_FIELDS, &w->m[i]);
}

int ccs_store_add_run(struct ccs_store *s, struct ccs_run_info *r, const struct ccs_meas *m, size_t n,
                      struct ccs_diag *d)
{
	now_iso(r->created, sizeof r->created);
	CCS_TRY(ccs_store_exec(s, "BEGIN IMMEDIATE", d, "cannot start a transaction"));
	sqlite3_stmt *st = NULL;
	int64_t hid;
	int rc = host_id(s, r->host[0] ? r->host : "unknown", r->created, &hid, d);
	if (rc)
		goto fail;
	if (sqlite3_prepare_v2(s->db,
	                       "INSERT INTO runs(host_id, created, kind, topology, sources, versions, ccsim_version)"
	                       " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &st, NULL)) {
		rc = ccs_store_dberr(s, d, "cannot add the run");
		goto fail;
	}
	int e = sqlite3_bind_int64(st, 1, hid);
	e |= sqlite3_bind_text(st, 2, r->created, -1, SQLITE_TRANSIENT);
	e |= sqlite3_bind_text(st, 3, r->kind, -1, SQLITE_TRANSIENT);
	e |= bind_text(st, 4, r->topology);
	e |= sqlite3_bind_text(st, 5, r->sources, -1, SQLITE_TRANSIENT);
	e |= bind_text(st, 6, r->versions);
	e |= sqlite3_bind_text(st, 7, r->ccsim_version, -1, SQLITE_TRANSIENT);
	if (e || sqlite3_step(st) != SQLITE_DONE) {
		rc = ccs_store_dberr(s, d, "cannot add the run");
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	r->id = sqlite3_last_insert_rowid(s->db);
	struct meas_rows mr = { r->id, m };
	/* a store opened below version 5 (tests open old versions) has no flag
	 * column: its rows are all used ones */
	int flags = ccs_store_version(s) >= 5;
	for (size_t i = 0; i < n && !flags; i++)
		if (m[i].flag[0]) {
			ccs_diag_msg(d, "%s: schema version %d cannot keep a flagged measurement", s->path, ccs_store_version(s));
			rc = CCS_EDB;
			goto fail;
		}
	if ((rc = write_rows(s,
	                     flags ? "INSERT INTO measurements(run_id, source, name, class, variant, devices, size, iters,"
	                             " ranks, median_s, min_s, max_s, busbw_Bps, file, line, flag)"
	                             " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
	                           : "INSERT INTO measurements(run_id, source, name, class, variant, devices, size, iters,"
	                             " ranks, median_s, min_s, max_s, busbw_Bps, file, line)"
	                             " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	                     n, flags ? bind_meas : bind_meas_v4, &mr, "cannot add a measurement", d)))
		goto fail;
	if ((rc = ccs_store_exec(s, "COMMIT", d, "cannot commit the run")))
		goto fail;
	r->nmeas = (int64_t)n;
	return CCS_OK;
fail:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Rows of sql (with ?1 bound to arg when arg >= 0) into a growing array of
 * elements of size sz, each filled by fill; the caller frees *out.  On
 * failure nothing is left to free. */
static int read_rows(struct ccs_store *s, const char *sql, int64_t arg, void **out, size_t *n, size_t sz,
                     int (*fill)(sqlite3_stmt *, void *), const char *what, struct ccs_diag *d)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL))
		return ccs_store_dberr(s, d, what);
	int r = arg >= 0 ? sqlite3_bind_int64(st, 1, arg) : SQLITE_OK, rc = CCS_OK;
	size_t cap = 0;
	while (r == SQLITE_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
		if ((rc = ccs_grow(out, &cap, *n + 1, sz)))
			break;
		char *x = (char *)*out + (*n)++ * sz;
		memset(x, 0, sz);
		if (fill(st, x)) {
			rc = ccs_store_dberr(s, d, what);
			break;
		}
		r = SQLITE_OK;
	}
	if (r == SQLITE_OK)
		r = SQLITE_DONE;
	if (!rc && r != SQLITE_DONE)
		rc = ccs_store_dberr(s, d, what);
	sqlite3_finalize(st);
	if (rc) {
		ccs_free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static const struct field run_fields[] = {
	FIELD(F_I64, struct ccs_run_info, id),              FIELD(F_TEXT, struct ccs_run_info, host),
	FIELD(F_TEXT, struct ccs_run_info, created),        FIELD(F_TEXT, struct ccs_run_info, kind),
	FIELD(F_TEXT, struct ccs_run_info, topology),       FIELD(F_TEXT, struct ccs_run_info, sources),
	FIELD(F_TEXT, struct ccs_run_info, versions),       FIELD(F_TEXT, struct ccs_run_info, ccsim_version),
	FIELD(F_I64, struct ccs_run_info, nmeas),
};

static int fill_run(sqlite3_stmt *st, void *p)
{
	return fill_fields(st, 0, run_fields, (int)(sizeof run_fields / sizeof run_fields[0]), p);
}

int ccs_store_runs(struct ccs_store *s, struct ccs_run_info **out, size_t *n, struct ccs_diag *d)
{
	return read_rows(s,
	                 "SELECT r.id, h.name, r.created, r.kind, r.topology, r.sources, r.versions, r.ccsim_version,"
	                 " (SELECT count(*) FROM measurements m WHERE m.run_id = r.id)"
	                 " FROM runs r JOIN hosts h ON h.id = r.host_id ORDER BY r.id",
	                 -1, (void **)out, n, sizeof **out, fill_run, "cannot list runs", d);
}

static int fill_meas(sqlite3_stmt *st, void *p)
{
	return fill_fields(st, 0, meas_fields, MEAS_FIELDS, p);
}

int ccs_store_meas(struct ccs_store *s, int64_t run, int flagged, struct ccs_meas **out, size_t *n,
                   struct ccs_diag *d)
{
	return read_rows(s,
	                 flagged ? "SELECT source, name, class, variant, devices, size, iters, ranks, median_s, min_s, max_s,"
	                           " busbw_Bps, file, line, flag FROM measurements WHERE run_id = ?1 ORDER BY id"
	                         : "SELECT source, name, class, variant, devices, size, iters, ranks, median_s, min_s, max_s,"
	                           " busbw_Bps, file, line, flag FROM measurements WHERE run_id = ?1 AND flag = ''"
	                           " ORDER BY id",
	                 run, (void **)out, n, sizeof **out, fill_meas, "cannot read measurements", d);
}

struct fit_rows {
	int64_t run, batch;
	const char *created;
	const struct ccs_fit *f;
};

static const struct field fit_fields[] = {
	FIELD(F_TEXT, struct ccs_fit, cls),         FIELD(F_TEXT, struct ccs_fit, name),
	FIELD(F_I64, struct ccs_fit, lo),           FIELD(F_I64, struct ccs_fit, hi),
	FIELD(F_REAL, struct ccs_fit, alpha_s),     FIELD(F_REALN, struct ccs_fit, alpha_lo),
	FIELD(F_REALN, struct ccs_fit, alpha_hi),   FIELD(F_REAL, struct ccs_fit, beta_spB),
	FIELD(F_REALN, struct ccs_fit, beta_lo),    FIELD(F_REALN, struct ccs_fit, beta_hi),
	FIELD(F_REALN, struct ccs_fit, r2),         FIELD(F_REALN, struct ccs_fit, rms),
	FIELD(F_INT, struct ccs_fit, n),
};
#define FIT_FIELDS ((int)(sizeof fit_fields / sizeof fit_fields[0]))

static int bind_fit(sqlite3_stmt *st, size_t i, void *ctx)
{
	const struct fit_rows *w = ctx;
	int e = sqlite3_bind_int64(st, 1, w->run);
	e |= sqlite3_bind_text(st, 2, w->created, -1, SQLITE_TRANSIENT);
	e |= bind_fields(st, 3, fit_fields, FIT_FIELDS, &w->f[i]);
	return e | sqlite3_bind_int64(st, 16, w->batch);
}

int ccs_store_add_fits(struct ccs_store *s, int64_t run, const struct ccs_fit *f, size_t n, struct ccs_diag *d)
{
	char created[32];
	now_iso(created, sizeof created);
	CCS_TRY(ccs_store_exec(s, "BEGIN IMMEDIATE", d, "cannot start a transaction"));
	struct fit_rows w = { run, 1, created, f };
	ccs_store_once(s, "SELECT coalesce(max(batch), 0) + 1 FROM fits", NULL, 0, &w.batch);
	int rc = write_rows(s,
	                    "INSERT INTO fits(run_id, batch, created, class, name, lo, hi, alpha_s, alpha_lo, alpha_hi,"
	                    " beta_spB, beta_lo, beta_hi, r2, rms, n)"
	                    " VALUES(?1, ?16, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	                    n, bind_fit, &w, "cannot add a fit", d);
	return finish_tx(s, rc, "cannot commit the fits", d);
}

static int fill_fit(sqlite3_stmt *st, void *p)
{
	return fill_fields(st, 0, fit_fields, FIT_FIELDS, p);
}

int ccs_store_fits(struct ccs_store *s, int64_t run, struct ccs_fit **out, size_t *n, struct ccs_diag *d)
{
	/* the newest batch of fits for the run */
	return read_rows(s,
	                 "SELECT class, name, lo, hi, alpha_s, alpha_lo, alpha_hi, beta_spB, beta_lo, beta_hi, r2, rms, n"
	                 " FROM fits WHERE run_id = ?1 AND batch = (SELECT max(batch) FROM fits WHERE run_id = ?1)"
	                 " ORDER BY id",
	                 run, (void **)out, n, sizeof **out, fill_fit, "cannot read fits", d);
}

int ccs_store_check(struct ccs_store *s, struct ccs_diag *d)
{
	char t[512];
	int r = pragma_ok(s, "PRAGMA integrity_check", t, sizeof t);
	if (r < 0)
		return ccs_store_dberr(s, d, "integrity check failed");
	if (r)
		return ccs_diag_msg(d, "%s: integrity check: %s", s->path, t), CCS_EDB;
	return CCS_OK;
}

/* ---- scenario results ---- */

int ccs_store_scenario(struct ccs_store *s, const char *name, const char *path, const char *hash,
                       const char *version, int64_t *id, struct ccs_diag *d)
{
	char created[32];
	now_iso(created, sizeof created);
	const char *add[] = { name, path && *path ? path : NULL, hash, version, created };
	if (ccs_store_once(s, "INSERT OR IGNORE INTO scenarios(name, path, hash, ccsim_version, created)"
	                      " VALUES(?1, ?2, ?3, ?4, ?5)", add, 5, NULL) != SQLITE_DONE)
		return ccs_store_dberr(s, d, "cannot add the scenario");
	const char *key[] = { hash, version };
	if (ccs_store_once(s, "SELECT id FROM scenarios WHERE hash = ?1 AND ccsim_version = ?2", key, 2, id) != SQLITE_ROW)
		return ccs_store_dberr(s, d, "cannot find the scenario");
	return CCS_OK;
}

struct result_rows {
	int64_t scenario;
	const char *created;
	const struct ccs_result *r;
};

/* A result's fields as stored, its place in the points (ord) apart: the
 * INSERT binds the time it was made between them. */
static const struct field result_fields[] = {
	FIELD(F_TEXT, struct ccs_result, point),          FIELD(F_TEXT, struct ccs_result, topo_hash),
	FIELD(F_TEXT, struct ccs_result, design),         FIELD(F_TEXT, struct ccs_result, workload),
	FIELD(F_TEXT, struct ccs_result, axes),           FIELD(F_INT, struct ccs_result, ranks),
	FIELD(F_TEXT0, struct ccs_result, collective),    FIELD(F_TEXT0, struct ccs_result, algo),
	FIELD(F_I64, struct ccs_result, size),            FIELD(F_REALN, struct ccs_result, t_model_s),
	FIELD(F_REALN, struct ccs_result, t_sim_s),       FIELD(F_REALN, struct ccs_result, bw_model_Bps),
	FIELD(F_REALN, struct ccs_result, bw_sim_Bps),    FIELD(F_REALN, struct ccs_result, lat_s),
	FIELD(F_REALN, struct ccs_result, bwterm_s),      FIELD(F_REALN, struct ccs_result, step_s),
	FIELD(F_TEXT0, struct ccs_result, bound),
};
#define RESULT_FIELDS ((int)(sizeof result_fields / sizeof result_fields[0]))
static const struct field result_ord = FIELD(F_ORD, struct ccs_result, ord);

static int bind_result(sqlite3_stmt *st, size_t i, void *ctx)
{
	const struct result_rows *w = ctx;
	int e = sqlite3_bind_int64(st, 1, w->scenario);
	e |= bind_fields(st, 2, result_fields, RESULT_FIELDS, &w->r[i]);
	e |= sqlite3_bind_text(st, 2 + RESULT_FIELDS, w->created, -1, SQLITE_TRANSIENT);
	return e | bind_fields(st, 3 + RESULT_FIELDS, &result_ord, 1, &w->r[i]);
}

int ccs_store_add_results(struct ccs_store *s, int64_t scenario, const struct ccs_result *r, size_t n,
                          struct ccs_diag *d)
{
	char created[32];
	now_iso(created, sizeof created);
	CCS_TRY(ccs_store_exec(s, "BEGIN IMMEDIATE", d, "cannot start a transaction"));
	struct result_rows w = { scenario, created, r };
	/* a point another run stored meanwhile is kept as it is */
	int rc = write_rows(s,
	                    "INSERT OR IGNORE INTO results(scenario_id, point, topo_hash, design, workload, axes, ranks,"
	                    " collective, algo, size, t_model_s, t_sim_s, bw_model_Bps, bw_sim_Bps, lat_s, bwterm_s,"
	                    " step_s, bound, created, ord) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	                    " ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	                    n, bind_result, &w, "cannot add a result", d);
	return finish_tx(s, rc, "cannot commit results", d);
}

static int fill_result(sqlite3_stmt *st, void *p)
{
	return fill_fields(st, 0, result_fields, RESULT_FIELDS, p) | fill_fields(st, RESULT_FIELDS, &result_ord, 1, p);
}

int ccs_store_results(struct ccs_store *s, int64_t scenario, struct ccs_result **out, size_t *n, struct ccs_diag *d)
{
	return read_rows(s,
	                 "SELECT point, topo_hash, design, workload, axes, ranks, collective, algo, size, t_model_s,"
	                 " t_sim_s, bw_model_Bps, bw_sim_Bps, lat_s, bwterm_s, step_s, bound, ord FROM results"
	                 " WHERE scenario_id = ?1 ORDER BY ord IS NULL, ord, id",
	                 scenario, (void **)out, n, sizeof **out, fill_result, "cannot read results", d);
}

static const struct field scen_fields[] = {
	FIELD(F_I64, struct ccs_scenario_info, id),               FIELD(F_TEXT, struct ccs_scenario_info, name),
	FIELD(F_TEXT, struct ccs_scenario_info, path),            FIELD(F_TEXT, struct ccs_scenario_info, hash),
	FIELD(F_TEXT, struct ccs_scenario_info, ccsim_version),   FIELD(F_TEXT, struct ccs_scenario_info, created),
	FIELD(F_I64, struct ccs_scenario_info, nresults),
};

static int fill_scen(sqlite3_stmt *st, void *p)
{
	return fill_fields(st, 0, scen_fields, (int)(sizeof scen_fields / sizeof scen_fields[0]), p);
}

int ccs_store_scenarios(struct ccs_store *s, struct ccs_scenario_info **out, size_t *n, struct ccs_diag *d)
{
	return read_rows(s,
	                 "SELECT c.id, c.name, c.path, c.hash, c.ccsim_version, c.created,"
	                 " (SELECT count(*) FROM results r WHERE r.scenario_id = c.id) FROM scenarios c ORDER BY c.id",
	                 -1, (void **)out, n, sizeof **out, fill_scen, "cannot list scenarios", d);
}
