/*
** tests/unit/test_fuzz.c: seeded random corruptions of shipped topologies.
** Each mutant (1-4 bytes replaced by YAML-significant characters, or a span
** deleted) must load with CCS_OK or fail with CCS_EINPUT and a positioned
** message: never crash (the sanitizers watch), hang or return another
** status.  A failure prints the seed and the mutant.  CCS_FUZZ_SEED and
** CCS_FUZZ_N override the defaults.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"

#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc(1 << 16);
	*len = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	return buf;
}

int main(void)
{
	static const char *const files[] = {
		"topologies/hgx-h100.yaml", "topologies/gb200-nvl72.yaml", "topologies/ascend-8npu-hccs.yaml",
		"topologies/pcie-8gpu.yaml", "topologies/dgx-a100.yaml",
	};
	static const char charset[] = ":-[]{},#&*!|>'\"%@ \n\t0123456789abcdefxyz/.";
	const char *s = getenv("CCS_FUZZ_SEED"), *nstr = getenv("CCS_FUZZ_N");
	uint64_t seed = s ? strtoull(s, NULL, 10) : 20261130u;
	int n = nstr ? atoi(nstr) : 400;
	int ok = 0, input = 0;
	for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
		size_t len;
		char *orig = slurp(files[fi], &len);
		CHECK(orig != NULL);
		if (!orig)
			continue;
		char *buf = malloc(len + 1);
		for (int i = 0; i < n; i++) {
			uint64_t case_seed = seed * 1000003u + fi * 100000u + (uint64_t)i + 1;
			fx_rng = case_seed;
			memcpy(buf, orig, len);
			size_t blen = len;
			if (fx_next() % 4 == 0) {          /* delete a span */
				size_t at = fx_next() % blen, span = 1 + fx_next() % 40;
				if (at + span > blen)
					span = blen - at;
				memmove(buf + at, buf + at + span, blen - at - span);
				blen -= span;
			} else {                        /* replace 1-4 bytes */
				int k = 1 + (int)(fx_next() % 4);
				for (int j = 0; j < k; j++)
					buf[fx_next() % blen] = charset[fx_next() % (sizeof charset - 1)];
			}
			struct ccs_diag d;
			memset(&d, 0, sizeof d);
			struct ccs_topo *t = NULL;
			int rc = ccs_topo_yaml_load_buf("fuzz.yaml", buf, blen, NULL, 0, &t, &d);
			if (rc == CCS_OK) {
				struct ccs_topo_stats st;
				CHECK(ccs_topo_stats(t, &st) == CCS_OK);
				ccs_topo_free(t);
				ok++;
			} else if (rc == CCS_EINPUT && d.set && !strncmp(d.msg, "fuzz.yaml:", 10)) {
				input++;
			} else {
				check_fail++;
				fprintf(stderr, "case seed %llu (%s): status %d, message '%s'\n--- mutant ---\n%.*s\n",
				        (unsigned long long)case_seed, files[fi], rc, d.msg, (int)blen, buf);
			}
		}
		free(buf);
		free(orig);
	}
	check_pass++;
	printf("test_fuzz: seed %llu: %d mutants loaded, %d rejected with a position\n",
	       (unsigned long long)seed, ok, input);
	return CHECK_DONE("test_fuzz");
}
