/*
** sim/cli/cmd_diagnose.c: `ccsim diagnose -t TOPO LOG...`: which fault explains
** a measured nccl-tests log (issue 8).  This file reads the options and
** the logs' rows and prints; the diagnosis (scores, evidence rules,
** equivalence, ranking, verdict) is calibrate/diagnose.h, every hypothesis
** tried on the one loaded topology in memory.
**
** The log's rows (out-of-place time per collective and size, on the
** topology's first `ranks` GPUs) are predicted by the closed form on the
** healthy topology and under each fault hypothesis, applied to each
** candidate resource of the ranks' nodes:
**   nic:NIC:down, nic:NIC:75%|50%|25%       every NIC
**   pcie:GPU:x8|x4, pcie:GPU:gen4|gen3      every GPU
**   gdr:GPU:off, gdr:all:off                GPUDirect RDMA off
**   rail:GPU:NIC                            every GPU held to another NIC of its
**                                           node (a wrong NCCL_IB_HCA): the next at its
**                                           distance, the nearest beyond, the farthest
**   acs:all:on                              ACS or a VM's IOMMU sends GPU-NIC traffic
**                                           through the root complex (GDRDMA still shown)
**   p2p:all:off                             P2P off: GPUs of a node through host memory
**   link:A-B:50% for the links between the ranks' leaf and spine switches
**   straggler:GPU:D                         every GPU, D fitted as the median
**                                           excess of the measured times
**   transport:socket                        across nodes: NCCL's sockets, not RDMA
** A hypothesis under which the collective cannot complete is dropped (the
** log says it did).  Score: the root mean square of log(predicted /
** measured) over the rows; "fits within X%" is the largest relative error
** of any row.  Hypotheses with the same predictions (a symmetric machine
** cannot tell rail 3 from rail 5 by an AllReduce) are listed as one, with
** how many resources they stand for.  Each row's error counts in units
** of the model's own error where the row runs (calibrate/modelerr.h: the
** median on published rows of its scope, one node or across the network,
** and size band; at least 15%, or --tolerance for every row): a hypothesis
** must fit clearly better than healthy (rms below 0.8 of healthy's; where
** healthy is within that error, rms 1, below half and better by half the
** error), else "no fault found".  The logs' NCCL INFO lines are evidence, shown in the verdict and
** used as an engineer reading them would: a hypothesis they contradict is
** not tried (GPUDirect off where the channels say GDRDMA, sockets where
** they run over NET/IB, P2P off where they use P2P), and one they state
** (NCCL saying GPU Direct RDMA is disabled, channels over NET/Socket or
** through SHM) ranks first as soon as it fits better than healthy at
** all: the log says what happened, the model only how much it costs, and
** the model's figure for that cost may be off (GPUDirect off measured
** slower than the model's host staging).  --ppn places the ranks as the
** job did; without it (or --nodes), each log's Rank lines do, where they
** name every rank's host.
*/
#include "cli.h"
#include "junit.h"

#include "../../calibrate/diag_cand.h"
#include "../../calibrate/diag_split.h"
#include "../../calibrate/diagnose.h"
#include "../../calibrate/ingest.h"
#include "../../calibrate/modelerr.h"
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"
#include "../../model/transport.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *me = "ccsim diagnose";

/* A diagnosis: the options, the measured rows, the healthy prediction and
 * the hypotheses tried, best first. */
struct diag_run {
	const char *topo, *logs[32];
	const char *algo, *proto;   /* -a, -p: what the job ran (NULL: NCCL_ALGO / NCCL_PROTO, then the logs) */
	int nlog, top, list, maxr, ppn, nodes, nranks;
	int maxr_nodes;             /* the nodes the largest row's log names, 0 unknown */
	double tol;                 /* --tolerance, or the floor of each row's own error */
	int tol_given;              /* --tolerance: the same for every row */
	double tol_max;             /* the largest row tolerance */
	struct ccs_args_sets sets;
	struct ccs_meas_set set;
	struct ccs_diagnose_row *rw;
	size_t nrw;
	struct ccs_diagnose dx;     /* the scores, hypotheses and verdict (calibrate/diagnose.h) */
	struct ccs_topo *t;         /* loaded once; each hypothesis is tried on it in memory */
	char err[600];
	char widen[32];             /* "nodes=N" added to the sets for a template too small for the logs, "" none */
	int widen_from;             /* its nodes before */
	const char *junit;          /* --junit FILE, NULL: none */
};

