/*
** sim/cli/run/slurm.c: `ccsim run SCENARIO --slurm`: a Slurm job array with
** one task per shard (`ccsim run --shard $SLURM_ARRAY_TASK_ID/N`, each into
** its own database) and a merge job that waits for all of them
** (`sbatch --dependency=afterok:ARRAY`), written to DIR/array.sbatch and
** DIR/merge.sbatch; with --submit both are submitted and their ids
** printed.  Paths in the scripts are absolute (the tasks run on other
** nodes, from another folder); the shards' databases are
** DIR/shard-K-of-N.db.  A shard whose database holds all its points is
** left out of the array, so the same command run again after a partial
** failure runs only what is missing (run.h).
*/
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *me = "ccsim run";

#define DEFAULT_SHARDS 16

int ccs_slurm_arg(struct ccs_slurm *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--slurm") || !strcmp(a, "--submit")) {
		*(a[2] == 's' && a[3] == 'l' ? &o->on : &o->submit) = 1;
		return 1;
	}
	static const char *const val[] = { "--shards", "--slurm-dir", "--partition", "--account", "--time", "--sbatch" };
	size_t k = 0;
	while (k < sizeof val / sizeof val[0] && strcmp(a, val[k]))
		k++;
	if (k == sizeof val / sizeof val[0])
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: '%s' needs a value\n", me, a);
		return -1;
	}
	const char *v = argv[++*i];
	const char **dst[] = { NULL, &o->dir, &o->partition, &o->account, &o->time, NULL };
	if (k == 0) {
		int n;
		if (ccs_args_int(me, a, v, 1, 100000, &n))
			return -1;
		o->shards = n;
	} else if (k == 5) {
		if (o->nextra == 8) {
			fprintf(stderr, "%s: at most 8 '--sbatch' options\n", me);
			return -1;
		}
		o->extra[o->nextra++] = v;
	} else {
		*dst[k] = v;
	}
	if (strchr(v, '\n')) {
		fprintf(stderr, "%s: '%s' value has a line break\n", me, a);
		return -1;
	}
	return 1;
}

/* s single-quoted for the shell ('it'\''s'). */
static void shq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* path made absolute: realpath of the file, or of its folder when the file
 * does not exist yet. */
static int absolute(const char *path, char *out, size_t n)
{
	char buf[PATH_MAX];
	if (realpath(path, buf))
		return (size_t)snprintf(out, n, "%s", buf) >= n;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *sl = strrchr(dir, '/');
	const char *base = sl ? sl + 1 : path;
	if (sl)
		*sl = 0;
	if (!realpath(sl ? (dir[0] ? dir : "/") : ".", buf))
		return 1;
	return (size_t)snprintf(out, n, "%s/%s", strcmp(buf, "/") ? buf : "", base) >= n;
}

struct plan {
	const struct ccs_slurm *o;
	char exe[PATH_MAX], scen[PATH_MAX], db[PATH_MAX], dir[PATH_MAX], name[200];
	size_t n, ntodo, *todo;     /* shards, and those not complete */
	unsigned char *empty;       /* per shard: it has no points (no task, no database) */
	int jobs, quick;
	const char *engine;
};

static void sbatch_common(FILE *f, const struct plan *p)
{
	if (p->o->partition)
		fprintf(f, "#SBATCH --partition=%s\n", p->o->partition);
	if (p->o->account)
		fprintf(f, "#SBATCH --account=%s\n", p->o->account);
	if (p->o->time)
		fprintf(f, "#SBATCH --time=%s\n", p->o->time);
	for (int i = 0; i < p->o->nextra; i++)
		fprintf(f, "#SBATCH %s\n", p->o->extra[i]);
}

