/* tests/fuzz/fuzz_util.c: the helpers of fuzz.h. */
#include "fuzz.h"
#include "../../model/comm.h"
#include "../../model/topo_yaml.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fuzz_text(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);
	FUZZ_REQUIRE(s != NULL);
	memcpy(s, data, n);
	s[n] = 0;
	return s;
}

const char *fuzz_file(const uint8_t *data, size_t n, const char *dir, const char *suffix)
{
	static char path[512];
	/* dir and every folder above it */
	snprintf(path, sizeof path, "%s/", dir);
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		mkdir(path, 0777);
		*p = '/';
	}
	snprintf(path, sizeof path, "%s/in-%ld%s", dir, (long)getpid(), suffix);
	FILE *f = fopen(path, "wb");
	FUZZ_REQUIRE(f != NULL);
	FUZZ_REQUIRE(fwrite(data, 1, n, f) == n);
	FUZZ_REQUIRE(fclose(f) == 0);
	return path;
}

void fuzz_check_diag(int rc, const char *msg, int set)
{
	if (rc == CCS_OK)
		return;
	/* out of memory is not expected in a fuzz run; anything else is input */
	FUZZ_REQUIRE(rc == CCS_EINPUT || rc == CCS_EIO || rc == CCS_EFIT);
	FUZZ_REQUIRE(set && msg[0]);
}

const struct ccs_comm *fuzz_hgx_h100(void)
{
	static struct ccs_topo *topo;
	static struct ccs_comm comm;
	if (!topo) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		char err[256];
		FUZZ_REQUIRE(ccs_topo_yaml_load("topologies/hgx-h100.yaml", NULL, 0, &topo, &d) == CCS_OK);
		FUZZ_REQUIRE(ccs_comm_build(topo, 8, 0, &comm, err, sizeof err) == CCS_OK);
	}
	return &comm;
}
