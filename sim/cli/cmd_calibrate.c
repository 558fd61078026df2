/* sim/cli/cmd_calibrate.c: `ccsim calibrate run|ingest|fit|show|diff|check`. */
#define _DEFAULT_SOURCE
#include "cli.h"

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

#define ME "ccsim calibrate"
#define DEFAULT_DB "ccsim.db"


static void usage(FILE *f)
{
	fprintf(f,
	        "usage: ccsim calibrate SUBCOMMAND [options]\n"
	        "  run     [--db DB] [--host NAME] [--bench-dir DIR]\n"
	        "          run the benches found next to ccsim (ccsim-bench-cuda, ccsim-bench-rdma) and store\n"
	        "          their logs as one run\n"
	        "  ingest  FILE... [--db DB] [--host NAME] [-t TOPO]\n"
	        "          store nccl-tests, perftest or ccsim-bench logs as one run\n"
	        "  fit     [--db DB] [--run N] [-t TOPO] [-o FILE] [--residuals] [--set k=v]\n"
	        "          fit alpha-beta per link class and protocol, efficiencies against TOPO, and write\n"
	        "          the calibration YAML (stdout without -o) that a topology includes with\n"
	        "          'calibration: FILE'\n"
	        "  show    [--db DB] [RUN]     the runs, or one run's measurements and fits\n"
	        "  diff    [--db DB] RUN RUN   the second run against the first, per size and per fit\n"
	        "  check   [--db DB] [--run N] --baseline RUN|previous [--tolerance 5%%] [--junit FILE]\n"
	        "          the newest run (or N) against the baseline; exit 1 on a regression beyond the\n"
	        "          tolerance\n"
	        "the database is %s unless --db says otherwise; runs are numbered as 'show' lists them.\n",
	        DEFAULT_DB);
}

struct opts {
	const char *db, *host, *topo, *out, *baseline, *junit, *bench_dir;
	int residuals;
	long long run;
	double tol;
	struct ccs_args_sets sets;
	const char *pos[64];
	int npos;
};

static int parse_opts(int argc, char **argv, const char *sub, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->db = DEFAULT_DB;
	o->tol = 0.05;
	o->run = -1;
	ccs_args_sets_init(&o->sets);
	static const char *const names[] = { "--db", "--host", "-t", "-o", "--baseline", "--junit", "--run",
	                                     "--tolerance", "--bench-dir" };
	char what[32];
	snprintf(what, sizeof what, "calibrate %s", sub);
	for (int i = 2; i < argc; i++) {
		int r = ccs_args_set(&o->sets, argc, argv, &i);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		if (argv[i][0] != '-' || !argv[i][1]) {
			if (o->npos == 64) {
				fprintf(stderr, "%s %s: more than 64 files; ingest them in several runs\n", ME, sub);
				return -1;
			}
			o->pos[o->npos++] = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(argv[i], "--residuals")) {
			o->residuals = 1;
			continue;
		}
		const char *v;
		if (ccs_args_value("ccsim", what, argc, argv, &i, names, sizeof names / sizeof *names, &v))
			return -1;
		const char *a = argv[i - 1];
		if (!strcmp(a, "--db"))
			o->db = v;
		else if (!strcmp(a, "--host"))
			o->host = v;
		else if (!strcmp(a, "-t"))
			o->topo = v;
		else if (!strcmp(a, "-o"))
			o->out = v;
		else if (!strcmp(a, "--baseline"))
			o->baseline = v;
		else if (!strcmp(a, "--junit"))
			o->junit = v;
		else if (!strcmp(a, "--bench-dir"))
			o->bench_dir = v;
		else if (!strcmp(a, "--run")) {
			int n;
			if (ccs_args_int(ME, "--run", v, 1, 2000000000, &n))
				return -1;
			o->run = n;
		} else if (!strcmp(a, "--tolerance")) {
			char *end;
			double x = strtod(v, &end);
			if (end == v || (*end && strcmp(end, "%")) || !(x > 0) || x >= 100) {
				fprintf(stderr, "%s: '--tolerance' must be a percentage in (0, 100), like 5%%, got '%s'\n", ME, v);
				return -1;
			}
			o->tol = x / 100;
		}
	}
	return 0;
}

