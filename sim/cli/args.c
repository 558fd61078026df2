/* sim/cli/args.c: what every command shares: --set and --fault, option
** values, the topology loaded with them, output flushing (cli.h). */
#include "cli.h"

#include "../../model/comm.h"
#include "../../model/topo.h"
#include "../../model/topo_yaml.h"

#include "../../model/ccs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ccs_args_sets_init(struct ccs_args_sets *s) { memset(s, 0, sizeof *s); }

void ccs_args_sets_release(struct ccs_args_sets *s)
{
	for (int i = 0; i < s->nowned; i++)
		ccs_free(s->owned[i]);
	ccs_free(s->owned);
	ccs_free(s->v);
	memset(s, 0, sizeof *s);
}

int ccs_args_set(struct ccs_args_sets *s, int argc, char **argv, int *i)
{
	char *val;
	int fault = !strcmp(argv[*i], "--fault") || !strncmp(argv[*i], "--fault=", 8);
	if (!strcmp(argv[*i], "--set") || !strcmp(argv[*i], "--fault")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "ccsim: '%s' needs %s\n", argv[*i], fault ? "a fault (link:A-B:down ...)" : "key.path=value");
			return -1;
		}
		val = argv[++*i];
	} else if (!strncmp(argv[*i], "--set=", 6) || fault) {
		val = argv[*i] + (fault ? 8 : 6);
	} else {
		return 0;
	}
	if (fault) {
		/* the loader takes faults as "faults+=SPEC" among the sets */
		size_t l = strlen(val) + 9;
		char *own = ccs_malloc(l);
		char **no = ccs_realloc(s->owned, ((size_t)s->nowned + 1) * sizeof *no);
		if (!own || !no) {
			ccs_free(own);
			if (no)
				s->owned = no;
			fprintf(stderr, "ccsim: out of memory\n");
			return -1;
		}
		snprintf(own, l, "faults+=%s", val);
		s->owned = no;
		s->owned[s->nowned++] = own;
		val = own;
	}
	if (s->n == s->cap) {
		int nc = s->cap ? s->cap * 2 : 8;
		char **nv = ccs_realloc(s->v, (size_t)nc * sizeof *nv);
		if (!nv) {
			fprintf(stderr, "ccsim: out of memory\n");
			return -1;
		}
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = val;
	return 1;
}

int ccs_args_flush(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "ccsim: cannot write output: %s\n", strerror(errno));
	return -1;
}

int ccs_args_write_atomic(const char *me, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
		fprintf(stderr, "%s: cannot write '%s': the path is too long\n", me, path);
		return -1;
	}
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", me, tmp, strerror(errno));
		return -1;
	}
	errno = 0;
	int bad = fill(f, ctx) | ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		fprintf(stderr, "%s: cannot write '%s'%s%s\n", me, path, errno ? ": " : "", errno ? strerror(errno) : "");
		unlink(tmp);
		return -1;
	}
	return 0;
}

int ccs_args_refuse_timed(const char *what, const struct ccs_topo *t)
{
	if (!t->ntimed)
		return 0;
	fprintf(stderr, "%s: fault '%s' strikes during a run ('@'): ccsim simulate times that for every workload and "
	        "ccsim predict for NCCL's collectives; here faults apply from the start (drop the '@...')\n", what,
	        t->timed[0].spec);
	return 1;
}

int ccs_args_shared(struct ccs_args_sets *s, int argc, char **argv, int *i, void (*help)(FILE *))
{
	int r = ccs_args_set(s, argc, argv, i);
	if (r)
		return r < 0 ? -1 : CCS_ARGS_TOOK;
	if (strcmp(argv[*i], "-h") && strcmp(argv[*i], "--help"))
		return CCS_ARGS_NONE;
	help(stdout);
	return CCS_ARGS_HELP;
}

int ccs_args_topo(const char *me, const char *path, const struct ccs_args_sets *s, struct ccs_topo **t)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_topo_yaml_load(path, (const char *const *)s->v, s->n, t, &d)) {
		fprintf(stderr, "%s\n", d.set ? d.msg : "ccsim: failed to load topology");
		return -1;
	}
	if ((*t)->note)
		fprintf(stderr, "warning: %s\n", (*t)->note);
	/* NCCL's environment, as a job's NCCL reads it (nccl_env.c) */
	if (ccs_nccl_env_topo(me ? me : "ccsim", *t)) {
		ccs_topo_free(*t);
		*t = NULL;
		return -1;
	}
	return me && ccs_args_refuse_timed(me, *t) ? -1 : 0;
}

