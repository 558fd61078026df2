/* sim/cli/main.c: the `ccsim` command line: dispatch to commands. */
#include "cli.h"

#include "../../model/topo.h"

#include "../../model/ccs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_simulate(int argc, char **argv)
{
	/* several jobs on one fabric are their own command (cmd_jobs.c) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--job"))
			return ccs_cmd_jobs(argc, argv);
	return ccs_cmd_simulate(argc, argv);
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("ccsim %s\n", CCS_VERSION);
	return ccs_args_flush() ? 1 : 0;
}

static int cmd_help(int argc, char **argv);

/* The commands, as `ccsim help` lists them: name, entry point (argv[0] is
 * the command's name), the usage words and one line of help (a second line
 * where it continues; NULL: an alias, not listed). */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args, *help, *help2;
} commands[] = {
	{ "topo", ccs_cmd_topo, "show|check|dot|import FILE", "describe, validate or draw a topology;",
	  "import: an NCCL topology dump (NCCL_TOPO_DUMP_FILE) as topology YAML" },
	{ "predict", ccs_cmd_predict, "-t TOPO -c COLL", "closed-form cost of a collective, as nccl-tests prints it;",
	  "-c dispatch|combine|alltoallv for MoE expert-parallel traffic" },
	{ "simulate", cmd_simulate, "-t TOPO -c COLL", "the same through the event simulator (every algorithm)", NULL },
	{ "run", ccs_cmd_run, "SCENARIO.yaml", "a study: designs x workloads x sweeps, stored in ccsim.db, plotted", NULL },
	{ "step", ccs_cmd_step, "-t TOPO --tp --pp --dp", "one training step's TP, PP and DP communication per group",
	  NULL },
	{ "diagnose", ccs_cmd_diagnose, "-t TOPO LOG...", "which fault explains a measured nccl-tests log", NULL },
	{ "compare", ccs_cmd_compare, "A B", "two designs (-t A -t B -c COLL) or two stored results side by side", NULL },
	{ "merge", ccs_cmd_merge, "OUT.db SHARD.db...", "the shards of a sweep (run --shard, Slurm, MPI) into one database", NULL },
	{ "report", ccs_cmd_report, "SCENARIO", "one Markdown or HTML file with a stored study's tables and plots", NULL },
	{ "calibrate", ccs_cmd_calibrate, "run|ingest|fit|show|diff|check", NULL,
	  "measure, store (SQLite), fit and gate the hardware's alpha-beta" },
	{ "synth", ccs_cmd_synth, "-t TOPO -c COLL", "a schedule made for the topology (LP tree packing), beside NCCL's;",
	  "exported as MSCCL XML, MSCCL++ JSON or schedule YAML" },
	{ "params", ccs_cmd_params, "[-t TOPO]", "the model's physical constants, their sources, what a topology resolves",
	  NULL },
	{ "version", cmd_version, "", "print the version", NULL },
	{ "--version", cmd_version, NULL, NULL, NULL },
	{ "help", cmd_help, NULL, NULL, NULL },
	{ "-h", cmd_help, NULL, NULL, NULL },
	{ "--help", cmd_help, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ccsim COMMAND [ARGS]\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		const struct command *c = &commands[i];
		if (!c->args)
			continue;
		char head[64];
		snprintf(head, sizeof head, "%s%s%s", c->name, c->args[0] ? " " : "", c->args);
		if (!c->help)
			fprintf(f, "  %s\n", head);
		else if (strlen(head) > 26)
			fprintf(f, "  %s  %s\n", head, c->help);
		else
			fprintf(f, "  %-26s %s\n", head, c->help);
		if (c->help2)
			fprintf(f, "  %-26s %s\n", "", c->help2);
	}
	fprintf(f, "every command takes --set key.path=value to override a topology scalar.\n"
	           "run 'ccsim COMMAND --help' for a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return ccs_args_flush() ? 1 : 0;
}

int main(int argc, char **argv)
{
	ccs_alloc_init_from_env();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ccsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
