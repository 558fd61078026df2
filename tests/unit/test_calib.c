/* tests/unit/test_calib.c: fits (synthetic data with known parameters, real
 * logs), ccsim-bench logs, the SQLite store (migrations, append-only runs,
 * interrupted writers), and calibration files changing predictions. */
#define _DEFAULT_SOURCE
#include "../check.h"
#include "fixture.h"

#include "../../calibrate/calib.h"
#include "../../calibrate/fit.h"
#include "../../calibrate/ingest.h"
#include "../../calibrate/store.h"
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static double gauss(void)
{
	double u = fx_urand(), v = fx_urand();
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Sizes 8 B .. 1 GiB by 2 (28 points), t = alpha + n / bw, x (1 + sigma N). */
static size_t synth(double alpha, double bw, double sigma, double *n, double *t)
{
	size_t m = 0;
	for (double s = 8; s <= 1073741824.0; s *= 2, m++) {
		n[m] = s;
		t[m] = (alpha + s / bw) * (1 + sigma * gauss());
	}
	return m;
}

static void test_line_recovery(void)
{
	/* 40 seeded sweeps, 1% noise: the estimates land near the truth and
	 * the 95% intervals cover it in most of them */
	const double alpha = 2.5e-6, bw = 48e9;
	int cover_a = 0, cover_b = 0, near = 0, runs = 40;
	for (int r = 0; r < runs; r++) {
		fx_rng = 0x9E3779B97F4A7C15ull * (uint64_t)(r + 1);
		double n[40], t[40];
		size_t m = synth(alpha, bw, 0.01, n, t);
		struct ccs_fit f;
		memset(&f, 0, sizeof f);
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		CHECK(ccs_fit_line(n, t, m, &f, NULL, &d) == CCS_OK);
		cover_a += f.alpha_lo <= alpha && alpha <= f.alpha_hi;
		cover_b += f.beta_lo <= 1 / bw && 1 / bw <= f.beta_hi;
		near += fabs(f.alpha_s / alpha - 1) < 0.02 && fabs(f.beta_spB * bw - 1) < 0.02;
		if (r == 0) {
			CHECK(f.n == (int)m);
			CHECK(f.r2 > 0.999);
			CHECK(f.rms < 0.02);
			CHECK(f.lo == 8 && f.hi == 1073741824ull);
		}
	}
	if (cover_a < 34 || cover_b < 34 || near < 38)
		fprintf(stderr, "coverage alpha %d/%d, beta %d/%d, within 2%% %d/%d\n", cover_a, runs, cover_b, runs, near,
		        runs);
	CHECK(cover_a >= 34);   /* 95% nominal: 38 expected; 34 or more */
	CHECK(cover_b >= 34);
	CHECK(near >= 38);
}

static void test_outliers(void)
{
	/* three preempted iterations (x3) barely move the robust line */
	fx_rng = 12345;
	double n[40], t[40];
	size_t m = synth(1e-6, 20e9, 0.005, n, t);
	t[5] *= 3;
	t[14] *= 3;
	t[25] *= 3;
	struct ccs_fit f;
	memset(&f, 0, sizeof f);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	double res[40];
	CHECK(ccs_fit_line(n, t, m, &f, res, &d) == CCS_OK);
	CHECK_NEAR(f.alpha_s, 1e-6, 0.03);
	CHECK_NEAR(1 / f.beta_spB, 20e9, 0.03);
	CHECK(f.alpha_lo <= 1e-6 && 1e-6 <= f.alpha_hi);
	CHECK(f.beta_lo <= 1 / 20e9 && 1 / 20e9 <= f.beta_hi);
	CHECK(res[5] > 0.5 && res[14] > 0.5 && res[25] > 0.5);   /* the outliers stand out in the residuals */
}

static void test_pieces(void)
{
	/* LL below 64 KiB (1 us, 20 GB/s) and Simple above (8 us, 45 GB/s) */
	fx_rng = 777;
	double n[40], t[40];
	size_t m = 0;
	for (double s = 8; s <= 1073741824.0; s *= 2, m++) {
		n[m] = s;
		t[m] = (s <= 65536 ? 1e-6 + s / 20e9 : 8e-6 + s / 45e9) * (1 + 0.005 * gauss());
	}
	struct ccs_fit f[3];
	memset(f, 0, sizeof f);
	snprintf(f[0].cls, sizeof f[0].cls, "nccl");
	snprintf(f[0].name, sizeof f[0].name, "synthetic");
	int np = 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_fit_pieces(n, t, m, 3, f, &np, &d) == CCS_OK);
	CHECK(np == 2);
	if (np == 2) {
		CHECK(f[0].hi == 65536 && f[1].lo == 131072);
		CHECK(f[0].alpha_lo <= 1e-6 && 1e-6 <= f[0].alpha_hi);
		CHECK(f[0].beta_lo <= 1 / 20e9 && 1 / 20e9 <= f[0].beta_hi);
		CHECK(f[1].alpha_lo <= 8e-6 && 8e-6 <= f[1].alpha_hi);
		CHECK(f[1].beta_lo <= 1 / 45e9 && 1 / 45e9 <= f[1].beta_hi);
		CHECK(!strcmp(f[1].name, "synthetic"));
	}
	/* one straight line stays one piece */
	m = synth(3e-6, 100e9, 0.005, n, t);
	CHECK(ccs_fit_pieces(n, t, m, 3, f, &np, &d) == CCS_OK);
	CHECK(np == 1);
	/* too few points, one size only */
	double n2[2] = { 8, 16 }, t2[2] = { 1e-6, 1.1e-6 };
	memset(&d, 0, sizeof d);
	CHECK(ccs_fit_line(n2, t2, 2, f, NULL, &d) == CCS_EFIT && d.set && strstr(d.msg, "2 points"));
	double n3[4] = { 64, 64, 64, 64 }, t3[4] = { 1e-6, 1.1e-6, 1e-6, 1.2e-6 };
	memset(&d, 0, sizeof d);
	CHECK(ccs_fit_line(n3, t3, 4, f, NULL, &d) == CCS_EFIT && d.set && strstr(d.msg, "same size"));
}