int ccs_args_comm(const char *me, const struct ccs_topo *t, int nranks, int ppn, struct ccs_comm *c)
{
	char err[256];
	if (!ccs_comm_build(t, nranks, ppn, c, err, sizeof err))
		return 0;
	fprintf(stderr, "%s: %s\n", me, err);
	return -1;
}

int ccs_args_int(const char *me, const char *flag, const char *v, long lo, long hi, int *out)
{
	char *end;
	long x = strtol(v, &end, 10);
	if (!*v || *end || x < lo || x > hi) {
		fprintf(stderr, "%s: '%s' must be a whole number from %ld to %ld, got '%s'\n", me, flag, lo, hi, v);
		return -1;
	}
	*out = (int)x;
	return 0;
}

int ccs_args_real(const char *me, const char *flag, const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (!*v || *end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "%s: '%s' must be a number from %g to %g, got '%s'\n", me, flag, lo, hi, v);
		return -1;
	}
	*out = x;
	return 0;
}

/* An unknown flag, with the nearest of the n known ones (cands, may be
 * NULL) when one is near (ccs_suggest): -1. */
int ccs_args_unknown_near(const char *me, const char *what, const char *flag, const char *const *cands, int n)
{
	const char *near = cands ? ccs_suggest(flag, cands, n) : NULL;
	char hint[96] = "";
	if (near)
		snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
	if (what)
		fprintf(stderr, "%s: unknown option '%s' for %s%s (see %s %s --help)\n", me, flag, what, hint, me, what);
	else
		fprintf(stderr, "%s: unknown option '%s'%s (see %s --help)\n", me, flag, hint, me);
	return -1;
}

int ccs_args_value(const char *me, const char *what, int argc, char **argv, int *i, const char *const *names, size_t n,
                  const char **v)
{
	const char *a = argv[*i];
	size_t k = 0;
	while (k < n && strcmp(a, names[k]))
		k++;
	if (k == n)
		return ccs_args_unknown_near(me, what, a, names, (int)n);
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: '%s' needs a value\n", me, a);
		return -1;
	}
	*v = argv[++*i];
	return 0;
}

static int take_name(const char *me, const struct ccs_args_opt *o, const char *v)
{
	for (int k = 0; k < o->nnames; k++)
		if (!strcmp(v, o->names[k])) {
			*(int *)o->dest = k;
			return 0;
		}
	fprintf(stderr, "%s: unknown %s '%s'; one of:", me, o->key, v);
	for (int k = 0; k < o->nnames; k++)
		fprintf(stderr, "%s %s", k ? "," : "", o->names[k]);
	fprintf(stderr, "\n");
	return -1;
}

const struct ccs_args_opt *ccs_args_find(const struct ccs_args_opt *opts, size_t n, const char *flag)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(flag, opts[k].flag))
			return &opts[k];
	return NULL;
}

int ccs_args_unknown(const char *me, const char *what, const char *flag)
{
	return ccs_args_unknown_near(me, what, flag, NULL, 0);
}

int ccs_args_take(const char *me, const char *what, const struct ccs_args_opt *opts, size_t n, int argc, char **argv,
                  int *i)
{
	const struct ccs_args_opt *o = ccs_args_find(opts, n, argv[*i]);
	if (o)
		return ccs_args_store(me, o, argc, argv, i);
	const char *flags[128];
	int nf = 0;
	for (size_t k = 0; k < n && nf < 128; k++)
		flags[nf++] = opts[k].flag;
	return ccs_args_unknown_near(me, what, argv[*i], flags, nf);
}

int ccs_args_store(const char *me, const struct ccs_args_opt *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (o->kind == CCS_ARGS_FLAG) {
		*(int *)o->dest = 1;
		return 0;
	}
	if (*i + 1 >= argc) {
		if (o->kind == CCS_ARGS_FN && o->key)
			return o->fn(me, o, NULL);   /* says what it needs */
		fprintf(stderr, "%s: '%s' needs %s\n", me, a, o->kind == CCS_ARGS_STR && o->key ? o->key : "a value");
		return -1;
	}
	const char *v = argv[++*i];
	switch (o->kind) {
	case CCS_ARGS_STR:
		*(const char **)o->dest = v;
		return 0;
	case CCS_ARGS_INT:
		return ccs_args_int(me, a, v, (long)o->lo, (long)o->hi, o->dest);
	case CCS_ARGS_REAL:
		return ccs_args_real(me, a, v, o->lo, o->hi, o->dest);
	case CCS_ARGS_NAME:
		return take_name(me, o, v);
	default:
		return o->fn(me, o, v);
	}
}
