/*
** tests/fuzz/fuzz_scenario.c: scenario YAML (sim/cli/cmd_run.c, run/ files)
** through `ccsim run FILE --check`: every design, workload and point
** checked, nothing run; a file the check passes is then run with the
** closed form (`--engine model`, an in-memory database, no plots), which
** must end 0 or 1 as well.  The file is written to build/fuzz/scen/,
** beside a link to topologies/, so that shipped scenarios'
** "../topologies/X" resolve.  The command must end 0 or 1 (never 2, a
** usage error).
*/
#include "fuzz.h"
#include "../../sim/cli/cli.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static int ready;
	if (!ready) {
		mkdir("build/fuzz", 0777);
		if (symlink("../../topologies", "build/fuzz/topologies"))
			(void)0;   /* there already */
		ready = 1;
	}
	char *path = strdup(fuzz_file(data, n, "build/fuzz/scen", ".yaml"));
	char *argv[] = { "run", path, "--check", "--no-plots", NULL };
	int rc = ccs_cmd_run(4, argv);
	FUZZ_REQUIRE(rc == 0 || rc == 1);
	if (rc == 0) {
		char *run[] = { "run", path, "--engine", "model", "--db", ":memory:", "--no-plots", "--quick", NULL };
		rc = ccs_cmd_run(8, run);
		FUZZ_REQUIRE(rc == 0 || rc == 1);
	}
	free(path);
	return 0;
}