static void test_real_logs(void)
{
	/* the H100 sweep: LL/LL128 at small sizes, then a bandwidth piece */
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file("tests/data/calib/all_reduce_perf-h100x8-mooncake.log", &set, &d) == CCS_OK);
	CHECK(set.n == 22);
	CHECK(set.n && set.m[0].ranks == 8);    /* from busbw / algbw = 1.75 */
	struct ccs_fit *f = NULL;
	size_t nf = 0;
	CHECK(ccs_calib_fits(set.m, set.n, &f, &nf) == CCS_OK);
	CHECK(nf >= 1 && nf <= 3);
	if (nf) {
		/* the last piece's bandwidth: 32 MiB in 195.4 us with ~31 us fixed,
		 * between 150 and 250 GB/s of algbw; a fixed cost of 10-40 us */
		CHECK(1 / f[nf - 1].beta_spB > 150e9 && 1 / f[nf - 1].beta_spB < 250e9);
		CHECK(f[0].alpha_s > 10e-6 && f[0].alpha_s < 40e-6);
		CHECK(!strcmp(f[0].name, "allreduce/8"));
	}
	ccs_free(f);
	ccs_meas_set_release(&set);
	/* the GB200 NVL72 rows: 72 ranks from the Rank line */
	memset(&set, 0, sizeof set);
	CHECK(ccs_ingest_file("tests/data/calib/all_reduce_perf-gb200-nvl72.log", &set, &d) == CCS_OK);
	CHECK(set.n == 10 && set.m[0].ranks == 72);
	CHECK(ccs_calib_fits(set.m, set.n, &f, &nf) == CCS_OK);
	CHECK(nf == 1);
	if (nf == 1)
		CHECK(1 / f[0].beta_spB > 400e9 && 1 / f[0].beta_spB < 480e9 && f[0].r2 > 0.999);
	ccs_free(f);
	/* perftest, with the nccl log in one set: both kinds fitted apart */
	CHECK(ccs_ingest_file("tests/data/calib/perftest-write-bw-sweep.log", &set, &d) == CCS_OK);
	CHECK(set.n == 13 && !strcmp(set.m[12].name, "rdma_write_bw") && !strcmp(set.m[12].cls, "ib"));
	CHECK(ccs_calib_fits(set.m, set.n, &f, &nf) == CCS_OK);
	CHECK(nf == 2);
	ccs_free(f);
	/* the truncated quote keeps its 10 whole rows (an allreduce by its
	 * columns: busbw over size / time 1.75 at 2 KiB) and warns of the cut
	 * one at its line */
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file("tests/data/calib/bad-nt-truncated-h20.log", &set, &d) == CCS_OK);
	CHECK(set.n == 33 && !strcmp(set.m[13].name, "allreduce") && set.nwarn >= 1);
	CHECK(set.nwarn >= 1 && strstr(set.warn[set.nwarn - 1], "bad-nt-truncated-h20.log:12:") &&
	      strstr(set.warn[set.nwarn - 1], "the log ends inside this row"));
	/* numbers that contradict themselves, in two srun tasks' interleaved
	 * copies of one table: each repeated row kept once (4 dropped), and
	 * the #wrong half, the 1e-30 us half and the busbw 100x algbw half
	 * stored with a flag (3, counted once each after the duplicates go):
	 * the other five halves are used measurements */
	ccs_meas_set_release(&set);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file("tests/data/calib/bad-nt-contradict.log", &set, &d) == CCS_OK);
	size_t nflag = 0;
	for (size_t i = 0; i < set.n; i++)
		nflag += set.m[i].flag[0] != 0;
	CHECK(set.n == 8 && nflag == 3);
	int saw_bad = 0, saw_dup = 0;
	for (size_t i = 0; i < set.nwarn; i++) {
		saw_bad |= strstr(set.warn[i], "bad-nt-contradict.log:18:1: 3 row half(s) whose numbers contradict themselves") &&
		           strstr(set.warn[i], "nccl-tests counted 3 wrong results");
		saw_dup |= strstr(set.warn[i], "bad-nt-contradict.log:17:1: 4 row(s) repeat an earlier row") != NULL;
	}
	CHECK(saw_bad && saw_dup);
	for (size_t i = 0; i < set.n; i++)
		CHECK(set.m[i].flag[0] || (set.m[i].median_s > 1e-6 && set.m[i].busbw_Bps < 200e9));
	/* a file of no known kind */
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_file("tests/data/calib/README.md", &set, &d) == CCS_EINPUT);
	CHECK(d.set && strstr(d.msg, "README.md:1:1: not a nccl-tests, perftest, ccsim-bench or ccsim-profiler log"));
	ccs_meas_set_release(&set);
}