static void say(const struct ccs_diag *d, const char *fallback)
{
	fprintf(stderr, "%s\n", d->set ? d->msg : fallback);
}

static int open_store(const struct opts *o, struct ccs_store **s, int must_exist)
{
	struct stat st;
	if (must_exist && stat(o->db, &st)) {
		fprintf(stderr, "%s: no database '%s' (ingest or run something first, or pass --db)\n", ME, o->db);
		return -1;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_open(o->db, s, &d)) {
		say(&d, "ccsim calibrate: cannot open the database");
		return -1;
	}
	return 0;
}

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* Store the measurements of set as one run of the given kind. */
static int store_set(const struct opts *o, struct ccs_meas_set *set, const char *kind, const char *const *files,
                     int nfiles)
{
	struct ccs_run_info r;
	memset(&r, 0, sizeof r);
	const char *host = o->host ? o->host : set->host;
	char hn[64] = "";
	if (!host || !*host) {
		if (gethostname(hn, sizeof hn - 1))
			snprintf(hn, sizeof hn, "unknown");
		host = hn;
	}
	snprintf(r.host, sizeof r.host, "%s", host);
	snprintf(r.kind, sizeof r.kind, "%s", kind);
	snprintf(r.topology, sizeof r.topology, "%s", o->topo ? o->topo : "");
	snprintf(r.versions, sizeof r.versions, "%s", set->versions);
	snprintf(r.ccsim_version, sizeof r.ccsim_version, "%s", CCS_VERSION);
	for (int i = 0; i < nfiles; i++) {
		size_t l = strlen(r.sources);
		snprintf(r.sources + l, sizeof r.sources - l, "%s%s", l ? " " : "", base_of(files[i]));
	}
	struct ccs_store *s;
	if (open_store(o, &s, 0))
		return 1;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_store_add_run(s, &r, set->m, set->n, &d);
	ccs_store_close(s);
	if (rc) {
		say(&d, "ccsim calibrate: cannot store the run");
		return 1;
	}
	printf("run %lld: %zu measurements from %d log%s, host %s, stored in %s\n", (long long)r.id, set->n, nfiles,
	       nfiles == 1 ? "" : "s", r.host, o->db);
	return ccs_args_flush() ? 1 : 0;
}

static int cmd_ingest(const struct opts *o)
{
	if (!o->npos) {
		fprintf(stderr, "%s ingest: name at least one log\n", ME);
		return 2;
	}
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	int rc = 0;
	for (int i = 0; i < o->npos; i++) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		int r = ccs_ingest_file(o->pos[i], &set, &d);
		if (r) {
			say(&d, "ccsim calibrate: out of memory");
			rc = 1;
			break;
		}
	}
	for (size_t i = 0; i < set.nwarn; i++)
		fprintf(stderr, "warning: %s\n", set.warn[i]);
	if (!rc && !set.n) {
		fprintf(stderr, "%s ingest: no measurement in the logs; nothing stored\n", ME);
		rc = 1;
	}
	if (!rc)
		rc = store_set(o, &set, "ingest", o->pos, o->npos);
	else
		fprintf(stderr, "%s ingest: nothing stored\n", ME);
	ccs_meas_set_release(&set);
	return rc;
}