/* Exit statuses (1 bad input or an error, 2 bad usage, as every command):
 * a CI job gates on them. */
enum { DG_NONE = 0, DG_FAULT = 3, DG_NO_SINGLE = 4 };

/* The options: 0, 1 after --help, -1 after a message. */
static void dg_usage(void)
{
	printf("usage: %s -t TOPO LOG... [-c COLL] [-a ALGO] [-p PROTO] [-n RANKS] [--ppn P | --nodes N] [--top N]\n"
	       "         [--tolerance 15%%] [--list] [--set k=v]\n"
	       "  rank fault hypotheses by how well each one's prediction fits measured nccl-tests logs;\n"
	       "  -a, -p: the algorithm and protocol the job ran (default: NCCL_ALGO and NCCL_PROTO as\n"
	       "  this shell or the logs set them, else NCCL's choice, with predict's grammar);\n"
	       "  -c: the collective of logs that do not say (no test-name line, a file name that does not);\n"
	       "  -n: the ranks of rows whose log does not say;\n"
	       "  --ppn, --nodes: ranks per node, or the nodes the ranks spread over evenly, as the job\n"
	       "  placed them (default: the hosts the logs' Rank lines name, else the nodes filled in order);\n"
	       "  --tolerance: the model's own error, below which healthy stands, for every row\n"
	       "  (default: each row's from the model's median error on published measurements of its\n"
	       "  scope and size, docs/validation.md, at least 15%%; 3%% for logs ccsim wrote);\n"
	       "  --junit FILE: the verdict as a JUnit report (one test case, failing on a fault)\n"
	       "exit status: 0 no fault found, 3 a fault explains the logs, 4 no single fault explains them,\n"
	       "  1 bad input or an error, 2 bad usage\n", me);
}

/* A flag dg_parse did not take: one of ours without its value, or the
 * nearest of ours named: -1. */
static int bad_flag(const char *a)
{
	static const char *const flags[] = { "-t", "-n", "-c", "-a", "-p", "--ppn", "--nodes", "--top", "--list",
	                                     "--junit", "--tolerance", "--set", "--fault", "--help" };
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
		if (!strcmp(a, flags[k])) {
			fprintf(stderr, "%s: '%s' needs a value\n", me, a);
			return -1;
		}
	return ccs_args_unknown_near(me, NULL, a, flags, (int)(sizeof flags / sizeof flags[0]));
}