static void test_bench_log(void)
{
	const char *log =
		"# ccsim-bench 1\n"
		"# host: dgx-a\n"
		"# driver: 550.54.15\n"
		"# runtime: 12040\n"
		"name=launch class=gpu size=0 iters=1000 median=2.1 min=2.0 max=3.5 unit=us devices=0\n"
		"name=h2d class=pcie size=1048576 iters=50 median=4.1e-05 min=4.0e-05 max=4.6e-05 unit=s devices=0\n"
		"name=h2d class=pcie size=2097152 iters=50 median 7.9e-05 unit=s\n"       /* garbled */
		"name=h2d class=pcie size=4194304 iters=50 median=1.6e-04 unit=parsec\n"  /* bad unit */
		"name=h2d class=pcie size=8388608 iters=50 median=3.2e-04 min=3.3e-04 unit=s\n" /* min > median */
		"name=h2d class=pcie size=16777216 iters=50 medi";                         /* cut short */
	struct ccs_bl_log l;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_bl_parse("b.log", log, strlen(log), &l, &d) == CCS_OK);
	CHECK(l.nrec == 2);
	CHECK(l.nwarn == 4);
	if (l.nwarn == 4) {
		CHECK(!strcmp(l.warn[0], "b.log:7:43: expected key=value, got 'median'; record skipped"));
		CHECK(strstr(l.warn[1], "b.log:8:") && strstr(l.warn[1], "unknown time unit 'parsec'"));
		CHECK(strstr(l.warn[2], "b.log:9:") && strstr(l.warn[2], "outside [min, max]"));
		CHECK(strstr(l.warn[3], "b.log:10:") && strstr(l.warn[3], "expected key=value, got 'medi'"));
	}
	CHECK(!strcmp(l.host, "dgx-a") && !strcmp(l.versions, "driver=550.54.15 runtime=12040"));
	CHECK(l.nrec && l.rec[0].median_s == 2.1e-6 && l.rec[0].max_s == 3.5e-6 && l.rec[0].line == 5);
	ccs_bl_release(&l);
	/* no magic line; a newer version; nothing usable */
	memset(&d, 0, sizeof d);
	CHECK(ccs_bl_parse("c.log", "name=x size=1 iters=1 median=1 unit=s\n", 38, &l, &d) == CCS_EINPUT);
	memset(&d, 0, sizeof d);
	const char *v2 = "# ccsim-bench 2\nname=x size=1 iters=1 median=1 unit=s\n";
	CHECK(ccs_bl_parse("d.log", v2, strlen(v2), &l, &d) == CCS_EINPUT && strstr(d.msg, "d.log:1:15: ccsim-bench log version '2'"));
	memset(&d, 0, sizeof d);
	const char *none = "# ccsim-bench 1\nname=x size=1\n";
	CHECK(ccs_bl_parse("e.log", none, strlen(none), &l, &d) == CCS_EINPUT && strstr(d.msg, "no usable ccsim-bench record"));
	/* through ingest: kind detected, class kept, warnings carried */
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_log_kind(log, strlen(log)) == CCS_LOG_BENCH);
	CHECK(ccs_ingest_text("b.log", log, strlen(log), &set, &d) == CCS_OK);
	CHECK(set.n == 2 && set.nwarn == 4 && !strcmp(set.m[1].cls, "pcie") && !strcmp(set.m[1].source, "bench"));
	CHECK(!strcmp(set.host, "dgx-a"));
	ccs_meas_set_release(&set);
}

