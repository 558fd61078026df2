/* sim/cli/main.c: the `ccsim` command line: dispatch to commands. */
#include "cli.h"

#include "../../model/topo.h"

#include "../../model/ccs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		printf("ccsim %s\n", CCS_VERSION);
		return ccs_args_flush() ? 1 : 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return ccs_args_flush() ? 1 : 0;
	}
	fprintf(stderr, "ccsim: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
