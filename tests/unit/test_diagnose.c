/*
** tests/unit/test_diagnose.c: calibrate/diagnose.h rule by rule.
**
** The evidence rules (each kind under each combination of NCCL's lines),
** the score and the bias on rows built to a known error, equivalent
** hypotheses merged and named by the stated member, a straggler the bias
** fits better dropped, the evidence/fit conflict both ways, each verdict
** (none, a fault, no single fault, a bias inside the model's error), a
** fault tried in memory against the same fault loaded from the file (and
** the topology put back exactly), and a planted fault found end to end.
*/
#include "../check.h"
#include "fixture.h"

#include "../../calibrate/diag_cand.h"
#include "../../calibrate/diagnose.h"
#include "../../calibrate/ntinfo.h"
#include "../../model/ccs.h"
#include "../../model/coll.h"
#include "../../model/topo_yaml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NR 4
#define TOL 0.15

static struct ccs_diagnose_row rows[NR];

/* NR rows measured at 100 us .. 400 us, each with the floor's error. */
static void mk_rows(void)
{
	for (int i = 0; i < NR; i++) {
		rows[i] = (struct ccs_diagnose_row){ CCS_COLL_ALLREDUCE, 16, 2, 1u << (20 + i), 100e-6 * (i + 1),
		                                     ~0u, ~0u, log(1 + TOL) };
	}
}

/* Predictions that miss every row by x times its own error (rms |x|). */
static void off_by(double x, double *p)
{
	for (int i = 0; i < NR; i++)
		p[i] = rows[i].t_s * exp(x * rows[i].sig);
}

/* A diagnosis whose healthy prediction misses by h (in the rows' errors). */
static void start(struct ccs_diagnose *D, double h)
{
	double *healthy = ccs_malloc(NR * sizeof *healthy);
	off_by(h, healthy);
	CHECK(ccs_diagnose_init(D, rows, NR, healthy, TOL) == 0);
}

/* ... missing by h up and down in turn: no share of every row fits it */
static void start_alt(struct ccs_diagnose *D, double h)
{
	double *healthy = ccs_malloc(NR * sizeof *healthy);
	off_by(h, healthy);
	for (int i = 1; i < NR; i += 2)
		healthy[i] = rows[i].t_s * exp(-h * rows[i].sig);
	CHECK(ccs_diagnose_init(D, rows, NR, healthy, TOL) == 0);
}

/* A hypothesis of its kind from its fault string's prefix. */
static struct ccs_diag_cand cand(const char *spec)
{
	static const struct { const char *p; int kind; } k[] = {
		{ "nic:", CCS_CAND_NIC }, { "pcie:", CCS_CAND_PCIE }, { "gdr:", CCS_CAND_GDR },
		{ "rail:", CCS_CAND_RAIL }, { "acs:", CCS_CAND_ACS }, { "p2p:", CCS_CAND_P2P },
		{ "link:", CCS_CAND_LINK }, { "straggler:", CCS_CAND_STRAGGLER }, { "transport:", CCS_CAND_SOCKET },
	};
	struct ccs_diag_cand c;
	memset(&c, 0, sizeof c);
	c.kind = -1;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (!strncmp(spec, k[i].p, strlen(k[i].p)))
			c.kind = k[i].kind;
	c.all = strstr(spec, ":all:") != NULL;
	snprintf(c.spec, sizeof c.spec, "%s", spec);
	return c;
}

static void add_off(struct ccs_diagnose *D, const char *spec, double x, int ev)
{
	double p[NR];
	off_by(x, p);
	struct ccs_diag_cand c = cand(spec);
	CHECK(ccs_diagnose_add(D, &c, p, ev) == 0);
}

static void test_evidence(void)
{
	/* GPUDirect: a GDRDMA channel contradicts it, unless a line says it is off */
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 1, CCS_EV_GDR) == -1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 0, CCS_EV_GDR) == -1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 1, CCS_EV_GDR | CCS_EV_NO_GDR) == 0);
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 1, CCS_EV_NO_GDR) == 1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 0, CCS_EV_NO_GDR) == 0);   /* one GPU's is not stated */
	CHECK(ccs_diagnose_evidence(CCS_CAND_GDR, 1, 0) == 0);
	/* sockets: NET/Socket states them, NET/IB rules them out */
	CHECK(ccs_diagnose_evidence(CCS_CAND_SOCKET, 1, CCS_EV_SOCKET) == 1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_SOCKET, 1, CCS_EV_RDMA) == -1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_SOCKET, 1, CCS_EV_SOCKET | CCS_EV_RDMA) == 1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_SOCKET, 1, 0) == 0);
	/* P2P off: SHM channels state it, P2P channels rule it out */
	CHECK(ccs_diagnose_evidence(CCS_CAND_P2P, 1, CCS_EV_SHM) == 1);
	CHECK(ccs_diagnose_evidence(CCS_CAND_P2P, 1, CCS_EV_P2P) == -1);
	/* no line speaks of a NIC, a PCIe link, a rail, ACS, a link or a straggler */
	unsigned all = CCS_EV_SOCKET | CCS_EV_RDMA | CCS_EV_NO_GDR | CCS_EV_GDR | CCS_EV_SHM | CCS_EV_P2P;
	static const int silent[] = { CCS_CAND_NIC, CCS_CAND_PCIE, CCS_CAND_RAIL, CCS_CAND_ACS, CCS_CAND_LINK,
		                      CCS_CAND_STRAGGLER };
	for (size_t k = 0; k < sizeof silent / sizeof silent[0]; k++)
		for (unsigned ev = 0; ev <= all; ev++)
			CHECK(ccs_diagnose_evidence(silent[k], 0, ev) == 0);
	CHECK(ccs_diagnose_evidence(-1, 0, all) == 0 && ccs_diagnose_evidence(CCS_CAND_KIND_N, 0, all) == 0);
}