static void write_array(FILE *f, const struct plan *p)
{
	fprintf(f, "#!/bin/bash\n# written by ccsim %s: one Slurm array task per shard of scenario '%s';\n"
	           "# the same 'ccsim run --slurm' command again rewrites it for the shards not finished\n",
	        CCS_VERSION, p->name);
	fprintf(f, "#SBATCH --job-name=ccsim-%s\n#SBATCH --array=", p->name);
	/* runs of consecutive shards as ranges: 0-3,5,7-9 */
	for (size_t i = 0, j; i < p->ntodo; i = j + 1) {
		for (j = i; j + 1 < p->ntodo && p->todo[j + 1] == p->todo[j] + 1; j++)
			;
		fprintf(f, "%s%zu", i ? "," : "", p->todo[i]);
		if (j > i)
			fprintf(f, "%s%zu", j > i + 1 ? "-" : ",", p->todo[j]);
	}
	fprintf(f, "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n#SBATCH --output=%s/shard-%%a-of-%zu.out\n", p->jobs,
	        p->dir, p->n);
	sbatch_common(f, p);
	fprintf(f, "set -eu\nk=${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array task: SLURM_ARRAY_TASK_ID is not set}\n");
	fprintf(f, "exec ");
	shq(f, p->exe);
	fprintf(f, " run ");
	shq(f, p->scen);
	fprintf(f, " --shard \"$k/%zu\" --db ", p->n);
	shq(f, p->dir);
	fprintf(f, "\"/shard-$k-of-%zu.db\" -j %d --no-plots%s", p->n, p->jobs, p->quick ? " --quick" : "");
	if (p->engine) {
		fprintf(f, " --engine ");
		shq(f, p->engine);
	}
	fprintf(f, "\n");
}

static void write_merge(FILE *f, const struct plan *p)
{
	fprintf(f, "#!/bin/bash\n# written by ccsim %s: the shards of scenario '%s' merged into one database,\n"
	           "# after every array task has succeeded (sbatch --dependency=afterok:ARRAY_JOB)\n",
	        CCS_VERSION, p->name);
	fprintf(f, "#SBATCH --job-name=ccsim-%s-merge\n#SBATCH --ntasks=1\n#SBATCH --output=%s/merge.out\n", p->name, p->dir);
	sbatch_common(f, p);
	fprintf(f, "set -eu\nexec ");
	shq(f, p->exe);
	fprintf(f, " merge ");
	shq(f, p->db);
	for (size_t k = 0; k < p->n; k++) {
		if (p->empty[k])
			continue;
		fprintf(f, " \\\n\t");
		char s[PATH_MAX + 64];
		snprintf(s, sizeof s, "%s/shard-%zu-of-%zu.db", p->dir, k, p->n);
		shq(f, s);
	}
	fprintf(f, "\n");
}

/* DIR/name written whole (a temporary file renamed over it), mode 0755. */
static int write_script(const struct plan *p, const char *name, void (*body)(FILE *, const struct plan *))
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
	snprintf(path, sizeof path, "%s/%s", p->dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", me, tmp, strerror(errno));
		return 1;
	}
	body(f, p);
	int bad = ferror(f);
	bad |= fflush(f) || fsync(fileno(f));
	bad |= fclose(f) != 0;
	if (bad || chmod(tmp, 0755) || rename(tmp, path)) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", me, path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* Paths, the shard count and the shards not finished. */
static int make_plan(const struct scen *S, const struct ccs_slurm *o, const char *path, const char *hash,
                     const char *db, struct plan *p)
{
	p->o = o;
	p->n = o->shards ? (size_t)o->shards : S->npt < DEFAULT_SHARDS ? S->npt : DEFAULT_SHARDS;
	if (!p->n)
		p->n = 1;
	ccs_plot_slug(S->name, p->name, sizeof p->name);
	char dir[PATH_MAX];
	if (o->dir)
		snprintf(dir, sizeof dir, "%s", o->dir);
	else
		snprintf(dir, sizeof dir, "ccsim-slurm/%s", p->name);
	ssize_t l = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
	if (l <= 0 || ccs_plots_mkdirs(dir) || absolute(dir, p->dir, sizeof p->dir) || absolute(path, p->scen, sizeof p->scen) ||
	    absolute(db, p->db, sizeof p->db)) {
		fprintf(stderr, "%s: cannot make the scripts' folder '%s' or find the paths: %s\n", me, dir, strerror(errno));
		return 1;
	}
	p->exe[l] = 0;
	/* the points by shard (each key hashed once): off[k]..off[k + 1] in pts */
	p->todo = ccs_calloc(p->n, sizeof *p->todo);
	p->empty = ccs_calloc(p->n, 1);
	size_t *of = ccs_calloc(S->npt + 1, sizeof *of), *pts = ccs_calloc(S->npt + 1, sizeof *pts);
	size_t *off = ccs_calloc(p->n + 1, sizeof *off);
	int bad = !p->todo || !p->empty || !of || !pts || !off;
	if (bad)
		fprintf(stderr, "%s: out of memory\n", me);
	for (size_t i = 0; !bad && i < S->npt; i++)
		off[(of[i] = ccs_shard_of(S->pt[i].key, p->n)) + 1]++;
	for (size_t k = 0; !bad && k < p->n; k++)
		off[k + 1] += off[k];
	for (size_t i = 0; !bad && i < S->npt; i++)
		pts[off[of[i]]++] = i;
	for (size_t k = p->n; !bad && k > 0; k--)
		off[k] = off[k - 1];
	if (!bad)
		off[0] = 0;
	for (size_t k = 0; !bad && k < p->n; k++) {
		char sdb[PATH_MAX + 64];
		snprintf(sdb, sizeof sdb, "%s/shard-%zu-of-%zu.db", p->dir, k, p->n);
		size_t miss = 0;
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		p->empty[k] = off[k + 1] == off[k];
		if (!p->empty[k] && ccs_shard_missing(S, hash, pts + off[k], off[k + 1] - off[k], sdb, &miss, &d)) {
			fprintf(stderr, "%s\n", d.msg);
			bad = 1;
		}
		if (miss)
			p->todo[p->ntodo++] = k;
	}
	ccs_free(of);
	ccs_free(pts);
	ccs_free(off);
	return bad;
}

