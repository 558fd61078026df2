/*
** tests/unit/test_store.c: calibrate/store.h on files in a scratch folder,
** each read back field by field: a new database at the current schema
** version, a run with its measurements (a flagged one kept out unless
** asked for, NaN min/max kept), fits (the newest batch per piece),
** scenario results (a point stored twice kept once, NaN engines kept), the
** same after closing and opening again, integrity checked; refused: a
** SQLite file ccsim did not create, a newer schema, a file that is not a
** database, each with the path in its message and nothing changed.
*/
#define _DEFAULT_SOURCE 1
#include "../check.h"

#include "../../calibrate/ingest.h"
#include "../../calibrate/fit.h"
#include "../../calibrate/store.h"
#include "../../calibrate/store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void at(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

static struct ccs_meas meas(const char *name, uint64_t size, double t, const char *flag)
{
	struct ccs_meas m;
	memset(&m, 0, sizeof m);
	snprintf(m.source, sizeof m.source, "nccl-tests");
	snprintf(m.name, sizeof m.name, "%s", name);
	snprintf(m.cls, sizeof m.cls, "nccl");
	snprintf(m.variant, sizeof m.variant, "oop float");
	m.size = size;
	m.iters = 20;
	m.ranks = 16;
	m.nodes = 2;
	m.median_s = t;
	m.min_s = NAN;
	m.max_s = t * 1.1;
	m.busbw_Bps = NAN;
	m.line = 40;
	snprintf(m.file, sizeof m.file, "all_reduce.log");
	snprintf(m.flag, sizeof m.flag, "%s", flag);
	return m;
}

static void test_runs_fits(void)
{
	char path[128];
	at(path, sizeof path, "a.db");
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s = NULL;
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	CHECK(ccs_store_version(s) == CCS_STORE_VERSION);
	struct ccs_meas m[3] = { meas("allreduce", 1 << 20, 50e-6, ""), meas("allreduce", 1 << 30, 5e-3, ""),
		                 meas("allreduce", 8, 40e-6, "busbw and time disagree") };
	struct ccs_run_info r;
	memset(&r, 0, sizeof r);
	snprintf(r.host, sizeof r.host, "node7");
	snprintf(r.kind, sizeof r.kind, "ingest");
	snprintf(r.topology, sizeof r.topology, "topologies/hgx-h100-cluster.yaml");
	CHECK(ccs_store_add_run(s, &r, m, 3, &d) == CCS_OK && r.id > 0 && r.nmeas == 3);
	struct ccs_meas *got = NULL;
	size_t n = 0;
	CHECK(ccs_store_meas(s, r.id, 0, &got, &n, &d) == CCS_OK && n == 2);
	CHECK(got && got[1].size == 1u << 30 && got[1].median_s == 5e-3 && isnan(got[1].min_s));
	CHECK(got && got[0].ranks == 16 && !strcmp(got[0].variant, "oop float"));
	ccs_free(got);
	CHECK(ccs_store_meas(s, r.id, 1, &got, &n, &d) == CCS_OK && n == 3 && !strcmp(got[2].flag, m[2].flag));
	ccs_free(got);
	/* fits: two batches of the same piece, the newest read back */
	struct ccs_fit f;
	memset(&f, 0, sizeof f);
	snprintf(f.cls, sizeof f.cls, "nccl");
	snprintf(f.name, sizeof f.name, "allreduce");
	f.lo = 1;
	f.hi = 1ull << 30;
	f.alpha_s = 10e-6;
	f.beta_spB = 1e-11;
	f.n = 9;
	CHECK(ccs_store_add_fits(s, r.id, &f, 1, &d) == CCS_OK);
	f.alpha_s = 12e-6;
	CHECK(ccs_store_add_fits(s, r.id, &f, 1, &d) == CCS_OK);
	struct ccs_fit *fits = NULL;
	CHECK(ccs_store_fits(s, r.id, &fits, &n, &d) == CCS_OK && n == 1 && fits[0].alpha_s == 12e-6);
	ccs_free(fits);
	/* one statement run once: a row, no row, a bad statement */
	int64_t x = 0;
	const char *host = "node7", *none = "node8";
	CHECK(ccs_store_once(s, "SELECT count(*) FROM hosts WHERE name = ?1", &host, 1, &x) == SQLITE_ROW && x == 1);
	CHECK(ccs_store_once(s, "SELECT id FROM hosts WHERE name = ?1", &none, 1, &x) == SQLITE_DONE);
	CHECK(ccs_store_once(s, "SELEC nonsense", NULL, 0, &x) != SQLITE_ROW);
	CHECK(ccs_store_check(s, &d) == CCS_OK);
	ccs_store_close(s);
	/* again, from the file */
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	struct ccs_run_info *runs = NULL;
	CHECK(ccs_store_runs(s, &runs, &n, &d) == CCS_OK && n == 1);
	CHECK(runs && !strcmp(runs[0].host, "node7") && runs[0].nmeas == 3 && !strcmp(runs[0].kind, "ingest"));
	ccs_free(runs);
	ccs_store_close(s);
}

