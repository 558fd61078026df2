/* sim/cli/cmd_calibrate.c: `ccsim calibrate run|ingest|fit|show|diff|check`. */
#define _DEFAULT_SOURCE
#include "cli.h"
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



static void usage(FILE *f)
{
	fprintf(f,
	        "usage: ccsim calibrate SUBCOMMAND [options]\n"
	        "  run     [--db DB] [--host NAME] [--bench-dir DIR]\n"
	        "          run the benches found next to ccsim (ccsim-bench-cuda, ccsim-bench-rdma) and store\n"
	        "          their logs as one run\n"
	        "  ingest  FILE... [--db DB] [--host NAME] [-t TOPO] [-c COLL] [-n RANKS] [--ppn P]\n"
	        "          store nccl-tests, perftest or ccsim-bench logs as one run; -c, -n, --ppn say the\n"
	        "          collective, ranks and ranks per node of nccl-tests logs that do not (a log that says\n"
	        "          otherwise is refused)\n"
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


/* Option a's value v into o: 0, or -1 after a message. */
static int opt_value(struct ccs_runs_opts *o, const char *a, const char *v)
{
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
	else if (!strcmp(a, "-c")) {
		int c = ccs_coll_parse(v);
		if (c < 0) {
			fprintf(stderr, "%s: unknown collective '%s' for -c (allreduce, allgather, reducescatter, "
			                "alltoall, broadcast, reduce, sendrecv)\n", ME, v);
			return -1;
		}
		o->coll = c + 1;
	} else if (!strcmp(a, "-n")) {
		if (ccs_args_int(ME, "-n", v, 1, 1 << 24, &o->ranks))
			return -1;
	} else if (!strcmp(a, "--ppn")) {
		if (ccs_args_int(ME, "--ppn", v, 1, 1 << 20, &o->ppn))
			return -1;
	} else if (!strcmp(a, "--run")) {
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
	return 0;
}

static int parse_opts(int argc, char **argv, const char *sub, struct ccs_runs_opts *o)
{
	memset(o, 0, sizeof *o);
	o->db = DEFAULT_DB;
	o->tol = 0.05;
	o->run = -1;
	ccs_args_sets_init(&o->sets);
	static const char *const names[] = { "--db", "--host", "-t", "-o", "--baseline", "--junit", "--run",
	                                     "--tolerance", "--bench-dir", "-c", "-n", "--ppn" };
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
		if (opt_value(o, argv[i - 1], v))
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
static int store_set(const struct ccs_runs_opts *o, struct ccs_meas_set *set, const char *kind, const char *const *files,
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
	if (ccs_runs_open_store(o, &s, 0))
		return 1;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_store_add_run(s, &r, set->m, set->n, &d);
	ccs_store_close(s);
	if (rc) {
		ccs_runs_say(&d, "ccsim calibrate: cannot store the run");
		return 1;
	}
	printf("run %lld: %zu measurements from %d log%s, host %s, stored in %s\n", (long long)r.id, set->n, nfiles,
	       nfiles == 1 ? "" : "s", r.host, o->db);
	return ccs_args_flush() ? 1 : 0;
}

static int cmd_ingest(const struct ccs_runs_opts *o)
{
	if (!o->npos) {
		fprintf(stderr, "%s ingest: name at least one log\n", ME);
		return 2;
	}
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	set.told.coll = o->coll;
	set.told.ranks = o->ranks;
	set.told.ppn = o->ppn;
	int rc = 0;
	for (int i = 0; i < o->npos; i++) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		int r = ccs_ingest_file(o->pos[i], &set, &d);
		if (r) {
			ccs_runs_say(&d, "ccsim calibrate: out of memory");
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

static int cmd_run(const struct ccs_runs_opts *o, const char *argv0)
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
			ccs_runs_say(&d, "ccsim calibrate: out of memory");
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

struct calib_file {
	const struct ccs_calib *c;
	const char *host, *db, *topo;
	long long run;
};

static int fill_calib(FILE *f, void *ctx)
{
	const struct calib_file *x = ctx;
	return ccs_calib_write(f, x->c, x->host, x->run, x->db, x->topo);
}

static int write_atomic(const char *path, const struct ccs_calib *c, const char *host, long long run,
                        const char *db, const char *topo)
{
	struct calib_file x = { c, host, db, topo, run };
	return ccs_args_write_atomic(ME " fit", path, fill_calib, &x);
}

static int cmd_fit(struct ccs_runs_opts *o)
{
	struct ccs_store *s;
	if (ccs_runs_open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	struct ccs_meas *m = NULL;
	size_t nm = 0;
	struct ccs_topo *t = NULL;
	struct ccs_calib cal;
	memset(&cal, 0, sizeof cal);
	int rc = 1;
	if (ccs_runs_load(s, &runs, &nr))
		goto out;
	long ri = ccs_runs_find(runs, nr, o->run, NULL);
	if (ri < 0 || ccs_runs_read_meas(s, runs[ri].id, 0, &m, &nm))
		goto out;
	const char *topo;
	if (ccs_runs_topology(o, &runs[ri], &t, &topo) || (t && ccs_args_refuse_timed("ccsim calibrate", t)))
		goto out;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int r = ccs_calib_derive(t, m, nm, &cal, &d);
	for (size_t i = 0; i < cal.nrefused; i++)
		fprintf(stderr, "ccsim calibrate: refused: %s\n", cal.refused[i]);
	if (r) {
		ccs_runs_say(&d, r == CCS_ENOMEM ? "ccsim calibrate: out of memory" : "ccsim calibrate: fit failed");
		goto out;
	}
	for (size_t i = 0; i < cal.nnote; i++)
		fprintf(stderr, "note: %s\n", cal.note[i]);
	if (!t)
		fprintf(stderr, "note: no topology (-t): fits only, no efficiencies for the model\n");
	memset(&d, 0, sizeof d);
	if (ccs_store_add_fits(s, runs[ri].id, cal.fit, cal.nfit, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot store the fits");
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
		ccs_runs_print_fits(cal.fit, cal.nfit);
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

/* A run's measurements, one line per series (source, class, name, variant,
 * ranks): its points, sizes and times at both ends; those stored with a
 * flag counted apart; -1: out of memory. */
static int print_series(const struct ccs_meas *m, size_t nm)
{
	char *seen = ccs_calloc(nm ? nm : 1, 1);
	if (!seen)
		return -1;
	size_t flagged = 0, first = 0;
	for (size_t i = 0; i < nm; i++) {
		if (m[i].flag[0] && !flagged++)
			first = i;
		if (seen[i] || m[i].flag[0])
			continue;
		size_t cnt = 0;
		uint64_t lo = m[i].size, hi = m[i].size;
		double tlo = m[i].median_s, thi = m[i].median_s;
		for (size_t j = i; j < nm; j++) {
			if (seen[j] || m[j].flag[0] || strcmp(m[j].source, m[i].source) || strcmp(m[j].name, m[i].name) ||
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
	if (flagged)
		printf("\n%zu measurement%s stored with a flag, kept out of fits and checks; the first, %s:%d: %s\n", flagged,
		       flagged == 1 ? "" : "s", m[first].file, m[first].line, m[first].flag);
	ccs_free(seen);
	return 0;
}

static int cmd_show(const struct ccs_runs_opts *o)
{
	struct ccs_store *s;
	if (ccs_runs_open_store(o, &s, 1))
		return 1;
	struct ccs_run_info *runs = NULL;
	size_t nr = 0;
	int rc = 1;
	if (ccs_runs_load(s, &runs, &nr))
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
	if (ccs_runs_parse_arg(o->pos[0], &id))
		goto out;
	long ri = ccs_runs_find(runs, nr, id, NULL);
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
	if (ccs_runs_read_meas(s, r->id, 1, &m, &nm))
		goto out;
	printf("\n%-10s %-6s %-20s %-12s %6s %10s %10s %12s %12s\n", "source", "class", "name", "variant", "points",
	       "from", "to", "t(min size)", "t(max size)");
	if (print_series(m, nm)) {
		ccs_free(m);
		fprintf(stderr, "%s show: out of memory\n", ME);
		goto out;
	}
	ccs_free(m);
	struct ccs_fit *f;
	size_t nf;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_store_fits(s, r->id, &f, &nf, &d)) {
		ccs_runs_say(&d, "ccsim calibrate: cannot read fits");
		goto out;
	}
	if (nf) {
		printf("\nfits (the newest 'calibrate fit' of this run):\n");
		ccs_runs_print_fits(f, nf);
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
	struct ccs_runs_opts o;
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
	default: rc = ccs_cmd_calibrate_cmp(&o, k == 5); break;
	}
	ccs_args_sets_release(&o.sets);
	return rc;
}