static void test_score_bias(void)
{
	double p[NR], rms, worst;
	off_by(1, p);
	ccs_diagnose_score(rows, NR, p, &rms, &worst);
	CHECK_NEAR(rms, 1, 1e-12);
	CHECK_NEAR(worst, TOL, 1e-12);
	off_by(-2, p);
	ccs_diagnose_score(rows, NR, p, &rms, &worst);
	CHECK_NEAR(rms, 2, 1e-12);
	CHECK_NEAR(worst, 1 - 1 / ((1 + TOL) * (1 + TOL)), 1e-12);
	/* healthy 1.2x too fast at every row: the bias is 1.2 and fits exactly */
	struct ccs_diagnose D;
	double *healthy = ccs_malloc(NR * sizeof *healthy);
	for (int i = 0; i < NR; i++)
		healthy[i] = rows[i].t_s / 1.2;
	CHECK(ccs_diagnose_init(&D, rows, NR, healthy, TOL) == 0);
	CHECK_NEAR(D.bias, 1.2, 1e-12);
	CHECK(D.b_rms < 1e-9);
	/* the straggler's delay: the median excess, (t2 + t3)/2 - /1.2 */
	CHECK_NEAR(D.excess, (250e-6) * (1 - 1 / 1.2), 1e-9);
	ccs_diagnose_release(&D);
}

static void test_equivalence(void)
{
	struct ccs_diagnose D;
	start(&D, 5);
	add_off(&D, "nic:node0/nic1:50%", 0.3, 0);
	add_off(&D, "nic:node0/nic2:50%", 0.3, 0);
	add_off(&D, "pcie:node0/gpu1:x4", 0.7, 0);
	CHECK(D.nh == 2);
	CHECK(D.h[0].members == 2);
	CHECK(!strcmp(D.h[0].all, "nic:node0/nic1:50% nic:node0/nic2:50%"));
	CHECK(!strcmp(D.h[0].second, "nic:node0/nic2:50%"));
	/* a member the logs state names the group */
	add_off(&D, "gdr:all:off", 0.3, 1);
	CHECK(D.nh == 2 && D.h[0].members == 3 && D.h[0].stated);
	CHECK(!strcmp(D.h[0].spec, "gdr:all:off") && D.h[0].kind == CCS_CAND_GDR);
	ccs_diagnose_release(&D);
}

static void test_straggler_bias(void)
{
	struct ccs_diagnose D;
	start(&D, 3);   /* healthy off by a share everywhere: the bias fits exactly */
	CHECK(D.b_rms < 1e-9);
	add_off(&D, "straggler:node0/gpu1:20us", 0.5, 0);
	CHECK(D.nh == 0 && D.nbiased == 1);
	/* stated by the logs it stays (no rule states a straggler today: the rule is by evidence) */
	add_off(&D, "straggler:node0/gpu2:20us", 0.5, 1);
	CHECK(D.nh == 1);
	ccs_diagnose_release(&D);
}

static void test_conflict(void)
{
	/* the stated one within 3x of the best: it goes first */
	struct ccs_diagnose D;
	start(&D, 4);
	add_off(&D, "nic:node0/nic1:50%", 0.2, 0);
	add_off(&D, "transport:socket", 0.5, 1);
	ccs_diagnose_rank(&D);
	CHECK(!strcmp(D.h[0].spec, "transport:socket") && D.disagree == 0);
	CHECK(D.verdict == CCS_DIAGNOSE_FAULT);
	ccs_diagnose_release(&D);
	/* over 3x worse and more than half the error behind: the table wins, both said */
	start(&D, 4);
	add_off(&D, "nic:node0/nic1:50%", 0.1, 0);
	add_off(&D, "transport:socket", 1.5, 1);
	ccs_diagnose_rank(&D);
	CHECK(!strcmp(D.h[0].spec, "nic:node0/nic1:50%") && D.disagree == 1);
	ccs_diagnose_release(&D);
	/* stated but no better than healthy: not moved */
	start(&D, 1);
	add_off(&D, "nic:node0/nic1:50%", 0.1, 0);
	add_off(&D, "transport:socket", 1.2, 1);
	ccs_diagnose_rank(&D);
	CHECK(!strcmp(D.h[0].spec, "nic:node0/nic1:50%") && D.disagree == 1);
	ccs_diagnose_release(&D);
}

