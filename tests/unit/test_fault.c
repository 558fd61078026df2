/*
** tests/unit/test_fault.c: load and describe topologies with each allocation
** failing in turn.  Every run must end in CCS_OK or CCS_ENOMEM with an
** "out of memory" message, never a crash, a leak (AddressSanitizer checks at
** exit) or another status.
*/
#include "../check.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"

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
		int rc = ccs_topo_load(path, sets, nsets, &t, &d);
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

int main(void)
{
	sweep("topologies/hgx-h100.yaml", NULL, 0);
	const char *sets[] = { "nodes=3" };
	sweep("topologies/gb200-nvl72.yaml", sets, 1);
	sweep("topologies/cluster-16k-3tier.yaml", (const char *const[]){ "nodes=8" }, 1);
	return CHECK_DONE("test_fault");
}
