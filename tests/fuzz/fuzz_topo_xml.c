/*
** tests/fuzz/fuzz_topo_xml.c: NCCL topology dumps (model/xml.c, topo_xml.c).
** A dump that converts gives topology YAML that loads.
*/
#include "fuzz.h"
#include "../../model/topo_xml.h"
#include "../../model/topo_yaml.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *yaml = NULL, *warn = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_topo_xml_yaml("fuzz.xml", (const char *)data, n, &yaml, &warn, &d);
	fuzz_check_diag(rc, d.msg, d.set);
	if (rc == CCS_OK) {
		FUZZ_REQUIRE(yaml != NULL);
		struct ccs_diag d2;
		memset(&d2, 0, sizeof d2);
		struct ccs_topo *t = NULL;
		int lrc = ccs_topo_load_buf("fuzz.xml.yaml", yaml, strlen(yaml), NULL, 0, &t, &d2);
		if (lrc != CCS_OK)
			fprintf(stderr, "import gave YAML that does not load: %s\n%s\n", d2.msg, yaml);
		FUZZ_REQUIRE(lrc == CCS_OK);
		ccs_topo_free(t);
	}
	ccs_free(yaml);
	ccs_free(warn);
	return 0;
}
