/* sim/cli/main.c: the `ccsim` command line: dispatch to commands. */
#include "cli.h"

#include "../../model/topo.h"

#include "../../model/ccs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CCSIM_VERSION "0.1.0"

const char *const ccs_version = CCSIM_VERSION;

void ccs_sets_init(struct ccs_sets *s) { memset(s, 0, sizeof *s); }

void ccs_sets_release(struct ccs_sets *s)
{
	for (int i = 0; i < s->nowned; i++)
		ccs_free(s->owned[i]);
	ccs_free(s->owned);
	ccs_free(s->v);
	memset(s, 0, sizeof *s);
}

int ccs_sets_arg(struct ccs_sets *s, int argc, char **argv, int *i)
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

int ccs_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "ccsim: cannot write output: %s\n", strerror(errno));
	return -1;
}

int ccs_refuse_timed(const char *what, const struct ccs_topo *t)
{
	if (!t->ntimed)
		return 0;
	fprintf(stderr, "%s: fault '%s' strikes during a run ('@'): ccsim simulate times that for every workload and "
	        "ccsim predict for NCCL's collectives; here faults apply from the start (drop the '@...')\n", what,
	        t->timed[0].spec);
	return 1;
}

int ccs_arg_int(const char *me, const char *flag, const char *v, long lo, long hi, int *out)
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

int ccs_arg_real(const char *me, const char *flag, const char *v, double lo, double hi, double *out)
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

int ccs_arg_value(const char *me, const char *what, int argc, char **argv, int *i, const char *const *names, size_t n,
                  const char **v)
{
	const char *a = argv[*i];
	size_t k = 0;
	while (k < n && strcmp(a, names[k]))
		k++;
	if (k == n) {
		fprintf(stderr, "%s: unknown option '%s' for %s (see %s %s --help)\n", me, a, what, me, what);
		return -1;
	}
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: '%s' needs a value\n", me, a);
		return -1;
	}
	*v = argv[++*i];
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: ccsim COMMAND [ARGS]\n"
	        "commands:\n"
	        "  topo show|check|dot FILE   describe, validate or draw a topology\n"
	        "  predict -t TOPO -c COLL    closed-form cost of a collective, as nccl-tests prints it;\n"
	        "                             -c dispatch|combine|alltoallv for MoE expert-parallel traffic\n"
	        "  simulate -t TOPO -c COLL   the same through the event simulator (every algorithm)\n"
	        "  run SCENARIO.yaml          a study: designs x workloads x sweeps, stored in ccsim.db, plotted\n"
	        "  step -t TOPO --tp --pp --dp  one training step's TP, PP and DP communication per group\n"
	        "  diagnose -t TOPO LOG...    which fault explains a measured nccl-tests log\n"
	        "  compare A B                two designs (-t A -t B -c COLL) or two stored results side by side\n"
	        "  report SCENARIO            one Markdown or HTML file with a stored study's tables and plots\n"
	        "  calibrate run|ingest|fit|show|diff|check\n"
	        "                             measure, store (SQLite), fit and gate the hardware's alpha-beta\n"
	        "  version                    print the version\n"
	        "every command takes --set key.path=value to override a topology scalar.\n"
	        "run 'ccsim COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	ccs_alloc_init_from_env();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "topo"))
		return ccs_cmd_topo(argc - 1, argv + 1);
	if (!strcmp(cmd, "predict"))
		return ccs_cmd_predict(argc - 1, argv + 1);
	if (!strcmp(cmd, "simulate")) {
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--job"))
				return ccs_cmd_jobs(argc - 1, argv + 1);
		return ccs_cmd_simulate(argc - 1, argv + 1);
	}
	if (!strcmp(cmd, "run"))
		return ccs_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "diagnose"))
		return ccs_cmd_diagnose(argc - 1, argv + 1);
	if (!strcmp(cmd, "step"))
		return ccs_cmd_step(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return ccs_cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return ccs_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "calibrate"))
		return ccs_cmd_calibrate(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("ccsim %s\n", CCSIM_VERSION);
		return ccs_flush_stdout() ? 1 : 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return ccs_flush_stdout() ? 1 : 0;
	}
	fprintf(stderr, "ccsim: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
