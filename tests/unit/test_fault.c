/*
** tests/unit/test_fault.c: load and describe topologies with each allocation
** failing in turn.  Every run must end in CCS_OK or CCS_ENOMEM with an
** "out of memory" message, never a crash, a leak (AddressSanitizer checks at
** exit) or another status.
*/
#include "../check.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"

#include <string.h>

static void sweep(const char *path, const char *const *sets, int nsets)
{
	int done = 0, bad = 0;
	long n;
	for (n = 1; n < 100000 && !done; n++) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		struct ccs_topo *t = NULL;
		ccs_alloc_fail_at(n);
		int rc = ccs_topo_yaml_load(path, sets, nsets, &t, &d);
		if (rc == CCS_OK) {
			struct ccs_topo_stats s;
			rc = ccs_topo_stats(t, &s);
			ccs_topo_free(t);
		} else if (rc == CCS_ENOMEM && !strstr(d.msg, "out of memory")) {
			fprintf(stderr, "fail at %ld: message '%s'\n", n, d.msg);
			bad++;
		}
		if (rc != CCS_OK && rc != CCS_ENOMEM) {
			fprintf(stderr, "fail at %ld: status %d (%s)\n", n, rc, d.msg);
			bad++;
		}
		done = !ccs_alloc_failed();
		if (done && rc != CCS_OK) {
			fprintf(stderr, "no injected failure but status %d\n", rc);
			bad++;
		}
	}
	ccs_alloc_fail_at(0);
	CHECK(done);
	CHECK(bad == 0);
	printf("test_fault: %s: %ld allocations, each failed once\n", path, n - 2);
}

/* A schedule file loaded and run, each allocation failing in turn. */
static void sweep_sim(void)
{
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	struct ccs_comm c;
	char err[256];
	const char *sets[] = { "nodes=2" };
	CHECK(!ccs_topo_yaml_load("topologies/hgx-h100-cluster.yaml", sets, 1, &t, &d));
	CHECK(t && !ccs_comm_build(t, 0, 0, &c, err, sizeof err));
	if (!t)
		return;
	int done = 0, bad = 0;
	long n;
	for (n = 1; n < 100000 && !done; n++) {
		memset(&d, 0, sizeof d);
		struct ccs_sched s;
		int ranks;
		ccs_alloc_fail_at(n);
		int rc = ccs_sched_file_load("scenarios/incast-2node.yaml", &c, 0, &s, &ranks, &d);
		if (rc == CCS_ENOMEM && !strstr(d.msg, "out of memory")) {
			fprintf(stderr, "sim fail at %ld: message '%s'\n", n, d.msg);
			bad++;
		}
		if (rc == CCS_OK) {
			struct ccs_fabric *fab = NULL;
			rc = ccs_fabric_new(&c, &fab);
			if (rc == CCS_OK) {
				struct ccs_sim_stats st;
				rc = ccs_sim_run(fab, &s, &st, NULL, err, sizeof err);
				ccs_fabric_free(fab);
			}
			ccs_sched_release(&s);
		}
		if (rc != CCS_OK && rc != CCS_ENOMEM) {
			fprintf(stderr, "sim fail at %ld: status %d\n", n, rc);
			bad++;
		}
		done = !ccs_alloc_failed();
	}
	ccs_alloc_fail_at(0);
	CHECK(done);
	CHECK(bad == 0);
	printf("test_fault: schedule load and run: %ld allocations, each failed once\n", n - 2);
	ccs_comm_release(&c);
	ccs_topo_free(t);
}

int main(void)
{
	sweep_sim();
	sweep("topologies/hgx-h100.yaml", NULL, 0);
	const char *sets[] = { "nodes=3" };
	sweep("topologies/gb200-nvl72.yaml", sets, 1);
	sweep("topologies/cluster-16k-3tier.yaml", (const char *const[]){ "nodes=8" }, 1);
	return CHECK_DONE("test_fault");
}