static int dg_parse(struct diag_run *D, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&D->sets, argc, argv, &i);
		if (r < 0)
			return -1;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			dg_usage();
			return 1;
		}
		if (!strcmp(argv[i], "--list")) {
			D->list = 1;
			continue;
		}
		if (!strcmp(argv[i], "--junit") && i + 1 < argc) {
			D->junit = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			D->topo = argv[++i];
		else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
			if (ccs_args_int(me, "--top", argv[++i], 1, 100, &D->top))
				return -1;
		} else if (!strcmp(argv[i], "--ppn") && i + 1 < argc) {
			if (ccs_args_int(me, "--ppn", argv[++i], 1, 1 << 20, &D->ppn))
				return -1;
		} else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
			if (ccs_args_int(me, "--nodes", argv[++i], 1, 1 << 20, &D->nodes))
				return -1;
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			if (ccs_args_int(me, "-n", argv[++i], 1, 1 << 24, &D->nranks))
				return -1;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			int c = ccs_coll_parse(argv[++i]);
			if (c < 0) {
				fprintf(stderr, "%s: unknown collective '%s' for -c (allreduce, allgather, reducescatter, alltoall, "
				                "broadcast, reduce)\n", me, argv[i]);
				return -1;
			}
			D->set.told.coll = c + 1;
		} else if (!strcmp(argv[i], "-a") && i + 1 < argc) {
			D->algo = argv[++i];
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			D->proto = argv[++i];
		} else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
			char *end;
			double x = strtod(argv[++i], &end);
			if (end == argv[i] || (*end && strcmp(end, "%")) || !(x > 0) || x >= 100) {
				fprintf(stderr, "%s: '--tolerance' must be a percentage like 3%%\n", me);
				return -1;
			}
			D->tol = x / 100;
			D->tol_given = 1;
		} else if (argv[i][0] != '-' && D->nlog < 32) {
			D->logs[D->nlog++] = argv[i];
		} else if (argv[i][0] == '-') {
			return bad_flag(argv[i]);
		} else {
			fprintf(stderr, "%s: unexpected argument '%s' (at most 32 logs)\n", me, argv[i]);
			return -1;
		}
	}
	if (!D->topo || !D->nlog) {
		fprintf(stderr, "usage: %s -t TOPO LOG... [-a ALGO] [-p PROTO] [--ppn P | --nodes N] [--top N] [--tolerance 15%%]\n",
		        me);
		return -1;
	}
	if (D->ppn && D->nodes) {
		fprintf(stderr, "%s: '--ppn' and '--nodes' both place the ranks: give one\n", me);
		return -1;
	}
	return 0;
}

/* The algorithms (protos: protocols) NCCL chose from for coll: -a/-p, else
 * NCCL_ALGO/NCCL_PROTO in this shell, else as the logs state them; into
 * *mask, -1 after a message. */
static int dg_mask(const struct diag_run *D, int coll, int protos, unsigned *mask)
{
	unsigned all = protos ? (1u << CCS_PROTO_N) - 1 : (1u << CCS_ALGO_N) - 1;
	const char *flag = protos ? D->proto : D->algo, *env = getenv(protos ? "NCCL_PROTO" : "NCCL_ALGO");
	const char *logv = protos ? D->set.nt.nccl_proto : D->set.nt.nccl_algo, *what = protos ? "NCCL_PROTO" : "NCCL_ALGO";
	*mask = all;
	const char *v = flag && strcmp(flag, "auto") ? flag : !flag && env && *env ? env : !flag && logv[0] ? logv : NULL;
	if (!v)
		return 0;
	char from[32], bad[128];
	snprintf(from, sizeof from, "%s%s", v == logv ? "the logs' " : "", v == flag ? (protos ? "-p" : "-a") : what);
	const char *kind = protos ? "protocol" : "algorithm";
	long m = ccs_coll_env_mask(v, coll, protos, all, bad, sizeof bad);
	if (m < 0) {
		fprintf(stderr, "%s: %s: unknown %s '%s'\n", me, from, kind, bad);
		return -1;
	}
	if (!m) {
		fprintf(stderr, "%s: %s '%s' allows no %s for %s\n", me, from, v, kind, ccs_coll_cli[coll]);
		return -1;
	}
	*mask = (unsigned)m;
	return 0;
}

/* A template topology with fewer GPUs than the logs ran (hgx-h100.yaml, one
 * node, for a 2-node log): as many nodes as the logs' hosts (or as the
 * ranks need), said in a note, unless --set nodes= was given. */