/* ---- run: the benches ---- */

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Run prog with args, stdout to log; 0 when it exited 0. */
static int run_bench(const char *prog, char *const *args, const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);
		if (!f)
			_exit(127);
		execv(prog, args);
		fprintf(stderr, "%s: cannot run: %s\n", prog, strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmd_run(const struct opts *o, const char *argv0)
{
	char dir[1024];
	if (o->bench_dir) {
		snprintf(dir, sizeof dir, "%s", o->bench_dir);
	} else {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
		if (n <= 0)
			snprintf(dir, sizeof dir, "%s", argv0);
		else
			dir[n] = 0;
		char *sl = strrchr(dir, '/');
		if (sl)
			*sl = 0;
		else
			snprintf(dir, sizeof dir, ".");
	}
	static const char *const benches[] = { "ccsim-bench-cuda", "ccsim-bench-rdma" };
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	const char *files[2];
	char logs[2][64];
	int nfiles = 0, found = 0, rc = 0;
	for (int b = 0; b < 2 && !interrupted; b++) {
		char prog[1200];
		snprintf(prog, sizeof prog, "%s/%s", dir, benches[b]);
		if (access(prog, X_OK)) {
			fprintf(stderr, "%s run: %s not built (its toolkit was missing when ccsim was built); skipped\n", ME,
			        benches[b]);
			continue;
		}
		found++;
		snprintf(logs[b], sizeof logs[b], "/tmp/ccsim-bench-XXXXXX");
		int fd = mkstemp(logs[b]);
		if (fd < 0) {
			fprintf(stderr, "%s run: cannot make a temporary file: %s\n", ME, strerror(errno));
			rc = 1;
			break;
		}
		close(fd);
		char *args[2] = { prog, NULL };
		fprintf(stderr, "%s run: %s ...\n", ME, benches[b]);
		if (run_bench(prog, args, logs[b])) {
			fprintf(stderr, "%s run: %s did not complete; its log is not stored\n", ME, benches[b]);
			unlink(logs[b]);
			continue;
		}
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		if (ccs_ingest_file(logs[b], &set, &d)) {
			say(&d, "ccsim calibrate: out of memory");
			rc = 1;
		} else {
			files[nfiles++] = benches[b];
		}
		unlink(logs[b]);
	}
	for (size_t i = 0; i < set.nwarn; i++)
		fprintf(stderr, "warning: %s\n", set.warn[i]);
	if (interrupted) {
		fprintf(stderr, "%s run: interrupted; nothing stored\n", ME);
		rc = 1;
	} else if (!rc && !nfiles) {
		fprintf(stderr, "%s run: %s; nothing stored\n", ME, found ? "no bench completed" : "no bench is built here");
		rc = 1;
	} else if (!rc) {
		rc = store_set(o, &set, "run", files, nfiles);
	}
	ccs_meas_set_release(&set);
	return rc;
}

/* ---- reading runs back ---- */

/* The runs; *pick the index of run id (-1: the newest). */
static int load_runs(struct ccs_store *s, struct ccs_run_info **runs, size_t *n)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_runs(s, runs, n, &d)) {
		say(&d, "ccsim calibrate: cannot list runs");
		return -1;
	}
	if (!*n) {
		fprintf(stderr, "%s: the database has no run yet\n", ME);
		ccs_free(*runs);
		return -1;
	}
	return 0;
}

static long find_run(const struct ccs_run_info *runs, size_t n, long long id, const char *what)
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

static int parse_run_arg(const char *s, long long *id)
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

static int read_meas(struct ccs_store *s, int64_t run, struct ccs_meas **m, size_t *n)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_meas(s, run, m, n, &d)) {
		say(&d, "ccsim calibrate: cannot read measurements");
		return -1;
	}
	return 0;
}

static void print_fit_table(const struct ccs_fit *f, size_t n)
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

/* ---- fit ---- */

/* Each fitted point: measured, fitted, relative residual. */
static void print_residuals(const struct ccs_fit *f, size_t nf, const struct ccs_meas *m, size_t nm)
{
	for (size_t k = 0; k < nf; k++) {
		char lo[24], hi[24];
		ccs_fmt_size((double)f[k].lo, lo, sizeof lo);
		ccs_fmt_size((double)f[k].hi, hi, sizeof hi);
		printf("\nresiduals of %s/%s, %s-%s:\n%12s %12s %12s %9s\n", f[k].cls, f[k].name, lo, hi, "size",
		       "measured", "fitted", "residual");
		for (size_t i = 0; i < nm; i++) {
			char g[32];
			ccs_calib_group(&m[i], g, sizeof g);
			if (!ccs_calib_fitted(&m[i]) || strcmp(g, f[k].name) || strcmp(m[i].cls, f[k].cls) ||
			    m[i].size < f[k].lo || m[i].size > f[k].hi)
				continue;
			double t = f[k].alpha_s + f[k].beta_spB * (double)m[i].size;
			char a[24], b[24], c[24];
			ccs_fmt_size((double)m[i].size, a, sizeof a);
			ccs_fmt_time(m[i].median_s, b, sizeof b);
			ccs_fmt_time(t, c, sizeof c);
			printf("%12s %12s %12s %+8.2f%%\n", a, b, c, 100 * (m[i].median_s - t) / m[i].median_s);
		}
	}
}