static void run_info(struct ccs_run_info *r, const char *host)
{
	memset(r, 0, sizeof *r);
	snprintf(r->host, sizeof r->host, "%s", host);
	snprintf(r->kind, sizeof r->kind, "ingest");
	snprintf(r->sources, sizeof r->sources, "test");
	snprintf(r->ccsim_version, sizeof r->ccsim_version, "test");
}

static void fill_meas(struct ccs_meas *m, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		memset(&m[i], 0, sizeof m[i]);
		snprintf(m[i].source, sizeof m[i].source, "bench");
		snprintf(m[i].name, sizeof m[i].name, "h2d");
		snprintf(m[i].cls, sizeof m[i].cls, "pcie");
		m[i].size = 1024ull << (i % 20);
		m[i].iters = 10;
		m[i].median_s = (2e-6 + (double)m[i].size / 25e9) * scale;
		m[i].min_s = m[i].max_s = m[i].busbw_Bps = NAN;
	}
}

/* Writers killed mid-run leave each run whole or absent (the database at
 * path, made by test_store). */
static void test_store_writers(const char *path)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s = NULL;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	/* writers killed mid-run: each run is there whole or not at all */
	int killed = 0;
	for (int k = 0; k < 6; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			struct ccs_store *cs;
			struct ccs_diag cd;
			memset(&cd, 0, sizeof cd);
			if (ccs_store_open(path, &cs, &cd))
				_exit(3);
			static struct ccs_meas big[20000];
			fill_meas(big, 20000, 1.0 + k);
			for (;;) {
				struct ccs_run_info cr;
				run_info(&cr, "dgx-b");
				if (ccs_store_add_run(cs, &cr, big, 20000, &cd))
					_exit(4);
			}
		}
		usleep(20000u + 15000u * (unsigned)k);
		kill(pid, SIGKILL);
		int st;
		waitpid(pid, &st, 0);
		killed += WIFSIGNALED(st);
	}
	CHECK(killed == 6);
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	CHECK(ccs_store_check(s, &d) == CCS_OK);
	CHECK(ccs_store_runs(s, &runs, &nr, &d) == CCS_OK);
	int whole = 1;
	for (size_t i = 1; i < nr; i++)
		whole &= runs[i].nmeas == 20000;
	CHECK(whole);
	ccs_free(runs);
	ccs_store_close(s);

}

/* Two writers at once lose nothing (the database at path). */
static void test_store_concurrent(const char *path)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s = NULL;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	/* two writers at once lose nothing */
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	CHECK(ccs_store_runs(s, &runs, &nr, &d) == CCS_OK);
	size_t before = nr;
	ccs_free(runs);
	ccs_store_close(s);
	pid_t w[2];
	for (int k = 0; k < 2; k++)
		if ((w[k] = fork()) == 0) {
			struct ccs_store *cs;
			struct ccs_diag cd;
			memset(&cd, 0, sizeof cd);
			if (ccs_store_open(path, &cs, &cd))
				_exit(3);
			struct ccs_meas mm[200];
			fill_meas(mm, 200, 1);
			for (int i = 0; i < 25; i++) {
				struct ccs_run_info cr;
				run_info(&cr, k ? "writer-1" : "writer-0");
				if (ccs_store_add_run(cs, &cr, mm, 200, &cd)) {
					fprintf(stderr, "%s\n", cd.msg);
					_exit(4);
				}
			}
			ccs_store_close(cs);
			_exit(0);
		}
	int ok = 1;
	for (int k = 0; k < 2; k++) {
		int st;
		waitpid(w[k], &st, 0);
		ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	CHECK(ok);
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	CHECK(ccs_store_runs(s, &runs, &nr, &d) == CCS_OK && nr == before + 50);
	ccs_free(runs);
	CHECK(ccs_store_check(s, &d) == CCS_OK);
	ccs_store_close(s);
}