static int dg_widen(struct diag_run *D)
{
	int maxr = 0, mnodes = 0;
	for (size_t i = 0; i < D->nrw; i++)
		if (D->rw[i].ranks > maxr) {
			maxr = D->rw[i].ranks;
			mnodes = D->rw[i].nodes;
		}
	for (int i = 0; i < D->sets.n; i++)
		if (!strncmp(D->sets.v[i], "nodes=", 6))
			return 0;
	struct ccs_topo *t = NULL;
	if (ccs_args_topo(me, D->topo, &D->sets, &t)) {
		ccs_topo_free(t);
		return -1;
	}
	uint32_t ngpu = t->ngpu;
	int nn = t->nnodes, tmpl = t->fab.present;
	ccs_topo_free(t);
	if ((uint32_t)maxr <= ngpu || nn < 1 || !tmpl || ngpu / (uint32_t)nn < 1)
		return 0;
	int per = (int)(ngpu / (uint32_t)nn), want = (maxr + per - 1) / per;
	if (mnodes > want)
		want = mnodes;
	snprintf(D->widen, sizeof D->widen, "nodes=%d", want);
	D->widen_from = nn;
	char *av[2] = { "--set", D->widen };
	int i = 0;
	if (ccs_args_set(&D->sets, 2, av, &i) < 0)
		return -2;
	return 0;
}

/* The rows: out-of-place halves of every log, and the healthy
 * prediction of each. */
static int dg_rows(struct diag_run *D)
{
	for (int i = 0; i < D->nlog; i++) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		if (ccs_ingest_file(D->logs[i], &D->set, &d)) {
			fprintf(stderr, "%s\n", d.msg);
			return -1;
		}
	}
	D->rw = ccs_calloc(D->set.n + 1, sizeof *D->rw);
	if (!D->rw)
		return -2;
	for (size_t i = 0; i < D->set.n; i++) {
		const struct ccs_meas *m = &D->set.m[i];
		if (!ccs_meas_is_coll(m) || strncmp(m->variant, "oop", 3) || m->flag[0])
			continue;   /* flagged: numbers that contradict themselves */
		int coll = ccs_coll_parse(m->name), ranks = m->ranks ? m->ranks : D->nranks;
		if (coll < 0 || coll == CCS_COLL_SENDRECV || !ranks) {
			fprintf(stderr, "%s: %s:%d: %s rows need a known rank count (the log's Rank lines or -n; and are not "
			                "sendrecv); skipped\n", me, m->file, m->line, m->name);
			continue;
		}
		struct ccs_diagnose_row r = { coll, ranks, m->ranks ? m->nodes : 0, m->size, m->median_s, 0, 0, 0 };
		if (dg_mask(D, coll, 0, &r.amask) || dg_mask(D, coll, 1, &r.pmask))
			return -1;
		D->rw[D->nrw++] = r;
	}
	if (!D->nrw) {
		fprintf(stderr, "%s: no usable nccl-tests row in the logs\n", me);
		return -1;
	}
	return dg_widen(D);
}

/* The topology the logs ran on, as large as they need, loaded once. */
static int dg_topology(struct diag_run *D)
{
	if (ccs_args_topo(me, D->topo, &D->sets, &D->t))
		return -1;
	D->maxr = 0;
	for (size_t i = 0; i < D->nrw; i++)
		if (D->rw[i].ranks > D->maxr) {
			D->maxr = D->rw[i].ranks;
			D->maxr_nodes = D->rw[i].nodes;
		}
	return 0;
}

/* The healthy prediction of every row, each row's tolerance, the healthy
 * score and the bias (calibrate/diagnose.h). */
static int dg_healthy(struct diag_run *D)
{
	double *healthy = ccs_malloc(D->nrw * sizeof *healthy);
	int *groups = ccs_malloc(D->nrw * sizeof *groups);
	if (!healthy || !groups) {
		ccs_free(healthy);
		ccs_free(groups);
		return -2;
	}
	int prc = ccs_diagnose_predict(D->t, D->ppn, D->nodes, NULL, D->rw, D->nrw, healthy, groups, D->err,
	                               sizeof D->err);
	/* each row's tolerance: the model's own error where the row runs
	 * (inside one scale-up domain or across the network) at its size, at
	 * least the floor; or --tolerance for all */
	for (size_t i = 0; i < D->nrw && !prc; i++) {
		double e = D->tol_given ? D->tol : fmax(D->tol, ccs_modelerr_at(groups[i] > 1, D->rw[i].size));
		D->rw[i].sig = log(1 + e);
		D->tol_max = fmax(D->tol_max, e);
	}
	ccs_free(groups);
	if (prc) {
		ccs_free(healthy);
		fprintf(stderr, "%s: %s\n", me, D->err);
		return prc == -2 ? -2 : -1;
	}
	if ((uint32_t)D->maxr > D->t->ngpu) {
		ccs_free(healthy);
		fprintf(stderr, "%s: the logs have %d ranks, %s has %u gpus\n", me, D->maxr, D->t->name, D->t->ngpu);
		return -1;
	}
	return ccs_diagnose_init(&D->dx, D->rw, D->nrw, healthy, D->tol);
}