static void test_results(void)
{
	char path[128];
	at(path, sizeof path, "b.db");
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s = NULL;
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	int64_t sc = 0, sc2 = 0;
	CHECK(ccs_store_scenario(s, "sweep", "", "abc123", "1.0", &sc, &d) == CCS_OK && sc > 0);
	CHECK(ccs_store_scenario(s, "sweep", "scenarios/x.yaml", "abc123", "1.0", &sc2, &d) == CCS_OK && sc2 == sc);
	struct ccs_result r[2];
	memset(r, 0, sizeof r);
	for (int i = 0; i < 2; i++) {
		snprintf(r[i].point, sizeof r[i].point, "design=a,size=%d", i);
		snprintf(r[i].topo_hash, sizeof r[i].topo_hash, "t1");
		snprintf(r[i].collective, sizeof r[i].collective, "allreduce");
		r[i].ranks = 16;
		r[i].size = 1ull << (20 + i);
		r[i].t_model_s = 1e-4 * (i + 1);
		r[i].t_sim_s = i ? (double)NAN : 1.1e-4;
		r[i].ord = i;
	}
	CHECK(ccs_store_add_results(s, sc, r, 2, &d) == CCS_OK);
	CHECK(ccs_store_add_results(s, sc, r, 1, &d) == CCS_OK);   /* stored already: kept once */
	struct ccs_result *got = NULL;
	size_t n = 0;
	CHECK(ccs_store_results(s, sc, &got, &n, &d) == CCS_OK && n == 2);
	CHECK(got && got[1].size == 1u << 21 && isnan(got[1].t_sim_s) && got[0].t_sim_s == 1.1e-4);
	ccs_free(got);
	struct ccs_scenario_info *info = NULL;
	CHECK(ccs_store_scenarios(s, &info, &n, &d) == CCS_OK && n == 1 && info[0].nresults == 2);
	CHECK(info && !strcmp(info[0].name, "sweep") && !strcmp(info[0].hash, "abc123"));
	ccs_free(info);
	ccs_store_close(s);
}

/* path's bytes, NULL when unreadable (the caller frees). */
static char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)*len + 1);
	if (b && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static void refused(const char *name, const char *what)
{
	char path[128];
	at(path, sizeof path, name);
	long l0 = 0, l1 = 0;
	char *before = slurp(path, &l0);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s = NULL;
	int rc = ccs_store_open(path, &s, &d);
	CHECK(rc != CCS_OK && s == NULL);
	CHECK(strstr(d.msg, path) != NULL && strstr(d.msg, what) != NULL);
	if (rc == CCS_OK || !strstr(d.msg, what))
		fprintf(stderr, "%s: %s\n", name, d.msg);
	char *after = slurp(path, &l1);
	CHECK(before && after && l0 == l1 && !memcmp(before, after, (size_t)l0));
	free(before);
	free(after);
}

static void test_refused(void)
{
	char path[128];
	/* somebody else's database */
	at(path, sizeof path, "other.db");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	refused("other.db", "did not create");
	/* a newer schema than this ccsim */
	at(path, sizeof path, "newer.db");
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", CCS_STORE_VERSION + 1);
	CHECK(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	refused("newer.db", "newer");
	/* not a database at all */
	at(path, sizeof path, "text.db");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("size count type\n1024 256 float\n", f);
		fclose(f);
	}
	refused("text.db", "text.db");
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/ccsim-test-store-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_runs_fits();
	test_results();
	test_refused();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return CHECK_DONE("test_store");
}