static void test_verdicts(void)
{
	struct ccs_diagnose D;
	/* healthy within the model's error, a hypothesis only a little better: none */
	start(&D, 0.8);
	add_off(&D, "nic:node0/nic1:75%", 0.5, 0);
	ccs_diagnose_rank(&D);
	CHECK(D.within && !D.found && D.verdict == CCS_DIAGNOSE_NONE);
	ccs_diagnose_release(&D);
	/* healthy within (up and down: no bias fits better), a hypothesis under
	 * half its rms and better by > 0.5: a fault */
	start_alt(&D, 0.9);
	CHECK_NEAR(D.bias, 1, 1e-12);
	add_off(&D, "nic:node0/nic1:75%", 0.1, 0);
	ccs_diagnose_rank(&D);
	CHECK(D.found && D.verdict == CCS_DIAGNOSE_FAULT);
	ccs_diagnose_release(&D);
	/* the same off by a share of every row: that is the model's bias */
	start(&D, 0.9);
	add_off(&D, "nic:node0/nic1:75%", 0.1, 0);
	ccs_diagnose_rank(&D);
	CHECK(D.biased && D.verdict == CCS_DIAGNOSE_NONE);
	ccs_diagnose_release(&D);
	/* healthy far off, the best still over 3x the error: no single fault */
	start(&D, 20);
	add_off(&D, "nic:node0/nic1:down", 5, 0);
	ccs_diagnose_rank(&D);
	CHECK(D.found && D.verdict == CCS_DIAGNOSE_NO_SINGLE);
	ccs_diagnose_release(&D);
	/* ... unless the logs state it */
	start(&D, 20);
	add_off(&D, "transport:socket", 5, 1);
	ccs_diagnose_rank(&D);
	CHECK(D.verdict == CCS_DIAGNOSE_FAULT);
	ccs_diagnose_release(&D);
	/* healthy off by 10% everywhere (inside the 15% floor): the bias, not
	 * a fault, unless a hypothesis beats the bias by half */
	double *healthy = ccs_malloc(NR * sizeof *healthy);
	for (int i = 0; i < NR; i++)
		healthy[i] = rows[i].t_s / 1.1 * (i % 2 ? 1.01 : 0.99);
	CHECK(ccs_diagnose_init(&D, rows, NR, healthy, TOL) == 0);
	add_off(&D, "nic:node0/nic1:75%", D.b_rms * 0.6, 0);
	ccs_diagnose_rank(&D);
	CHECK(D.biased && D.verdict == CCS_DIAGNOSE_NONE);
	ccs_diagnose_release(&D);
	/* no hypothesis at all: none */
	start(&D, 9);
	ccs_diagnose_rank(&D);
	CHECK(D.verdict == CCS_DIAGNOSE_NONE);
	ccs_diagnose_release(&D);
}

#define TOPO "topologies/hgx-h100-cluster.yaml"

/* rows of 16 ranks on 2 nodes, AllReduce and AllGather 1 MiB - 1 GiB */
static size_t real_rows(struct ccs_diagnose_row *rw)
{
	size_t n = 0;
	for (int c = 0; c < 2; c++)
		for (int k = 20; k <= 30; k += 2)
			rw[n++] = (struct ccs_diagnose_row){ c ? CCS_COLL_ALLGATHER : CCS_COLL_ALLREDUCE, 16, 2, 1ull << k, 1,
			                                     ~0u, ~0u, log(1 + TOL) };
	return n;
}