/* sbatch's job id from `sbatch --parsable ARGS...` ("ID" or "ID;CLUSTER"). */
static int sbatch(char *const argv[], char *id, size_t n)
{
	int fd[2];
	if (pipe(fd))
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", me, argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < n && (r = read(fd[0], id + got, n - 1 - got)) > 0)
		got += (size_t)r;
	close(fd[0]);
	id[got] = 0;
	id[strcspn(id, ";\n")] = 0;
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !id[0] || strspn(id, "0123456789") != strlen(id)) {
		fprintf(stderr, "%s: sbatch failed%s%s\n", me, id[0] ? "; it printed: " : "", id);
		return 1;
	}
	return 0;
}

static int submit(const struct plan *p)
{
	char arr[PATH_MAX + 32], mrg[PATH_MAX + 32], aid[64] = "", mid[64] = "", dep[96];
	snprintf(arr, sizeof arr, "%s/array.sbatch", p->dir);
	snprintf(mrg, sizeof mrg, "%s/merge.sbatch", p->dir);
	if (p->ntodo) {
		char *a[] = { "sbatch", "--parsable", arr, NULL };
		if (sbatch(a, aid, sizeof aid))
			return 1;
		snprintf(dep, sizeof dep, "--dependency=afterok:%s", aid);
		char *m[] = { "sbatch", "--parsable", dep, mrg, NULL };
		if (sbatch(m, mid, sizeof mid))
			return 1;
		printf("%s: submitted array job %s (%zu of %zu shards) and merge job %s (after it succeeds)\n", me, aid,
		       p->ntodo, p->n, mid);
	} else {
		char *m[] = { "sbatch", "--parsable", mrg, NULL };
		if (sbatch(m, mid, sizeof mid))
			return 1;
		printf("%s: every shard is complete: submitted merge job %s alone\n", me, mid);
	}
	return 0;
}

int ccs_slurm_write(const struct scen *S, const struct ccs_slurm *o, const char *path, const char *hash, const char *db,
                    int jobs, const char *engine, int quick)
{
	struct plan p;
	memset(&p, 0, sizeof p);
	p.jobs = jobs;
	p.engine = engine;
	p.quick = quick;
	int bad = make_plan(S, o, path, hash, db, &p);
	if (!bad && p.ntodo)
		bad = write_script(&p, "array.sbatch", write_array);
	if (!bad)
		bad = write_script(&p, "merge.sbatch", write_merge);
	if (!bad) {
		printf("%s: %s: %zu points in %zu shards, %zu to run (%zu complete in %s/shard-K-of-%zu.db)\n", me, path,
		       S->npt, p.n, p.ntodo, p.n - p.ntodo, p.dir, p.n);
		if (p.ntodo)
			printf("%s: wrote %s/array.sbatch and %s/merge.sbatch\n", me, p.dir, p.dir);
		else
			printf("%s: wrote %s/merge.sbatch (no shard left to run)\n", me, p.dir);
		if (!o->submit && p.ntodo)
			printf("%s: submit: jid=$(sbatch --parsable %s/array.sbatch) && sbatch --dependency=afterok:$jid "
			       "%s/merge.sbatch\n", me, p.dir, p.dir);
		else if (!o->submit)
			printf("%s: submit: sbatch %s/merge.sbatch\n", me, p.dir);
		else
			bad = submit(&p);
	}
	ccs_free(p.todo);
	ccs_free(p.empty);
	return bad;
}