static int write_atomic(const char *path, const struct ccs_calib *c, const char *host, long long run,
                        const char *db, const char *topo)
{
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s fit: cannot write '%s': %s\n", ME, tmp, strerror(errno));
		return -1;
	}
	int bad = ccs_calib_write(f, c, host, run, db, topo);
	if (fclose(f) || bad) {
		fprintf(stderr, "%s fit: cannot write '%s'\n", ME, tmp);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "%s fit: cannot rename '%s' to '%s': %s\n", ME, tmp, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int cmd_fit(struct opts *o)
{
	struct ccs_store *s;
	if (open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	struct ccs_meas *m = NULL;
	size_t nm = 0;
	struct ccs_topo *t = NULL;
	struct ccs_calib cal;
	memset(&cal, 0, sizeof cal);
	int rc = 1;
	if (load_runs(s, &runs, &nr))
		goto out;
	long ri = find_run(runs, nr, o->run, NULL);
	if (ri < 0 || read_meas(s, runs[ri].id, &m, &nm))
		goto out;
	const char *topo = o->topo ? o->topo : runs[ri].topology[0] ? runs[ri].topology : NULL;
	if (topo) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		if (ccs_topo_load(topo, (const char *const *)o->sets.v, o->sets.n, &t, &d)) {
			say(&d, "ccsim calibrate: cannot load the topology");
			goto out;
		}
		if (ccs_args_refuse_timed("ccsim calibrate", t))
			goto out;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int r = ccs_calib_derive(t, m, nm, &cal, &d);
	if (r) {
		say(&d, r == CCS_ENOMEM ? "ccsim calibrate: out of memory" : "ccsim calibrate: fit failed");
		goto out;
	}
	for (size_t i = 0; i < cal.nnote; i++)
		fprintf(stderr, "note: %s\n", cal.note[i]);
	if (!t)
		fprintf(stderr, "note: no topology (-t): fits only, no efficiencies for the model\n");
	memset(&d, 0, sizeof d);
	if (ccs_store_add_fits(s, runs[ri].id, cal.fit, cal.nfit, &d)) {
		say(&d, "ccsim calibrate: cannot store the fits");
		goto out;
	}
	if (o->out) {
		if (write_atomic(o->out, &cal, runs[ri].host, (long long)runs[ri].id, o->db, topo))
			goto out;
		printf("run %lld (host %s): %zu fits", (long long)runs[ri].id, runs[ri].host, cal.nfit);
		for (int ty = 0; ty < CCS_LINK_NTYPES; ty++)
			if (cal.eff_from[ty])
				printf(", %s efficiency %.3f", ccs_link_type_name[ty], cal.eff[ty]);
		printf("\n");
		print_fit_table(cal.fit, cal.nfit);
		if (o->residuals)
			print_residuals(cal.fit, cal.nfit, m, nm);
		printf("wrote %s\n", o->out);
	} else if (ccs_calib_write(stdout, &cal, runs[ri].host, (long long)runs[ri].id, o->db, topo)) {
		goto out;
	}
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_calib_release(&cal);
	ccs_topo_free(t);
	ccs_free(m);
	ccs_free(runs);
	ccs_store_close(s);
	return rc;
}

/* ---- show ---- */

static int cmd_show(const struct opts *o)
{
	struct ccs_store *s;
	if (open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	int rc = 1;
	if (load_runs(s, &runs, &nr))
		goto out;
	if (!o->npos) {
		printf("%5s  %-20s  %-16s  %-6s  %6s  %s\n", "run", "created", "host", "kind", "meas", "sources");
		for (size_t i = 0; i < nr; i++)
			printf("%5lld  %-20s  %-16s  %-6s  %6lld  %s\n", (long long)runs[i].id, runs[i].created, runs[i].host,
			       runs[i].kind, (long long)runs[i].nmeas, runs[i].sources);
		rc = ccs_args_flush() ? 1 : 0;
		goto out;
	}
	long long id;
	if (parse_run_arg(o->pos[0], &id))
		goto out;
	long ri = find_run(runs, nr, id, NULL);
	if (ri < 0)
		goto out;
	const struct ccs_run_info *r = &runs[ri];
	printf("run %lld: host %s, %s, %s, ccsim %s\n", (long long)r->id, r->host, r->created, r->kind,
	       r->ccsim_version);
	printf("sources: %s\n", r->sources);
	if (r->topology[0])
		printf("topology: %s\n", r->topology);
	if (r->versions[0])
		printf("versions: %s\n", r->versions);
	struct ccs_meas *m;
	size_t nm;
	if (read_meas(s, r->id, &m, &nm))
		goto out;
	printf("\n%-10s %-6s %-20s %-12s %6s %10s %10s %12s %12s\n", "source", "class", "name", "variant", "points",
	       "from", "to", "t(min size)", "t(max size)");
	char *seen = ccs_calloc(nm ? nm : 1, 1);
	if (!seen) {
		ccs_free(m);
		fprintf(stderr, "%s show: out of memory\n", ME);
		goto out;
	}
	for (size_t i = 0; i < nm; i++) {
		if (seen[i])
			continue;
		size_t cnt = 0;
		uint64_t lo = m[i].size, hi = m[i].size;
		double tlo = m[i].median_s, thi = m[i].median_s;
		for (size_t j = i; j < nm; j++) {
			if (seen[j] || strcmp(m[j].source, m[i].source) || strcmp(m[j].name, m[i].name) ||
			    strcmp(m[j].variant, m[i].variant) || strcmp(m[j].cls, m[i].cls) || m[j].ranks != m[i].ranks)
				continue;
			seen[j] = 1;
			cnt++;
			if (m[j].size < lo) {
				lo = m[j].size;
				tlo = m[j].median_s;
			}
			if (m[j].size >= hi) {
				hi = m[j].size;
				thi = m[j].median_s;
			}
		}
		char a[24], b[24], c[24], e[24], nm2[40];
		ccs_fmt_size((double)lo, a, sizeof a);
		ccs_fmt_size((double)hi, b, sizeof b);
		ccs_fmt_time(tlo, c, sizeof c);
		ccs_fmt_time(thi, e, sizeof e);
		if (m[i].ranks)
			snprintf(nm2, sizeof nm2, "%.24s/%d", m[i].name, m[i].ranks);
		else
			snprintf(nm2, sizeof nm2, "%s", m[i].name);
		printf("%-10s %-6s %-20s %-12s %6zu %10s %10s %12s %12s\n", m[i].source, m[i].cls, nm2,
		       m[i].variant[0] ? m[i].variant : "-", cnt, a, b, c, e);
	}
	ccs_free(seen);
	ccs_free(m);
	struct ccs_fit *f;
	size_t nf;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_fits(s, r->id, &f, &nf, &d)) {
		say(&d, "ccsim calibrate: cannot read fits");
		goto out;
	}
	if (nf) {
		printf("\nfits (the newest 'calibrate fit' of this run):\n");
		print_fit_table(f, nf);
	} else {
		printf("\nno fits yet ('ccsim calibrate fit --run %lld')\n", (long long)r->id);
	}
	ccs_free(f);
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_free(runs);
	ccs_store_close(s);
	return rc;
}

/* ---- diff and check ---- */

struct cmp {
	char cls[32], what[96], size[24];
	double base, cur;           /* the compared quantity */
	int higher_better;
	int verdict;                /* 0 ok, 1 regression, -1 better */
	char unit[8];               /* "GB/s" or "us" */
};

struct cmps {
	struct cmp *v;
	size_t n, cap;
};

static int cmp_push(struct cmps *c, struct cmp *x)
{
	if (ccs_grow(&c->v, &c->cap, c->n + 1, sizeof *c->v))
		return -1;
	c->v[c->n++] = *x;
	return 0;
}

/* verdict of cur against base beyond tol; sig: the fits' intervals do not
 * overlap (1 for raw rows, which have none) */
static int judge(double base, double cur, int higher_better, double tol, int sig)
{
	double ch = cur / base - 1;
	if (!higher_better)
		ch = -ch;
	if (ch < -tol && sig)
		return 1;
	if (ch > tol && sig)
		return -1;
	return 0;
}

static int compare(const struct ccs_meas *a, size_t na, const struct ccs_meas *b, size_t nb, double tol,
                   struct cmps *out)
{
	/* nccl-tests rows: busbw per collective, variant, ranks and size */
	for (size_t j = 0; j < nb; j++) {
		if (strcmp(b[j].source, "nccl-tests"))
			continue;
		for (size_t i = 0; i < na; i++) {
			if (strcmp(a[i].source, "nccl-tests") || a[i].size != b[j].size || strcmp(a[i].name, b[j].name) ||
			    strcmp(a[i].variant, b[j].variant) || a[i].ranks != b[j].ranks)
				continue;
			struct cmp c;
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "nccl-tests");
			if (b[j].ranks)
				snprintf(c.what, sizeof c.what, "%s/%d %s busbw", b[j].name, b[j].ranks, b[j].variant);
			else
				snprintf(c.what, sizeof c.what, "%s %s busbw", b[j].name, b[j].variant);
			ccs_fmt_size((double)b[j].size, c.size, sizeof c.size);
			/* from the time (printed to 0.01 us), not the printed busbw
			 * (0.01 GB/s, nothing at small sizes): busbw = S / t x f */
			int coll = ccs_coll_parse(b[j].name);
			double fct = b[j].ranks && coll >= 0 ? ccs_busbw_factor(coll, b[j].ranks) : 1;
			if (!b[j].ranks || coll < 0)
				memcpy(c.what + strlen(c.what) - 5, "algbw", 5);
			c.base = (double)a[i].size / a[i].median_s * fct / 1e9;
			c.cur = (double)b[j].size / b[j].median_s * fct / 1e9;
			snprintf(c.unit, sizeof c.unit, "GB/s");
			c.higher_better = 1;
			c.verdict = c.base > 0 && c.cur > 0 ? judge(c.base, c.cur, 1, tol, 1) : 0;
			if (cmp_push(out, &c))
				return -1;
			break;
		}
	}
	/* fits per link class: bandwidth of the largest sizes' piece, alpha of
	 * the smallest sizes' piece */
	struct ccs_fit *fa = NULL, *fb = NULL;
	size_t nfa = 0, nfb = 0;
	if (ccs_calib_fits(a, na, &fa, &nfa) || ccs_calib_fits(b, nb, &fb, &nfb)) {
		ccs_free(fa);
		ccs_free(fb);
		return -1;
	}
	int rc = 0;
	for (size_t j = 0; j < nfb && !rc; j++) {
		const struct ccs_fit *y = &fb[j];
		int first = j == 0 || strcmp(fb[j - 1].cls, y->cls) || strcmp(fb[j - 1].name, y->name);
		int last = j + 1 == nfb || strcmp(fb[j + 1].cls, y->cls) || strcmp(fb[j + 1].name, y->name);
		const struct ccs_fit *xf = NULL, *xl = NULL;
		for (size_t i = 0; i < nfa; i++)
			if (!strcmp(fa[i].cls, y->cls) && !strcmp(fa[i].name, y->name)) {
				if (!xf)
					xf = &fa[i];
				xl = &fa[i];
			}
		if (!xf)
			continue;
		struct cmp c;
		if (last && xl->beta_spB > 0 && y->beta_spB > 0 && strcmp(y->cls, "nccl")) {
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "%s", y->cls);
			snprintf(c.what, sizeof c.what, "%s bandwidth (fit)", y->name);
			ccs_fmt_size((double)y->hi, c.size, sizeof c.size);
			c.base = 1 / xl->beta_spB / 1e9;
			c.cur = 1 / y->beta_spB / 1e9;
			snprintf(c.unit, sizeof c.unit, "GB/s");
			c.higher_better = 1;
			/* significant when the slopes' intervals are apart */
			int sig = y->beta_lo > xl->beta_hi || y->beta_hi < xl->beta_lo;
			c.verdict = judge(c.base, c.cur, 1, tol, sig);
			rc = cmp_push(out, &c);
		}
		if (!rc && first && xf->alpha_s > 0 && y->alpha_s > 0 && strcmp(y->cls, "nccl")) {
			memset(&c, 0, sizeof c);
			snprintf(c.cls, sizeof c.cls, "%s", y->cls);
			snprintf(c.what, sizeof c.what, "%s alpha (fit)", y->name);
			ccs_fmt_size((double)y->lo, c.size, sizeof c.size);
			c.base = xf->alpha_s * 1e6;
			c.cur = y->alpha_s * 1e6;
			snprintf(c.unit, sizeof c.unit, "us");
			int sig = y->alpha_lo > xf->alpha_hi || y->alpha_hi < xf->alpha_lo;
			c.verdict = judge(c.base, c.cur, 0, tol, sig);
			rc = cmp_push(out, &c);
		}
	}
	ccs_free(fa);
	ccs_free(fb);
	return rc;
}