/* The candidates (calibrate/diag_cand.h) on the ranks' nodes, a
 * straggler's delay the rows' median excess over healthy, each tried on
 * the topology, then ranked. */
static int dg_try(struct diag_run *D)
{
	struct ccs_diag_specs sp = { NULL, 0, 0 };
	char cerr[256];
	int ppn = ccs_diagnose_ppn(D->ppn, D->nodes, D->maxr_nodes, D->maxr);
	int rc = ccs_diag_candidates(D->t, D->maxr, ppn, D->dx.excess, &sp, cerr, sizeof cerr);
	if (rc == -1)
		fprintf(stderr, "%s: %s\n", me, cerr);
	if (!rc)
		rc = ccs_diagnose_try(&D->dx, D->t, D->ppn, D->nodes, sp.c, sp.n, D->set.nt.ev);
	ccs_free(sp.c);
	if (!rc)
		ccs_diagnose_rank(&D->dx);
	return rc;
}

/* What the logs' evidence states, where the ranking above does not show
 * it first: the stated hypothesis always shown (beyond --top too), and
 * why the table ranks another first. */
static void dg_stated(const struct diag_run *D)
{
	size_t i = D->dx.disagree;
	if (!i)
		return;
	const struct ccs_diagnose_hyp *s = &D->dx.h[i], *b = &D->dx.h[0];
	if ((int)i >= D->top) {
		char also[64] = "";
		if (s->members > 1)
			snprintf(also, sizeof also, " (or %d others with the same predictions)", s->members - 1);
		printf("  %4zu  %9.1f%%  %.4f   %s%s (as the logs' evidence says)\n", i + 1, 100 * s->worst, s->rms, s->spec,
		       also);
	}
	printf("# evidence and fit disagree: the logs' lines state %s, but it fits at rms %.2f (up to %.1f%% off) where "
	       "%s fits at rms %.2f, %s: the table points elsewhere; both may hold (one fault the lines show, another "
	       "the times show)\n", s->spec, s->rms, 100 * s->worst, b->spec, b->rms,
	       s->rms >= D->dx.h_rms ? "and the healthy machine fits no worse than it"
	                          : "over 3 times better, by more than half the model's own error");
}

/* The measurement that tells the first group's members apart
 * (calibrate/diag_split.h), printed as what to run. */
static int dg_next(struct diag_run *D)
{
	/* the largest job's collective, its smallest and largest sizes */
	const struct ccs_diagnose_row *big = &D->rw[0];
	for (size_t i = 1; i < D->nrw; i++)
		if (D->rw[i].ranks > big->ranks)
			big = &D->rw[i];
	uint64_t lo = big->size, hi = big->size;
	for (size_t i = 0; i < D->nrw; i++)
		if (D->rw[i].ranks == big->ranks && D->rw[i].coll == big->coll) {
			lo = D->rw[i].size < lo ? D->rw[i].size : lo;
			hi = D->rw[i].size > hi ? D->rw[i].size : hi;
		}
	int ppn = ccs_diagnose_ppn(D->ppn, D->nodes, D->maxr_nodes, D->maxr);
	struct ccs_split_in in = { ppn, 0, big->coll, lo, hi };
	in.nodes = ppn ? (D->maxr + ppn - 1) / ppn : D->t->nnodes;
	struct ccs_split_out so;
	int rc = ccs_split_best(D->t, &in, D->dx.h[0].all, &so, D->err, sizeof D->err);
	if (rc == -2)
		return -2;
	if (rc || so.kind < 0)
		printf("# next: no single-part measurement tells the %d alike apart (the model predicts each the same)\n",
		       D->dx.h[0].members);
	else
		printf("# next: to tell the %d alike apart, run %s: it splits them into %d groups%s; e.g. %s\n",
		       D->dx.h[0].members, so.cmd, so.groups,
		       so.groups < so.members ? " (members in one group stay alike under it)" : "", so.example);
	return 0;
}

