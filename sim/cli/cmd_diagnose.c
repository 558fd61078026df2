/*
** sim/cli/cmd_diagnose.c: `ccsim diagnose -t TOPO LOG...`: which fault explains
** a measured nccl-tests log (issue 8).
**
** The log's rows (out-of-place time per collective and size, on the
** topology's first `ranks` GPUs) are predicted by the closed form on the
** healthy topology and under each fault hypothesis, applied to each
** candidate resource of the ranks' nodes:
**   nic:NIC:down, nic:NIC:75%|50%|25%       every NIC
**   pcie:GPU:x8|x4, pcie:GPU:gen4|gen3      every GPU
**   gdr:GPU:off, gdr:all:off                GPUDirect RDMA off
**   link:A-B:50% for the links between the ranks' leaf and spine switches
**   straggler:GPU:D                         every GPU, D fitted as the median
**                                           excess of the measured times
** A hypothesis under which the collective cannot complete is dropped (the
** log says it did).  Score: the root mean square of log(predicted /
** measured) over the rows; "fits within X%" is the largest relative error
** of any row.  Hypotheses with the same predictions (a symmetric machine
** cannot tell rail 3 from rail 5 by an AllReduce) are listed as one, with
** how many resources they stand for.  When the healthy prediction fits
** within --tolerance (3%) and no hypothesis fits clearly better, it says it
** finds nothing.
*/
#include "cli.h"

#include "../../calibrate/ingest.h"
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim diagnose";

struct row {
	int coll, ranks;
	uint64_t size;
	double t_s;
};

struct hyp {
	char spec[160];
	double rms, worst;
	double *pred;               /* per row */
	int members;                /* equivalent hypotheses merged into this one */
	char first[160], second[160];
	char *all;                  /* every member, space separated (ccs_malloc'd) */
};

static int add_member(struct hyp *x, const char *spec)
{
	size_t l = x->all ? strlen(x->all) : 0, m = strlen(spec);
	char *n = ccs_realloc(x->all, l + m + 2);
	if (!n)
		return -1;
	if (l)
		n[l++] = ' ';
	memcpy(n + l, spec, m + 1);
	x->all = n;
	return 0;
}

/* predictions of every row under the extra faults; -1 when the collective
 * cannot complete or nothing applies */
static int predict_rows(const char *topo, struct ccs_args_sets *sets, const char *fault, const struct row *rw, size_t n,
                        double *out, char *err, size_t errn)
{
	const char *v[80];
	int k = 0;
	for (int i = 0; i < sets->n && k < 78; i++)
		v[k++] = sets->v[i];
	char fs[200];
	if (fault) {
		snprintf(fs, sizeof fs, "faults+=%s", fault);
		v[k++] = fs;
	}
	struct ccs_topo *t = NULL;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_topo_load(topo, v, k, &t, &d)) {
		snprintf(err, errn, "%.500s", d.msg);
		return -1;
	}
	int rc = 0, cur = -1;
	struct ccs_comm c;
	int have = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (rw[i].ranks != cur) {
			if (have)
				ccs_comm_release(&c);
			have = 0;
			cur = rw[i].ranks;
			if (ccs_comm_build(t, rw[i].ranks, 0, &c, err, errn)) {
				rc = -1;
				break;
			}
			have = 1;
		}
		int a, q;
		struct ccs_cost cc;
		if (ccs_select(&c, rw[i].coll, rw[i].size, ~0u, ~0u, 1, &a, &q) ||
		    ccs_cost_eval(&c, rw[i].coll, a, q, 0, rw[i].size, &cc, NULL)) {
			snprintf(err, errn, "no algorithm applies to row %zu", i);
			rc = -1;
			break;
		}
		out[i] = cc.time_s;
	}
	if (have)
		ccs_comm_release(&c);
	ccs_topo_free(t);
	return rc;
}

static void score(const struct row *rw, size_t n, const double *pred, double *rms, double *worst)
{
	double s = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		double e = log(pred[i] / rw[i].t_s);
		s += e * e;
		double r = fabs(pred[i] / rw[i].t_s - 1);
		if (r > w)
			w = r;
	}
	*rms = n ? sqrt(s / (double)n) : 0;
	*worst = w;
}

static int by_rms(const void *a, const void *b)
{
	const struct hyp *x = a, *y = b;
	return (x->rms > y->rms) - (x->rms < y->rms);
}