static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static int write_junit(const char *path, const struct cmps *c, const struct ccs_run_info *base,
                       const struct ccs_run_info *cur, double tol)
{
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s check: cannot write '%s': %s\n", ME, tmp, strerror(errno));
		return -1;
	}
	size_t fails = 0;
	for (size_t i = 0; i < c->n; i++)
		fails += c->v[i].verdict == 1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\">\n", c->n, fails);
	fprintf(f, "  <testsuite name=\"ccsim calibrate check: run %lld vs run %lld\" tests=\"%zu\" failures=\"%zu\""
	           " errors=\"0\" skipped=\"0\" timestamp=\"", (long long)cur->id, (long long)base->id, c->n, fails);
	xml_escape(f, cur->created);
	fprintf(f, "\" hostname=\"");
	xml_escape(f, cur->host);
	fprintf(f, "\">\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp *x = &c->v[i];
		fprintf(f, "    <testcase classname=\"");
		xml_escape(f, x->cls);
		fprintf(f, "\" name=\"");
		xml_escape(f, x->what);
		fprintf(f, " @ %s\" time=\"0\"", x->size);
		if (x->verdict == 1) {
			fprintf(f, ">\n      <failure type=\"regression\" message=\"%.4g %s, baseline %.4g %s (%+.1f%%, tolerance %.1f%%)\"/>\n"
			           "    </testcase>\n", x->cur, x->unit, x->base, x->unit, 100 * (x->cur / x->base - 1), 100 * tol);
		} else {
			fprintf(f, "/>\n");
		}
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	if (fclose(f)) {
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "%s check: cannot write '%s': %s\n", ME, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int cmd_cmp(const struct opts *o, int check)
{
	const char *sub = check ? "check" : "diff";
	if (check && !o->baseline) {
		fprintf(stderr, "%s check: '--baseline RUN|previous' is required\n", ME);
		return 2;
	}
	if (!check && o->npos != 2) {
		fprintf(stderr, "%s diff: name two runs (ccsim calibrate diff 3 5)\n", ME);
		return 2;
	}
	struct ccs_store *s;
	if (open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	struct ccs_meas *ma = NULL, *mb = NULL;
	size_t na = 0, nb = 0;
	struct cmps c;
	memset(&c, 0, sizeof c);
	int rc = 1;
	if (load_runs(s, &runs, &nr))
		goto out;
	long ia, ib;
	if (check) {
		ib = find_run(runs, nr, o->run, NULL);
		if (ib < 0)
			goto out;
		if (!strcmp(o->baseline, "previous")) {
			ia = -1;
			for (long i = ib - 1; i >= 0; i--)
				if (!strcmp(runs[i].host, runs[ib].host)) {
					ia = i;
					break;
				}
			if (ia < 0) {
				fprintf(stderr, "%s check: run %lld is the first of host %s; no previous run to compare with\n", ME,
				        (long long)runs[ib].id, runs[ib].host);
				goto out;
			}
		} else {
			long long id;
			if (parse_run_arg(o->baseline, &id) || (ia = find_run(runs, nr, id, "--baseline")) < 0)
				goto out;
		}
	} else {
		long long x, y;
		if (parse_run_arg(o->pos[0], &x) || parse_run_arg(o->pos[1], &y))
			goto out;
		if ((ia = find_run(runs, nr, x, NULL)) < 0 || (ib = find_run(runs, nr, y, NULL)) < 0)
			goto out;
	}
	if (read_meas(s, runs[ia].id, &ma, &na) || read_meas(s, runs[ib].id, &mb, &nb))
		goto out;
	if (compare(ma, na, mb, nb, o->tol, &c)) {
		fprintf(stderr, "%s %s: out of memory\n", ME, sub);
		goto out;
	}
	printf("run %lld (%s, %s) against %s run %lld (%s, %s), tolerance %.1f%%\n", (long long)runs[ib].id,
	       runs[ib].host, runs[ib].created, check ? "baseline" : "", (long long)runs[ia].id, runs[ia].host,
	       runs[ia].created, 100 * o->tol);
	if (!c.n) {
		fprintf(stderr, "%s %s: the two runs have nothing in common to compare (no shared collective and size, no "
		                "shared fit)\n", ME, sub);
		goto out;
	}
	printf("%-10s %-36s %10s %12s %12s %9s  %s\n", "class", "what", "size", "baseline", "newest", "change",
	       "verdict");
	size_t bad = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct cmp *x = &c.v[i];
		char b1[32], b2[32];
		snprintf(b1, sizeof b1, "%.4g %s", x->base, x->unit);
		snprintf(b2, sizeof b2, "%.4g %s", x->cur, x->unit);
		bad += x->verdict == 1;
		printf("%-10s %-36s %10s %12s %12s %+8.1f%%  %s\n", x->cls, x->what, x->size, b1, b2,
		       100 * (x->cur / x->base - 1), x->verdict == 1 ? "REGRESSION" : x->verdict < 0 ? "better" : "ok");
	}
	printf("%zu compared, %zu regression%s beyond %.1f%%\n", c.n, bad, bad == 1 ? "" : "s", 100 * o->tol);
	if (ccs_args_flush())
		goto out;
	if (check && o->junit && write_junit(o->junit, &c, &runs[ia], &runs[ib], o->tol))
		goto out;
	rc = check && bad ? 1 : 0;
out:
	ccs_free(c.v);
	ccs_free(ma);
	ccs_free(mb);
	ccs_free(runs);
	ccs_store_close(s);
	return rc;
}

int ccs_cmd_calibrate(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	static const char *const subs[] = { "run", "ingest", "fit", "show", "diff", "check" };
	const char *sub = argv[1];
	int k = 0;
	while (k < 6 && strcmp(sub, subs[k]))
		k++;
	if (k == 6) {
		const char *near = ccs_suggest(sub, subs, 6);
		fprintf(stderr, "%s: unknown subcommand '%s'%s%s%s\n", ME, sub, near ? " (did you mean '" : "",
		        near ? near : "", near ? "'?)" : "");
		return 2;
	}
	ccs_fit_init();
	struct opts o;
	int r = parse_opts(argc, argv, sub, &o);
	if (r) {
		ccs_args_sets_release(&o.sets);
		return r > 0 ? 0 : 2;
	}
	if (k != 1 && k != 3 && k != 4 && o.npos) {
		fprintf(stderr, "%s %s: unexpected argument '%s'\n", ME, sub, o.pos[0]);
		ccs_args_sets_release(&o.sets);
		return 2;
	}
	if (k == 3 && o.npos > 1) {
		fprintf(stderr, "%s show: one run at most\n", ME);
		ccs_args_sets_release(&o.sets);
		return 2;
	}
	int rc;
	switch (k) {
	case 0: rc = cmd_run(&o, argv[0]); break;
	case 1: rc = cmd_ingest(&o); break;
	case 2: rc = cmd_fit(&o); break;
	case 3: rc = cmd_show(&o); break;
	default: rc = cmd_cmp(&o, k == 5); break;
	}
	ccs_args_sets_release(&o.sets);
	return rc;
}