/* The ranking, or "no fault found" when no hypothesis fits clearly
 * better than the healthy machine. */
static int dg_print(struct diag_run *D)
{
	printf("# %s: %zu rows from %d log%s on %s; %zu hypotheses tried\n", me, D->nrw, D->nlog, D->nlog == 1 ? "" : "s", D->t->name,
	       D->dx.nh);
	char own[64];
	if (D->tol_max > D->tol + 1e-9)
		snprintf(own, sizeof own, "%.0f%% to %.0f%% by the rows' scope and size", 100 * D->tol, 100 * D->tol_max);
	else
		snprintf(own, sizeof own, "%.0f%%", 100 * D->tol);
	printf("# healthy: fits within %.1f%% (rms %.4f of the model's own error); the model's own error: %s\n",
	       100 * D->dx.h_worst, D->dx.h_rms, own);
	if (D->widen[0])
		printf("# note: the logs ran more ranks than %s's %d node%s hold: widened to %s (--set nodes=N to choose)\n",
		       D->topo, D->widen_from, D->widen_from == 1 ? "" : "s", D->widen);
	if (D->set.nt.evidence[0])
		printf("# evidence in the logs: %s\n", D->set.nt.evidence);
	if (D->dx.ncontra)
		printf("# %zu hypotheses the evidence rules out were not tried\n", D->dx.ncontra);
	if (D->dx.nbiased)
		printf("# no straggler: the healthy prediction %s by %.1f%% at every size fits better (rms %.4f) than a "
		       "fixed delay (%.4gus): the model's bias here or a machine uniformly %s, not a late rank\n",
		       D->dx.bias >= 1 ? "slowed" : "sped up", 100 * fabs(D->dx.bias - 1), D->dx.b_rms, D->dx.excess * 1e6,
		       D->dx.bias >= 1 ? "slower" : "faster");
	/* the verdict (calibrate/diagnose.h): a hypothesis wins when it fits
	 * clearly better than healthy, and than healthy scaled by the bias */
	int found = D->dx.found, within = D->dx.within, biased = D->dx.biased;
	if (!found && biased && !within)
		printf("no fault found: the healthy prediction %s by %.1f%% fits within the model's own error (rms %.2f): "
		       "the model's bias on this machine, inside its error (%.0f%%), not a fault\n",
		       D->dx.bias >= 1 ? "slowed" : "sped up", 100 * fabs(D->dx.bias - 1), D->dx.b_rms, 100 * D->tol);
	else if (!found) {
		printf("no fault found: the healthy prediction fits within %.1f%% (rms %.2f of the model's own error, %s) "
		       "and no hypothesis fits clearly better\n", 100 * D->dx.h_worst, D->dx.h_rms, own);
	} else {
		if (!D->dx.h[0].stated && D->dx.h[0].rms > 3)
			printf("# no single fault explains the log: the closest hypothesis below still misses by up to %.1f%% "
			       "(rms %.2f, over 3 times the model's own error), where healthy misses by %.1f%%\n",
			       100 * D->dx.h[0].worst, D->dx.h[0].rms, 100 * D->dx.h_worst);
		printf("# rank  fits within  rms      hypothesis\n");
		for (size_t i = 0; i < D->dx.nh && (int)i < D->top; i++) {
			char also[220] = "";
			if (D->dx.h[i].members == 2)
				snprintf(also, sizeof also, " (or, with the same predictions, %s)", D->dx.h[i].second);
			else if (D->dx.h[i].members > 2)
				snprintf(also, sizeof also, " (or %d others with the same predictions, e.g. %s)", D->dx.h[i].members - 1,
				         D->dx.h[i].second);
			printf("  %4zu  %9.1f%%  %.4f   %s%s%s\n", i + 1, 100 * D->dx.h[i].worst, D->dx.h[i].rms, D->dx.h[i].spec, also,
			       D->dx.h[i].stated ? " (as the logs' evidence says)" : "");
			if (D->list)
				printf("        all: %s\n", D->dx.h[i].all);
		}
		dg_stated(D);
		if (D->dx.h[0].members > 1)
			return dg_next(D);
	}
	return 0;
}