int ccs_cmd_diagnose(int argc, char **argv)
{
	const char *topo = NULL, *logs[32];
	int nlog = 0, top = 5, list = 0;
	double tol = 0.03;
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	int rc = 2;
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&sets, argc, argv, &i);
		if (r < 0)
			goto out0;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s -t TOPO LOG... [--top N] [--tolerance 3%%] [--list] [--set k=v]\n"
			       "  rank fault hypotheses by how well each one's prediction fits measured nccl-tests logs\n", me);
			rc = 0;
			goto out0;
		}
		if (!strcmp(argv[i], "--list")) {
			list = 1;
			continue;
		}
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			topo = argv[++i];
		else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
			if (ccs_args_int(me, "--top", argv[++i], 1, 100, &top))
				goto out0;
		} else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
			char *end;
			double x = strtod(argv[++i], &end);
			if (end == argv[i] || (*end && strcmp(end, "%")) || !(x > 0) || x >= 100) {
				fprintf(stderr, "%s: '--tolerance' must be a percentage like 3%%\n", me);
				goto out0;
			}
			tol = x / 100;
		} else if (argv[i][0] != '-' && nlog < 32) {
			logs[nlog++] = argv[i];
		} else {
			fprintf(stderr, "%s: unexpected argument '%s'\n", me, argv[i]);
			goto out0;
		}
	}
	if (!topo || !nlog) {
		fprintf(stderr, "usage: %s -t TOPO LOG... [--top N] [--tolerance 3%%]\n", me);
		goto out0;
	}
	rc = 1;
	/* the rows: out-of-place halves of every log */
	struct ccs_meas_set set;
	memset(&set, 0, sizeof set);
	struct row *rw = NULL;
	size_t nrw = 0;
	struct hyp *h = NULL;
	size_t nh = 0, caph = 0;
	double *healthy = NULL;
	struct ccs_topo *t = NULL;
	char err[600];
	for (int i = 0; i < nlog; i++) {
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		if (ccs_ingest_file(logs[i], &set, &d)) {
			fprintf(stderr, "%s\n", d.msg);
			goto out;
		}
	}
	rw = ccs_calloc(set.n + 1, sizeof *rw);
	if (!rw)
		goto oom;
	for (size_t i = 0; i < set.n; i++) {
		const struct ccs_meas *m = &set.m[i];
		if (strcmp(m->source, "nccl-tests") || strncmp(m->variant, "oop", 3))
			continue;
		int coll = ccs_coll_parse(m->name);
		if (coll < 0 || coll == CCS_COLL_SENDRECV || !m->ranks) {
			fprintf(stderr, "%s: %s:%d: %s rows need a known rank count (and are not sendrecv); skipped\n", me, m->file,
			        m->line, m->name);
			continue;
		}
		rw[nrw++] = (struct row){ coll, m->ranks, m->size, m->median_s };
	}
	if (!nrw) {
		fprintf(stderr, "%s: no usable nccl-tests row in the logs\n", me);
		goto out;
	}
	healthy = ccs_malloc(nrw * sizeof *healthy);
	if (!healthy)
		goto oom;
	if (predict_rows(topo, &sets, NULL, rw, nrw, healthy, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", me, err);
		goto out;
	}
	double h_rms, h_worst;
	score(rw, nrw, healthy, &h_rms, &h_worst);
	/* candidates: the NICs and GPUs of the ranks' nodes, their leaves' uplinks */
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	if (ccs_topo_load(topo, (const char *const *)sets.v, sets.n, &t, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		goto out;
	}
	if (ccs_args_refuse_timed("ccsim diagnose", t))
		goto out;
	int maxr = 0;
	for (size_t i = 0; i < nrw; i++)
		if (rw[i].ranks > maxr)
			maxr = rw[i].ranks;
	if ((uint32_t)maxr > t->ngpu) {
		fprintf(stderr, "%s: the logs have %d ranks, %s has %u gpus\n", me, maxr, t->name, t->ngpu);
		goto out;
	}
	char *node_in = ccs_calloc((size_t)t->nnodes + 1, 1);
	if (!node_in)
		goto oom;
	for (int r = 0; r < maxr; r++)
		if (t->gpu[r].node >= 0)
			node_in[t->gpu[r].node] = 1;
	double excess = 0;
	{
		double *ex = ccs_malloc(nrw * sizeof *ex);
		if (!ex) {
			ccs_free(node_in);
			goto oom;
		}
		for (size_t i = 0; i < nrw; i++)
			ex[i] = rw[i].t_s - healthy[i];
		/* median by a small sort */
		for (size_t i = 1; i < nrw; i++)
			for (size_t j = i; j > 0 && ex[j] < ex[j - 1]; j--) {
				double x = ex[j];
				ex[j] = ex[j - 1];
				ex[j - 1] = x;
			}
		excess = nrw % 2 ? ex[nrw / 2] : 0.5 * (ex[nrw / 2 - 1] + ex[nrw / 2]);
		ccs_free(ex);
	}
	char (*spec)[160] = NULL;
	size_t nspec = 0, capspec = 0;
#define ADD(...) do { if (ccs_grow(&spec, &capspec, nspec + 1, sizeof *spec)) { ccs_free(node_in); goto oom; } \
	snprintf(spec[nspec++], sizeof spec[0], __VA_ARGS__); } while (0)
	for (uint32_t dv = 0; dv < t->ndev; dv++) {
		const struct ccs_dev *x = &t->dev[dv];
		if (x->node < 0 || !node_in[x->node]) {
			/* a switch: the links from it up, where a rank's leaf meets a spine */
			if (x->kind == CCS_DEV_NETSW && x->tier == 0)
				for (uint32_t k = t->adj_off[dv]; k < t->adj_off[dv + 1]; k++) {
					uint32_t o = t->adj_nbr[k];
					if (t->dev[o].kind == CCS_DEV_NETSW && t->dev[o].tier > x->tier)
						ADD("link:%s-%s:50%%", x->name, t->dev[o].name);
				}
			continue;
		}
		if (x->kind == CCS_DEV_NIC) {
			ADD("nic:%s:down", x->name);
			ADD("nic:%s:75%%", x->name);
			ADD("nic:%s:50%%", x->name);
			ADD("nic:%s:25%%", x->name);
		} else if (x->kind == CCS_DEV_GPU) {
			ADD("pcie:%s:x8", x->name);
			ADD("pcie:%s:x4", x->name);
			ADD("pcie:%s:gen4", x->name);
			ADD("pcie:%s:gen3", x->name);
			ADD("gdr:%s:off", x->name);
			if (excess > 0)
				ADD("straggler:%s:%.4gus", x->name, excess * 1e6);
		}
	}
	ADD("gdr:all:off");
#undef ADD
	ccs_free(node_in);
	double *pred = ccs_malloc(nrw * sizeof *pred);
	if (!pred)
		goto oom;
	for (size_t i = 0; i < nspec; i++) {
		if (predict_rows(topo, &sets, spec[i], rw, nrw, pred, err, sizeof err))
			continue;   /* cannot complete, or not applicable here */
		double s, w;
		score(rw, nrw, pred, &s, &w);
		/* the same predictions as one already kept: one line for both */
		size_t j = 0;
		for (; j < nh; j++) {
			size_t k = 0;
			while (k < nrw && fabs(h[j].pred[k] / pred[k] - 1) < 1e-9)
				k++;
			if (k == nrw)
				break;
		}
		if (j < nh) {
			if (h[j].members == 1)
				snprintf(h[j].second, sizeof h[j].second, "%s", spec[i]);
			h[j].members++;
			if (add_member(&h[j], spec[i])) {
				ccs_free(pred);
				goto oom;
			}
			continue;
		}
		if (ccs_grow(&h, &caph, nh + 1, sizeof *h)) {
			ccs_free(pred);
			goto oom;
		}
		struct hyp *x = &h[nh++];
		memset(x, 0, sizeof *x);
		snprintf(x->spec, sizeof x->spec, "%s", spec[i]);
		snprintf(x->first, sizeof x->first, "%s", spec[i]);
		x->rms = s;
		x->worst = w;
		x->members = 1;
		x->pred = ccs_malloc(nrw * sizeof *x->pred);
		if (!x->pred || add_member(x, spec[i])) {
			ccs_free(pred);
			goto oom;
		}
		memcpy(x->pred, pred, nrw * sizeof *pred);
	}
	ccs_free(pred);
	ccs_free(spec);
	qsort(h, nh, sizeof *h, by_rms);
	printf("# %s: %zu rows from %d log%s on %s; %zu hypotheses tried\n", me, nrw, nlog, nlog == 1 ? "" : "s", t->name,
	       nh);
	printf("# healthy: fits within %.1f%% (rms of log error %.4f)\n", 100 * h_worst, h_rms);
	int found = nh && !(h_worst <= tol && h[0].rms > 0.5 * h_rms) && h[0].rms < 0.8 * h_rms;
	if (!found) {
		printf("no fault found: the healthy prediction fits within %.1f%% and no hypothesis fits clearly better\n",
		       100 * h_worst);
	} else {
		printf("# rank  fits within  rms      hypothesis\n");
		for (size_t i = 0; i < nh && (int)i < top; i++) {
			char also[220] = "";
			if (h[i].members == 2)
				snprintf(also, sizeof also, " (or, with the same predictions, %s)", h[i].second);
			else if (h[i].members > 2)
				snprintf(also, sizeof also, " (or %d others with the same predictions, e.g. %s)", h[i].members - 1,
				         h[i].second);
			printf("  %4zu  %9.1f%%  %.4f   %s%s\n", i + 1, 100 * h[i].worst, h[i].rms, h[i].spec, also);
			if (list)
				printf("        all: %s\n", h[i].all);
		}
	}
	rc = ccs_args_flush() ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", me);
out:
	for (size_t i = 0; i < nh; i++) {
		ccs_free(h[i].pred);
		ccs_free(h[i].all);
	}
	ccs_free(h);
	ccs_free(healthy);
	ccs_free(rw);
	ccs_topo_free(t);
	ccs_meas_set_release(&set);
out0:
	ccs_args_sets_release(&sets);
	return rc;
}
