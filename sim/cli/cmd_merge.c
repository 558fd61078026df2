/*
** sim/cli/cmd_merge.c: `ccsim merge OUT.db SHARD.db...`: the shards of a
** sweep (`ccsim run --shard K/N`, a Slurm array, any ccsim databases) into
** one results database, each shard in one transaction (calibrate/merge.h):
** new rows appended, duplicates (same key, same numbers) skipped, a point
** computed differently in two databases reported and its shard left out.
** OUT is created when missing.  Exit 0 when every shard merged; 1 when one
** could not be (the others are merged); 2 on usage.
*/
#include "cli.h"
#include "progress.h"

#include "../../calibrate/merge.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *me = "ccsim merge";

struct conflicts {
	const char *shard;
	size_t n;
};

/* The first 20 conflicts of a shard are printed, then a count. */
static void on_conflict(void *ctx, const char *point, const char *diff)
{
	struct conflicts *c = ctx;
	if (c->n++ < 20)
		fprintf(stderr, "%s: %s: point '%s' differs: %s\n", me, c->shard, point, diff);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s OUT.db SHARD.db...\n"
	           "  every shard's scenarios, results and calibration runs appended to OUT.db (created when missing);\n"
	           "  a point already in OUT.db with the same numbers is skipped, one with other numbers is reported\n"
	           "  and that shard is not merged; merging again is harmless\n", me);
}

int ccs_cmd_merge(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "%s: unknown option '%s'\n", me, argv[i]);
			return 2;
		}
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_store *s;
	if (ccs_store_open(argv[1], &s, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return 1;
	}
	struct ccs_merge_stats st;
	memset(&st, 0, sizeof st);
	struct ccs_progress pg;
	ccs_progress_start(&pg, "shards", (size_t)argc - 2, isatty(2));
	size_t bad = 0;
	for (int i = 2; i < argc; i++) {
		struct conflicts c = { argv[i], 0 };
		memset(&d, 0, sizeof d);
		if (ccs_merge_shard(s, argv[i], &st, on_conflict, &c, &d)) {
			if (c.n > 20)
				fprintf(stderr, "%s: %s: %zu more points differ\n", me, argv[i], c.n - 20);
			fprintf(stderr, "%s%s\n", pg.tty && pg.shown ? "\n" : "", d.msg);
			bad++;
		}
		ccs_progress_update(&pg, (size_t)i - 1, i + 1 == argc);
	}
	ccs_store_close(s);
	printf("%s: %s: %zu of %d shards merged: %zu results added, %zu already there; %zu scenarios added; "
	       "%zu calibration runs added, %zu already there%s\n", me, argv[1], (size_t)(argc - 2) - bad, argc - 2,
	       st.results, st.dup_results, st.scenarios, st.runs, st.dup_runs, st.conflicts ? "; conflicts above" : "");
	return bad || ccs_args_flush() ? 1 : 0;
}