static void test_store(void)
{
	char dir[] = "/tmp/ccsim-test-store-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[128];
	snprintf(path, sizeof path, "%s/h.db", dir);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	/* a version-1 database with one run, then opened by this ccsim */
	struct ccs_store *s = NULL;
	CHECK(ccs_store_open_at(path, 1, &s, &d) == CCS_OK);
	CHECK(s && ccs_store_version(s) == 1);
	struct ccs_meas m[40];
	fill_meas(m, 40, 1);
	struct ccs_run_info r;
	run_info(&r, "dgx-a");
	CHECK(ccs_store_add_run(s, &r, m, 40, &d) == CCS_OK && r.id == 1);
	ccs_store_close(s);
	CHECK(ccs_store_open(path, &s, &d) == CCS_OK);
	CHECK(ccs_store_version(s) == CCS_STORE_VERSION);
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	CHECK(ccs_store_runs(s, &runs, &nr, &d) == CCS_OK && nr == 1 && runs[0].nmeas == 40);
	CHECK(nr && !strcmp(runs[0].host, "dgx-a"));
	ccs_free(runs);
	/* round trip of the measurements, NaN as NULL */
	struct ccs_meas *back = NULL;
	size_t nb = 0;
	CHECK(ccs_store_meas(s, 1, 0, &back, &nb, &d) == CCS_OK && nb == 40);
	CHECK(nb == 40 && back[7].size == m[7].size && back[7].median_s == m[7].median_s && isnan(back[7].min_s));
	ccs_free(back);
	/* fits: the newest batch comes back */
	struct ccs_fit f[2];
	memset(f, 0, sizeof f);
	snprintf(f[0].cls, sizeof f[0].cls, "pcie");
	snprintf(f[0].name, sizeof f[0].name, "h2d");
	f[0].alpha_s = 2e-6;
	f[0].beta_spB = 1 / 25e9;
	f[0].n = 40;
	f[1] = f[0];
	f[1].alpha_s = 3e-6;
	CHECK(ccs_store_add_fits(s, 1, f, 1, &d) == CCS_OK);
	CHECK(ccs_store_add_fits(s, 1, f + 1, 1, &d) == CCS_OK);
	struct ccs_fit *fb = NULL;
	size_t nfb = 0;
	CHECK(ccs_store_fits(s, 1, &fb, &nfb, &d) == CCS_OK && nfb == 1 && fb[0].alpha_s == 3e-6);
	ccs_free(fb);
	CHECK(ccs_store_check(s, &d) == CCS_OK);
	ccs_store_close(s);

	test_store_writers(path);
	test_store_concurrent(path);
	/* not ours: another program's SQLite file and a file that is not SQLite */
	char other[160];
	snprintf(other, sizeof other, "%s/notdb", dir);
	FILE *fo = fopen(other, "w");
	if (fo) {
		fputs("this is not a database, just text that is long enough to be read as a header......\n", fo);
		fclose(fo);
	}
	memset(&d, 0, sizeof d);
	CHECK(ccs_store_open(other, &s, &d) == CCS_EDB && strstr(d.msg, "notdb"));
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A calibration file changes predictions as its numbers say. */
static void test_calibration_file(void)
{
	char dir[] = "/tmp/ccsim-test-cal-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char cal[128], topo[128];
	snprintf(cal, sizeof cal, "%s/fitted.yaml", dir);
	snprintf(topo, sizeof topo, "%s/t.yaml", dir);
	FILE *f = fopen(cal, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "calibration: {host: dgx-a, run: 3}\nmodel:\n  efficiency: {nvlink: 0.42}\n"
	           "fits:\n  - {class: pcie, name: h2d, sizes: [4KiB, 1GiB], alpha: -0.2us, bandwidth: 24GB/s,"
	           " alpha_ci: [-0.4us, 0.1us], bandwidth_ci: [23GB/s, unbounded], r2: 0.999, rms: 0.01, points: 19}\n");
	fclose(f);
	f = fopen(topo, "w");
	if (!f)
		return;
	char here[512];
	CHECK(getcwd(here, sizeof here) != NULL);
	fprintf(f, "extends: %s/topologies/hgx-h100.yaml\ncalibration: fitted.yaml\n", here);
	fclose(f);
	struct ccs_topo *t0 = NULL, *t1 = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_topo_yaml_load("topologies/hgx-h100.yaml", NULL, 0, &t0, &d) == CCS_OK);
	CHECK(ccs_topo_yaml_load(topo, NULL, 0, &t1, &d) == CCS_OK);
	if (d.set)
		fprintf(stderr, "%s\n", d.msg);
	if (t0 && t1) {
		CHECK(t1->params.eff[CCS_LINK_NVLINK] == 0.42);
		struct ccs_comm c0, c1;
		char err[128];
		CHECK(ccs_comm_build(t0, 0, 0, &c0, err, sizeof err) == 0);
		CHECK(ccs_comm_build(t1, 0, 0, &c1, err, sizeof err) == 0);
		struct ccs_cost a, b;
		/* ring AllReduce of 8 GiB is bandwidth-bound on NVLink: the
		 * bandwidth term scales by 0.84 / 0.42 */
		CHECK(ccs_cost_eval(&c0, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 8ull << 30, &a, NULL) == 0);
		CHECK(ccs_cost_eval(&c1, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 8ull << 30, &b, NULL) == 0);
		CHECK_NEAR(b.bw_s / a.bw_s, t0->params.eff[CCS_LINK_NVLINK] / 0.42, 1e-9);
		CHECK(b.time_s > a.time_s * 1.9);
		ccs_comm_release(&c0);
		ccs_comm_release(&c1);
	}
	ccs_topo_free(t0);
	ccs_topo_free(t1);
	/* errors in the calibration file name it and the position */
	f = fopen(cal, "w");
	if (f) {
		fprintf(f, "calibration: {host: a}\nmodel:\n  efficiency: {nvlink: 1.7}\n");
		fclose(f);
	}
	memset(&d, 0, sizeof d);
	CHECK(ccs_topo_yaml_load(topo, NULL, 0, &t1, &d) == CCS_EINPUT);
	CHECK(d.set && strstr(d.msg, "fitted.yaml:3:24: efficiency of 'nvlink' must be a fraction in (0, 1], got '1.7'"));
	f = fopen(cal, "w");
	if (f) {
		fprintf(f, "model: {channels: 4}\n");
		fclose(f);
	}
	memset(&d, 0, sizeof d);
	CHECK(ccs_topo_yaml_load(topo, NULL, 0, &t1, &d) == CCS_EINPUT);
	CHECK(d.set && strstr(d.msg, "fitted.yaml:1:1: not a calibration file"));
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* Every allocation of ingest, fit and derive failing in turn: ENOMEM or a
 * clean success, nothing leaked (ASan), no crash. */
static void test_alloc_failures(void)
{
	char *text = NULL;
	size_t len = 0;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_read_file("tests/data/calib/all_reduce_perf-h100x8-mooncake.log", &text, &len, &d) == CCS_OK);
	struct ccs_topo *t = NULL;
	CHECK(ccs_topo_yaml_load("topologies/hgx-h100.yaml", NULL, 0, &t, &d) == CCS_OK);
	int bad = 0, ok = 0;
	for (long n = 1; n < 400 && text && t; n++) {
		struct ccs_meas_set set;
		memset(&set, 0, sizeof set);
		memset(&d, 0, sizeof d);
		ccs_alloc_fail_at(n);
		int r = ccs_ingest_text("all_reduce_perf.log", text, len, &set, &d);
		struct ccs_calib cal;
		memset(&cal, 0, sizeof cal);
		if (!r)
			r = ccs_calib_derive(t, set.m, set.n, &cal, &d);
		int failed = ccs_alloc_failed();
		ccs_alloc_fail_at(0);
		if (r == CCS_OK)
			ccs_calib_release(&cal);
		ccs_meas_set_release(&set);
		if (r != CCS_OK && !(r == CCS_ENOMEM && failed))
			bad++;
		if (!failed) {
			ok = r == CCS_OK;
			break;
		}
	}
	CHECK(bad == 0);
	CHECK(ok);
	ccs_topo_free(t);
	ccs_free(text);
}

int main(void)
{
	ccs_fit_init();
	test_line_recovery();
	test_outliers();
	test_pieces();
	test_real_logs();
	test_bench_log();
	test_store();
	test_calibration_file();
	test_alloc_failures();
	return CHECK_DONE("test_calib");
}