static void test_in_memory(void)
{
	static const char *const faults[] = { "nic:node0/nic3:50%", "nic:node1/nic0:down", "pcie:node0/gpu2:x4",
		                              "gdr:all:off", "rail:node0/gpu1:node0/nic5", "p2p:all:off",
		                              "acs:all:on", "straggler:node1/gpu4:30us", "transport:socket" };
	const char *base_sets[] = { "nodes=2" };
	struct ccs_topo *t = fx_load(TOPO, base_sets, 1);
	CHECK(t != NULL);
	if (!t)
		return;
	struct ccs_diagnose_row rw[16];
	size_t n = real_rows(rw);
	double h0[16], h1[16], p[16], q[16];
	char err[600];
	CHECK(ccs_diagnose_predict(t, 0, 0, NULL, rw, n, h0, NULL, err, sizeof err) == 0);
	for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
		int rc = ccs_diagnose_predict(t, 0, 0, faults[f], rw, n, p, NULL, err, sizeof err);
		CHECK(rc == 0);
		char set[200];
		if (!strncmp(faults[f], "transport:", 10))
			snprintf(set, sizeof set, "model.transport=%s", faults[f] + 10);
		else
			snprintf(set, sizeof set, "faults+=%s", faults[f]);
		const char *sets[] = { "nodes=2", set };
		struct ccs_topo *u = fx_load(TOPO, sets, 2);
		CHECK(u != NULL);
		if (!u)
			continue;
		CHECK(ccs_diagnose_predict(u, 0, 0, NULL, rw, n, q, NULL, err, sizeof err) == 0);
		int same = 1, differs = 0;
		for (size_t i = 0; i < n; i++) {
			same &= fabs(p[i] / q[i] - 1) < 1e-12;
			differs |= fabs(p[i] / h0[i] - 1) > 1e-6;
		}
		if (!same || !differs)
			fprintf(stderr, "fault %s: in memory %s the file's, %s healthy\n", faults[f], same ? "as" : "unlike",
			        differs ? "unlike" : "as");
		CHECK(same && differs);
		ccs_topo_free(u);
	}
	/* put back: healthy again, to the bit */
	CHECK(ccs_diagnose_predict(t, 0, 0, NULL, rw, n, h1, NULL, err, sizeof err) == 0);
	CHECK(!memcmp(h0, h1, n * sizeof *h0));
	/* a fault that names nothing does not apply, and leaves t as it was */
	CHECK(ccs_diagnose_predict(t, 0, 0, "nic:node9/nic0:down", rw, n, p, NULL, err, sizeof err) == -1);
	CHECK(ccs_diagnose_predict(t, 0, 0, "transport:pigeon", rw, n, p, NULL, err, sizeof err) == -1);
	CHECK(ccs_diagnose_predict(t, 0, 0, NULL, rw, n, h1, NULL, err, sizeof err) == 0);
	CHECK(!memcmp(h0, h1, n * sizeof *h0));
	ccs_topo_free(t);
}

/* A NIC at 25% planted in the "measured" rows: tried over every candidate,
 * it is in the first group and the verdict is a fault. */
static void test_planted(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t = fx_load(TOPO, sets, 1);
	CHECK(t != NULL);
	if (!t)
		return;
	struct ccs_diagnose_row rw[16];
	size_t n = real_rows(rw);
	double meas[16];
	char err[600];
	CHECK(ccs_diagnose_predict(t, 0, 0, "nic:node1/nic6:25%", rw, n, meas, NULL, err, sizeof err) == 0);
	for (size_t i = 0; i < n; i++)
		rw[i].t_s = meas[i];
	double *healthy = ccs_malloc(n * sizeof *healthy);
	CHECK(ccs_diagnose_predict(t, 0, 0, NULL, rw, n, healthy, NULL, err, sizeof err) == 0);
	struct ccs_diagnose D;
	CHECK(ccs_diagnose_init(&D, rw, n, healthy, TOL) == 0);
	struct ccs_diag_specs sp = { NULL, 0, 0 };
	CHECK(ccs_diag_candidates(t, 16, 0, D.excess, &sp, err, sizeof err) == 0);
	CHECK(sp.n > 20);
	/* GDRDMA in the logs: GPUDirect-off hypotheses are not tried */
	CHECK(ccs_diagnose_try(&D, t, 0, 0, sp.c, sp.n, CCS_EV_GDR | CCS_EV_RDMA) == 0);
	ccs_diagnose_rank(&D);
	CHECK(D.ncontra > 0);
	CHECK(D.verdict == CCS_DIAGNOSE_FAULT);
	CHECK(D.nh > 0 && D.h[0].rms < 1e-9 && strstr(D.h[0].all, "nic:node1/nic6:25%") != NULL);
	/* the candidates are typed: kind and "all" as their strings say */
	int typed = 1;
	for (size_t i = 0; i < sp.n; i++) {
		struct ccs_diag_cand c = cand(sp.c[i].spec);
		typed &= c.kind == sp.c[i].kind && c.all == sp.c[i].all;
	}
	CHECK(typed);
	ccs_free(sp.c);
	ccs_diagnose_release(&D);
	ccs_topo_free(t);
}

int main(void)
{
	mk_rows();
	test_evidence();
	test_score_bias();
	test_equivalence();
	test_straggler_bias();
	test_conflict();
	test_verdicts();
	test_in_memory();
	test_planted();
	return CHECK_DONE("test_diagnose");
}