/* --junit: one test case, "LOGS on TOPO", failing with the first
 * hypothesis when a fault explains the logs (or none does alone). */
static int dg_junit(const struct diag_run *D)
{
	size_t len = strlen(D->topo) + 8;
	for (int i = 0; i < D->nlog; i++)
		len += strlen(D->logs[i]) + 1;
	char *name = ccs_malloc(len), msg[400];
	if (!name)
		return -1;
	name[0] = 0;
	for (int i = 0; i < D->nlog; i++)
		strcat(strcat(name, i ? " " : ""), D->logs[i]);
	strcat(strcat(name, " on "), D->topo);
	int fail = D->dx.verdict != CCS_DIAGNOSE_NONE;
	snprintf(msg, sizeof msg, "%s: %s (fits within %.1f%%, healthy %.1f%%)",
	         D->dx.verdict == CCS_DIAGNOSE_NO_SINGLE ? "no single fault explains the logs; closest" : "fault", fail ? D->dx.h[0].spec : "",
	         fail ? 100 * D->dx.h[0].worst : 0, 100 * D->dx.h_worst);
	struct ccs_junit_case c = { "diagnose", name, fail ? "failure" : NULL,
		                    D->dx.verdict == CCS_DIAGNOSE_NO_SINGLE ? "no single fault" : "fault", msg };
	int rc = ccs_junit_write(D->junit, me, "ccsim diagnose", NULL, NULL, &c, 1);
	ccs_free(name);
	return rc;
}

int ccs_cmd_diagnose(int argc, char **argv)
{
	struct diag_run *D = ccs_calloc(1, sizeof *D);
	if (!D) {
		fprintf(stderr, "%s: out of memory\n", me);
		return 1;
	}
	D->top = 5;
	D->tol = 0.15;      /* the floor: the model's median error over every size of the published rows
	                     * (docs/validation.md), where its scope and size band's (modelerr.h) is lower */
	ccs_args_sets_init(&D->sets);
	int rc = dg_parse(D, argc, argv);
	if (rc)
		rc = rc > 0 ? 0 : 2;
	else {
		static int (*const steps[])(struct diag_run *) = { dg_rows, dg_topology, dg_healthy, dg_try, dg_print };
		for (size_t i = 0; i < sizeof steps / sizeof steps[0] && !rc; i++)
			rc = steps[i](D);
		if (rc == -2)
			fprintf(stderr, "%s: out of memory\n", me);
		static const int status[] = { [CCS_DIAGNOSE_NONE] = DG_NONE, [CCS_DIAGNOSE_FAULT] = DG_FAULT,
			                      [CCS_DIAGNOSE_NO_SINGLE] = DG_NO_SINGLE };
		rc = rc ? 1 : ccs_args_flush() ? 1 : D->junit && dg_junit(D) ? 1 : status[D->dx.verdict];
	}
	ccs_diagnose_release(&D->dx);
	ccs_free(D->rw);
	ccs_topo_free(D->t);
	ccs_meas_set_release(&D->set);
	ccs_args_sets_release(&D->sets);
	ccs_free(D);
	return rc;
}
