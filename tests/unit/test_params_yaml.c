/*
** tests/unit/test_params_yaml.c: a topology's `model:` section
** (model/params_yaml.c) on documents written here, each value and refusal
** checked by hand: efficiencies per link type (and the bit that says the
** topology gave them), step overheads per protocol in time units, the
** kernels' fixed costs, NCCL's release and CollNet switch, the transport by
** name and its costs overridden one by one; and the refusals, each at
** file:line:column: an efficiency out of (0, 1], a time with no unit, an
** unknown key with the nearest one suggested, an unknown transport, a
** release outside 2.18-2.30.  Fields the section does not name keep their
** defaults.
*/
#include "../check.h"

#include "../../model/params_yaml.h"
#include "../../model/transport.h"

#include <string.h>

/* The `model:` map of text (named m.yaml) read over the defaults into *p:
 * its return, the message in g. */
static int read_model(const char *text, struct ccs_model_params *p, struct ccs_diag *g)
{
	struct ccs_ydoc d;
	memset(&d, 0, sizeof d);
	memset(g, 0, sizeof *g);
	ccs_arena_init(&d.own);
	d.a = &d.own;
	d.diag = g;
	int src, rc;
	struct ccs_ynode *root = NULL;
	ccs_model_params_default(p);
	if ((rc = ccs_ytree_add_src(&d, "m.yaml", &src)) == CCS_OK) {
		d.cur = src;
		rc = ccs_ytree_parse(&d, text, strlen(text), &root);
	}
	struct ccs_ynode *m = rc == CCS_OK && root ? ccs_ytree_get(root, "model") : NULL;
	if (rc == CCS_OK)
		rc = m ? ccs_params_yaml_model(&d, m, p) : CCS_EINPUT;
	ccs_arena_release(&d.own);
	return rc;
}

static void test_values(void)
{
	struct ccs_model_params p, def;
	struct ccs_diag g;
	ccs_model_params_default(&def);
	const char *text = "model:\n"
	                   "  efficiency: {nvlink: 0.9, ib: 0.5}\n"
	                   "  step_overhead: {ll: 1us, simple: 2.5us}\n"
	                   "  ep_overhead: 30us\n"
	                   "  twoshot_efficiency: 0.7\n"
	                   "  nccl_version: 2.21.5\n"
	                   "  nccl_collnet: true\n"
	                   "  transport: efa\n"
	                   "  transport_costs: {chunk_cost: 2us, efficiency: 0.8, eager_max: 300KiB, rdv_trips: 0}\n";
	int rc = read_model(text, &p, &g);
	if (rc)
		printf("%s\n", g.msg);
	CHECK(rc == CCS_OK);
	CHECK_NEAR(p.eff[CCS_LINK_NVLINK], 0.9, 1e-15);
	CHECK_NEAR(p.eff[CCS_LINK_IB], 0.5, 1e-15);
	CHECK(p.eff_set == ((1u << CCS_LINK_NVLINK) | (1u << CCS_LINK_IB)));
	CHECK_NEAR(p.eff[CCS_LINK_PCIE], def.eff[CCS_LINK_PCIE], 1e-15);   /* not named: kept */
	CHECK_NEAR(p.step_s[0], 1e-6, 1e-12);
	CHECK_NEAR(p.step_s[1], def.step_s[1], 1e-12);
	CHECK_NEAR(p.step_s[2], 2.5e-6, 1e-12);
	CHECK_NEAR(p.ep_overhead_s, 30e-6, 1e-12);
	CHECK_NEAR(p.twoshot_eff, 0.7, 1e-15);
	CHECK(p.nccl_version == 221);
	CHECK(p.nccl_collnet == 1);
	CHECK(p.transport == CCS_TR_EFA);
	CHECK(p.tr_over_set ==
	      ((1u << CCS_TR_CHUNK) | (1u << CCS_TR_EFF) | (1u << CCS_TR_EAGER) | (1u << CCS_TR_TRIPS)));
	CHECK_NEAR(p.tr_over[CCS_TR_CHUNK], 2e-6, 1e-12);
	CHECK_NEAR(p.tr_over[CCS_TR_EFF], 0.8, 1e-15);
	CHECK_NEAR(p.tr_over[CCS_TR_EAGER], 300.0 * 1024, 1e-9);
	CHECK(p.tr_over[CCS_TR_TRIPS] == 0);
}

/* text is refused with a message that starts with at and holds what */
static void refused(const char *text, const char *at, const char *what)
{
	struct ccs_model_params p;
	struct ccs_diag g;
	int rc = read_model(text, &p, &g);
	int ok = rc == CCS_EINPUT && strstr(g.msg, at) == g.msg && strstr(g.msg, what);
	if (!ok)
		printf("refusal of <%s>: rc %d, message '%s' (want '%s' ... '%s')\n", text, rc, g.msg, at, what);
	CHECK(ok);
}

static void test_refusals(void)
{
	refused("model:\n  efficiency: {nvlink: 1.5}\n", "m.yaml:2:24:", "nvlink");
	refused("model:\n  efficiency: {nvlink: 0}\n", "m.yaml:2:24:", "nvlink");
	refused("model:\n  step_overhead: {ll: 3}\n", "m.yaml:2:23:", "unit");
	refused("model:\n  ep_overhaed: 3us\n", "m.yaml:2:3:", "ep_overhead");
	refused("model:\n  transport: carrier-pigeon\n", "m.yaml:2:14:", "efa");
	refused("model:\n  nccl_version: 2.5\n", "m.yaml:2:17:", "2.18");
	refused("model:\n  transport_costs: {chunk_cost: 2}\n", "m.yaml:2:33:", "unit");
	refused("model:\n  transport_costs: {rdv_trips: -1}\n", "m.yaml:2:32:", "count of one-way trips");
	refused("model:\n  transport_costs: {rdv_trips: 2us}\n", "m.yaml:2:32:", "rdv_trips");
	refused("model:\n  transport_costs: {rdv_trips: 1.5}\n", "m.yaml:2:32:", "count of one-way trips");
	refused("model:\n  transport_costs: {eager_max: 8}\n", "m.yaml:2:32:", "unit");
}

int main(void)
{
	test_values();
	test_refusals();
	return CHECK_DONE("test_params_yaml");
}
