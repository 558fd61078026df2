/*
** tests/unit/test_params.c: the parameter table (model/params.h): every
** default of ccs_model_params comes from a row that exists, every row has a
** kind and a source, and a topology's NVLink efficiency is its GPUs'
** generation's row unless the topology or --set gives one.
*/
#include "../check.h"
#include "fixture.h"
#include "../../model/params.h"
#include "../../model/transport.h"

#include <math.h>
#include <string.h>

static double nvlink_eff(const char *path, const char *set)
{
	const char *sets[1] = { set };
	struct ccs_topo *t = fx_load(path, sets, set ? 1 : 0);
	CHECK(t != NULL);
	double e = t ? t->params.eff[CCS_LINK_NVLINK] : -1.0;
	ccs_topo_free(t);
	return e;
}

int main(void)
{
	size_t n;
	const struct ccs_param *p = ccs_params_table(&n);
	static const char *const kinds[] = { "spec", "code", "ubench", "maint", "derived", "fitted", "stand-in" };
	for (size_t i = 0; i < n; i++) {
		int known = 0;
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			known |= !strcmp(p[i].kind, kinds[k]);
		CHECK(known);
		CHECK(strlen(p[i].source) > 10 && strlen(p[i].belongs) > 2);
		/* a count of rendezvous trips may be none; every other figure is positive */
		CHECK(p[i].value > 0 || (p[i].value == 0 && strstr(p[i].key, ".rdv_trips")));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(p[i].key, p[j].key));
	}
	CHECK(isnan(ccs_param("no.such.key")));
	/* the defaults read only rows that exist: no NaN anywhere */
	struct ccs_model_params d;
	ccs_model_params_default(&d);
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++)
		CHECK(d.eff[ty] > 0 && d.eff[ty] <= 1);
	for (int q = 0; q < 3; q++)
		CHECK(d.step_s[q] > 0);
	CHECK(d.ep_overhead_s > 0 && d.shot_overhead_s[0] > 0 && d.shot_overhead_s[1] > 0 && d.twoshot_eff > 0);
	/* NVLink by generation */
	CHECK_NEAR(nvlink_eff("topologies/dgx-a100.yaml", NULL), ccs_param("efficiency.nvlink.ampere"), 1e-12);
	CHECK_NEAR(nvlink_eff("topologies/hgx-h100.yaml", NULL), ccs_param("efficiency.nvlink.hopper"), 1e-12);
	CHECK_NEAR(nvlink_eff("topologies/hgx-b200.yaml", NULL), ccs_param("efficiency.nvlink.blackwell"), 1e-12);
	CHECK_NEAR(nvlink_eff("topologies/gb200-nvl72.yaml", NULL), ccs_param("efficiency.nvlink.blackwell"), 1e-12);
	CHECK(fabs(ccs_param("efficiency.nvlink.ampere") - ccs_param("efficiency.nvlink.hopper")) > 0.01);
	/* the topology's own value wins */
	CHECK_NEAR(nvlink_eff("topologies/hgx-b200.yaml", "model.efficiency.nvlink=0.5"), 0.5, 1e-12);
	/* each transport's costs are rows of the table (none for verbs) */
	struct ccs_transport_row tr;
	ccs_transport_row_of(CCS_TR_TCPX, &tr);
	CHECK_NEAR(tr.msg_lat_s, ccs_param("transport.tcpx.msg_latency") * 1e-6, 1e-12);
	CHECK_NEAR(tr.chunk_s, 10e-6, 1e-12);
	CHECK_NEAR(tr.eff, 0.85, 1e-12);
	CHECK(tr.protos == 4u);
	ccs_transport_row_of(CCS_TR_EFA, &tr);
	CHECK_NEAR(tr.nccl_lat_s, 75e-6, 1e-12);
	CHECK_NEAR(tr.eff, 1.0, 1e-12);
	CHECK(tr.trips == 0 && ccs_transport_rdv(&tr, 1e9) == 0);
	/* EFA v1's read-based rendezvous: two one-way trips above one packet */
	ccs_transport_row_of(CCS_TR_EFA_SENDRECV, &tr);
	CHECK(tr.trips == 2 && tr.eager_B == 8192);
	CHECK(ccs_transport_rdv(&tr, 8192) == 0);
	CHECK_NEAR(ccs_transport_rdv(&tr, 8193), 2 * tr.msg_lat_s, 1e-15);
	ccs_transport_row_of(CCS_TR_IB, &tr);
	CHECK(tr.msg_lat_s == 0 && tr.chunk_s == 0 && tr.eff == 1.0 && tr.nccl_lat_s == 0 && tr.protos == 7u);
	CHECK(tr.trips == 0 && tr.eager_B == 0);
	return CHECK_DONE("test_params");
}
