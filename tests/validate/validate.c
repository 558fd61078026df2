/*
** tests/validate/validate.c: ccsim's closed form and NCCL's own tuning model
** against published measurements (shared/validation/published.csv).
**
**   validate CSV OUT.md [--check]
**
** Each row the shipped topologies can express is mapped (rules below, by id)
** to a topology, --set overrides, ranks, and the algorithm NCCL ran: forced
** (NCCL_ALGO in the source, or the algorithm NCCL's debug log reported) or
** NCCL's own choice.  Both models predict the row's metric (busbw, algbw or
** time) at its size; the error is predicted / measured - 1.  OUT.md gets the
** per-row table and the summary.  --check exits 1 unless ccsim's median
** absolute error is <= 6% on rows of 64 MiB and above and <= 20% overall,
** and below NCCL's model in both, and the simulator, run on each scored
** collective row, is within 5% of the closed form on every one.
*/
#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/moe.h"
#include "../../model/topo_yaml.h"
#include "../../calibrate/modelerr.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const struct rule rules[] = {
	/* NCCL's release as the source states it: Azure's 2.18.5, stas00's 2.27.7 */
	{ "AZ-H100-AR-", "Azure ND H100 v5, 1 node, NVLS forced", "hgx-h100.yaml", { "model.nccl_version=2.18.5" }, 1, "nvls", NULL, 0, 0, NULL, "AZ-H100-" },
	/* NCCL_ALGO=NVLS on A100 leaves NVLS unavailable; the 45 us measured at
	 * 1 KiB is the Simple protocol's latency (LL would be ~15 us), so the
	 * rows are compared with ring/Simple, the fallback the source describes. */
	{ "AZ-A100-AR-", "Azure ND A100 v4, 1 node (NVLS asked: ring/Simple)", "dgx-a100.yaml",
	  { "model.nccl_version=2.18.5" }, 1, "ring", "Simple", 0, 0, NULL, "AZ-A100-" },
	{ "STAS-H200-AR-g", "H200, 4-8 of 8 GPUs at 8 GiB", "hgx-h100.yaml",
	  { "node.devices.2.model=H200", "node.devices.2.memory_bandwidth=4.8TB/s", "model.nccl_version=2.27.7" }, 1,
	  NULL, NULL, 0, 0, NULL, "STAS-H200-" },
	{ "STAS-H200-AR-", "H200, 1 node, algorithm per NCCL log", "hgx-h100.yaml",
	  { "node.devices.2.model=H200", "node.devices.2.memory_bandwidth=4.8TB/s", "model.nccl_version=2.27.7" }, 1,
	  NULL, NULL, 0, 1, NULL, "STAS-H200-" },
	{ "AWS-p5-1n-", "AWS p5, 1 node", "aws-p5.yaml", { "nodes=1" }, 1, NULL, NULL, 0, 0, NULL, "AWS-p5-" },
	{ "AWS-p5-2n-", "AWS p5, 2 nodes over EFA", "aws-p5.yaml", { "nodes=2" }, 1, NULL, NULL, 0, 0, NULL, "AWS-p5-" },
	{ "AWS-p5en-", "AWS p5en, 16 nodes over EFA", "aws-p5en.yaml", { "nodes=16" }, 1, NULL, NULL, 0, 0, NULL, "AWS-p5en-" },
	/* held out: no constant was set from these rows (issue 18's example of
	 * EFA v1's transport and NCCL's 2-node tree) */
	{ "AWS-p4de-2n-", "AWS p4de (A100), 2 nodes over EFA v1", "aws-p4de.yaml", { "nodes=2" }, 1, NULL, NULL, 0, 0, NULL, "AWS-p4de-" },
	{ "I2409-", "RoCE report", NULL, { 0 }, 0, NULL, NULL, 0, 0,
	  "its reporter calls the cluster underperforming (expected ~470 GB/s AllReduce); a sanity check only", NULL },
	/* DeepEP rows go through the MoE model (moe_row below) */
	{ "DEEPEP", "DeepEP on H800 (MoE dispatch/combine)", "hgx-h800.yaml", { 0 }, 1, NULL, NULL, 0, 0, NULL, "DEEPEP1-" },
	/* held out: pplx-kernels on H100 nodes (the NIC is not stated; 400G
	 * InfiniBand, as the source infers); no constant was set from them */
	{ "PPLX-", "pplx-kernels on H100 (held out)", "hgx-h100-cluster.yaml", { 0 }, 1, NULL, NULL, 0, 0, NULL, "PPLX-" },
};
const size_t nrules = sizeof rules / sizeof rules[0];

/* ---- CSV ---- */

int csv_fields(char *line, char **f, int maxf)
{
	int n = 0;
	char *p = line;
	while (n < maxf) {
		char *out = p, *start = p;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					break;
				if (*p == '"' && p[1] == '"') {
					*out++ = '"';
					p += 2;
					continue;
				}
				if (*p == '"') {
					p++;
					break;
				}
				*out++ = *p++;
			}
			while (*p && *p != ',')
				p++;
		} else {
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				*out++ = *p++;
		}
		char end = *p;
		*out = 0;
		f[n++] = start;
		if (end != ',')
			break;
		p++;
	}
	return n;
}


/* A DeepEP row (id DEEPEP1-{normal,LL}-EP<n>-{dispatch,combine}[-lat|-bw]):
 * DeepEP's own test settings (tests/test_intranode.py, test_internode.py,
 * test_low_latency.py): normal 4096 tokens, top-8 of (256 / EP) x EP
 * experts, group-limited to min(nodes, 4) nodes across nodes; low-latency
 * 128 tokens, top-8 of 288 experts (256 where 288 does not divide); hidden
 * 7168, fp8 dispatch, bf16 combine.  Predicts DeepEP's metric (its logical
 * "bottleneck bandwidth", or the time) into r->ours. */
static int moe_row(struct result *r, const struct ccs_comm *c, int nodes)
{
	int pplx = !strncmp(r->id, "PPLX-", 5);
	int ll = strstr(r->id, "-LL-") != NULL, comb = strstr(r->id, "combine") != NULL || strstr(r->id, "Combine");
	struct ccs_moe_cfg cfg;
	ccs_moe_cfg_default(&cfg);
	cfg.hidden = 7168;
	cfg.topk = 8;
	cfg.fp8 = !comb;
	if (pplx) {
		/* pplx-kernels' README: 256 experts, top-8, hidden 7168, fp8
		 * dispatch, bf16 combine, 1 or 128 tokens a GPU (the id says) */
		cfg.tokens = atoi(r->id + 5);
		cfg.experts = 256;
	} else if (ll) {
		cfg.tokens = 128;
		cfg.experts = 288 % c->n == 0 ? 288 : 256;
	} else {
		cfg.tokens = 4096;
		cfg.experts = 256 / c->n * c->n;
		cfg.topk_groups = nodes > 1 ? (nodes < 4 ? nodes : 4) : 0;
	}
	char why[160];
	struct ccs_moe_routing rt;
	struct ccs_moe_plan p;
	struct ccs_moe_cost mc;
	if (ccs_moe_check(&cfg, c->n, why, sizeof why) || ccs_moe_route(&cfg, c, NULL, &rt))
		return -1;
	int algo = pplx ? CCS_MOE_PPLX : ll ? CCS_MOE_LL : CCS_MOE_NORMAL;
	int rc = ccs_moe_plan(c, &cfg, &rt, NULL, comb ? CCS_MOE_COMBINE : CCS_MOE_DISPATCH, algo, &p, why, sizeof why);
	ccs_moe_routing_release(&rt);
	if (rc)
		return -1;
	rc = ccs_moe_eval(c, &p, &mc);
	ccs_moe_plan_release(&p);
	if (rc)
		return -1;
	r->ours = !strcmp(r->metric, "time_us") ? mc.time_s * 1e6 : mc.bottleneck_Bps / 1e9;
	snprintf(r->ours_sel, sizeof r->ours_sel, "%s", ccs_moe_algo_name[algo]);
	r->nccl = NAN;
	r->moe = 1;
	r->pplx = pplx;
	r->ep = c->n;
	r->target = !pplx && c->n >= 8 && c->n <= 32;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double metric_of(const char *metric, int coll, int n, double bytes, double t)
{
	if (!strcmp(metric, "time_us"))
		return t * 1e6;
	double algbw = bytes / t / 1e9;
	return !strcmp(metric, "busbw") ? algbw * ccs_busbw_factor(coll, n) : algbw;
}

static void fmt_size(double b, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB" };
	int i = 0;
	while (b >= 1024 && i < 3) {
		b /= 1024;
		i++;
	}
	snprintf(buf, n, "%g %s", b, u[i]);
}

/* The simulator on what the closed form priced (algorithm a, protocol q,
 * NCCL's channels): r->sim, left NaN where it cannot run the row. */
static void simulate_row(struct result *r, const struct ccs_comm *c, int coll, int a, int q, uint64_t bytes)
{
	struct ccs_fabric *fab = NULL;
	struct ccs_sched s;
	const char *why = NULL;
	if (ccs_fabric_new(c, &fab))
		return;
	if (!ccs_sched_build(c, coll, a, q, 0, bytes, &s, &why)) {
		struct ccs_sim_stats st;
		char err[256];
		if (!ccs_sim_run(fab, &s, &st, NULL, err, sizeof err) && st.time_s > 0)
			r->sim = metric_of(r->metric, coll, c->n, r->bytes, st.time_s);
		ccs_sched_release(&s);
	}
	ccs_fabric_free(fab);
}

/* Row r of a collective at a size: ccsim's closed form on the algorithm NCCL
 * ran (or its choice), and NCCL's own model within the same restrictions. */
static void predict_row(struct result *r, const struct ccs_comm *c, int coll, const struct rule *ru, char **f)
{
	unsigned amask = (1u << CCS_ALGO_N) - 1, pmask = (1u << CCS_PROTO_N) - 1;
	const char *algo_s = ru->algo, *proto_s = ru->proto;
	char abuf[32] = "", pbuf[32] = "";
	if (ru->from_columns) {
		snprintf(abuf, sizeof abuf, "%s", f[12]);
		snprintf(pbuf, sizeof pbuf, "%s", f[13]);
		algo_s = abuf;
		proto_s = *pbuf ? pbuf : NULL;
	}
	if (strstr(f[12], "NVLS_ENABLE=0"))
		amask &= ~((1u << CCS_ALGO_NVLS) | (1u << CCS_ALGO_NVLS_TREE));
	if (algo_s && ccs_algo_parse(algo_s) >= 0)
		amask = 1u << ccs_algo_parse(algo_s);
	if (proto_s && ccs_proto_parse(proto_s) >= 0)
		pmask = 1u << ccs_proto_parse(proto_s);
	uint64_t bytes = (uint64_t)r->bytes;
	int a = -1, q = -1, na = -1, nq = -1;
	struct ccs_cost cc;
	if (ccs_select(c, coll, bytes, amask, pmask, 1, &a, &q) ||
	    ccs_cost_eval(c, coll, a, q, 0, bytes, &cc, NULL)) {
		r->skip = "no algorithm applies";
		return;
	}
	r->ours = metric_of(r->metric, coll, c->n, r->bytes, cc.time_s);
	r->sim = NAN;
	if (r->want_sim)
		simulate_row(r, c, coll, a, q, bytes);
	snprintf(r->ours_sel, sizeof r->ours_sel, "%s/%s", ccs_algo_desc[a].name, ccs_proto_name[q]);
	/* NCCL's model, on its own choice within the same restrictions */
	unsigned nmask = amask & ((1u << CCS_ALGO_NCCL_N) - 1);
	r->nccl = NAN;
	if (!ccs_select(c, coll, bytes, nmask, pmask, 1, &na, &nq)) {
		double tn = ccs_nccl_time(&c->nccl, coll, na, nq, bytes);
		if (tn > 0) {
			r->nccl = metric_of(r->metric, coll, c->n, r->bytes, tn);
			snprintf(r->nccl_sel, sizeof r->nccl_sel, "%s/%s", ccs_algo_desc[na].name, ccs_proto_name[nq]);
		}
	}
}

/* One CSV row (its fields f) scored into r, or marked skipped with why:
 * 0, or -1 when its topology does not load (a bug in the rules). */
int score_row(char **f, struct result *r, const char *const *extra, int nextra)
{
	snprintf(r->id, sizeof r->id, "%s", f[0]);
	snprintf(r->coll, sizeof r->coll, "%s", f[11]);
	snprintf(r->algo_meas, sizeof r->algo_meas, "%s%s%s", f[12], *f[13] ? "/" : "", f[13]);
	snprintf(r->metric, sizeof r->metric, "%s", f[15]);
	r->bytes = atof(f[14]);
	r->nodes = atoi(f[4]);
	r->meas = atof(f[16]);
	const struct rule *ru = NULL;
	for (size_t k = 0; k < sizeof rules / sizeof rules[0] && !ru; k++)
		if (!strncmp(f[0], rules[k].prefix, strlen(rules[k].prefix)))
			ru = &rules[k];
	int coll = ccs_coll_parse(f[11]);
	if (!ru) {
		r->skip = coll < 0 ? "not a collective (copy-engine or NIC microbenchmark; used for link efficiency defaults)"
		                   : "no mapping to a shipped topology yet";
		snprintf(r->group, sizeof r->group, "other");
		return 0;
	}
	snprintf(r->group, sizeof r->group, "%s", ru->group);
	if (ru->skip) {
		r->skip = ru->skip;
		return 0;
	}
	if (!strcmp(r->metric, "algbw") && !strncmp(f[0], "STAS-H200-AR-", 13) && strstr(f[0], "algbw")) {
		r->skip = "the same measurement as its busbw row";
		return 0;
	}
	int is_moe = !strncmp(f[0], "DEEPEP", 6) || !strncmp(f[0], "PPLX-", 5);
	if (!is_moe && (coll < 0 || r->bytes <= 0)) {
		r->skip = "not a collective at a size";
		return 0;
	}
	char path[256];
	snprintf(path, sizeof path, "topologies/%s", ru->topo);
	const char *sets[12];
	int nsets = 0;
	while (nsets < 3 && ru->sets[nsets]) {
		sets[nsets] = ru->sets[nsets];
		nsets++;
	}
	for (int k = 0; k < nextra && nsets < 11; k++)
		sets[nsets++] = extra[k];
	char nodes_set[32];
	if (is_moe) {
		snprintf(nodes_set, sizeof nodes_set, "nodes=%d", atoi(f[4]));
		sets[nsets++] = nodes_set;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_topo *t = NULL;
	if (ccs_topo_yaml_load(path, sets, nsets, &t, &d)) {
		fprintf(stderr, "validate: %s: %s\n", r->id, d.msg);
		return 1;
	}
	int ppn = atoi(f[3]), nodes = atoi(f[4]);
	r->nvlink_arch = t->params.nvlink_arch;
	struct ccs_comm c;
	char err[256];
	if (ccs_comm_build(t, ppn * nodes, ppn, &c, err, sizeof err)) {
		fprintf(stderr, "validate: %s: %s\n", r->id, err);
		return 1;
	}
	if (is_moe) {
		if (moe_row(r, &c, nodes))
			r->skip = "the MoE model refused the row";
		ccs_comm_release(&c);
		ccs_topo_free(t);
		return 0;
	}
	predict_row(r, &c, coll, ru, f);
	ccs_comm_release(&c);
	ccs_topo_free(t);
	return 0;
}

/* Per group: rows, ccsim's and NCCL's model's median and worst error. */
static void write_groups(FILE *out, const struct result *res, int nres)
{
	for (int i = 0; i < nres; i++) {
		if (res[i].skip || res[i].moe || !res[i].group[0])
			continue;
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !res[j].skip && !strcmp(res[j].group, res[i].group);
		if (seen)
			continue;
		double eo[1024], en[1024];
		int ko = 0, kn = 0;
		double wo = 0, wn = 0;
		for (int j = i; j < nres; j++) {
			if (res[j].skip || res[j].moe || strcmp(res[j].group, res[i].group))
				continue;
			double x = fabs(res[j].ours / res[j].meas - 1);
			eo[ko++] = x;
			if (x > wo) wo = x;
			if (!isnan(res[j].nccl)) {
				double y = fabs(res[j].nccl / res[j].meas - 1);
				en[kn++] = y;
				if (y > wn) wn = y;
			}
		}
		fprintf(out, "| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", res[i].group, ko, 100 * median(eo, ko),
		        100 * wo, 100 * median(en, kn), 100 * wn);
	}
}

/* By size range (calibrate/modelerr.h's bands): each model's median error, ccsim's left one group out
 * beside its own (lg), and where ccsim's is the worse; *behind: the bands
 * where ccsim's leave-one-group-out figure is not below NCCL's model's. */
static void write_sizes(FILE *out, const struct result *res, int nres, const struct logo_fig *lg, int *behind)
{
	fprintf(out, "## By size\n\n| sizes | rows | ccsim median abs | ccsim leave-one-group-out | NCCL model median abs |\n"
	             "|---|---|---|---|---|\n");
	static const char *const names[CCS_MODELERR_BANDS] = { "below 64 KiB", "64 KiB to 1 MiB", "1 MiB to 64 MiB",
		                                               "64 MiB and above" };
	const double *edges = ccs_modelerr_edge;
	int worse[CCS_MODELERR_BANDS] = { 0 };
	*behind = 0;
	for (int k = 0; k < CCS_MODELERR_BANDS; k++) {
		static double eo[1024], en[1024];
		int ko = 0, kn = 0;
		for (int i = 0; i < nres; i++) {
			if (res[i].skip || res[i].moe || res[i].bytes < edges[k] || res[i].bytes >= edges[k + 1])
				continue;
			eo[ko++] = fabs(res[i].ours / res[i].meas - 1);
			if (!isnan(res[i].nccl))
				en[kn++] = fabs(res[i].nccl / res[i].meas - 1);
		}
		double mo = median(eo, ko), mn = median(en, kn);
		fprintf(out, "| %s | %d | %.1f%% | %.1f%% | %.1f%% |\n", names[k], ko, 100 * mo, 100 * lg->band[k], 100 * mn);
		worse[k] = mo > mn || lg->band[k] > mn;
		*behind += !(lg->band[k] < mn);
	}
	fprintf(out, "\n");
	for (int k = 0; k < CCS_MODELERR_BANDS; k++)
		if (worse[k])
			fprintf(out, "ccsim's median error is above NCCL's model's in the %s range. There both models miss "
			             "effects they do not model (docs/model.md section 7).\n\n",
			        names[k]);
}

/* Per group and size range: ccsim's median error (NCCL's model's beside
 * it), "-" where a group has no rows of that size. */
static void write_group_sizes(FILE *out, const struct result *res, int nres)
{
	static const double edges[5] = { 0, 65536, 1048576, 67108864, 1e30 };
	fprintf(out, "## By group and size\n\nccsim's median |error| (NCCL's model's) per range.\n\n"
	             "| group | below 64 KiB | 64 KiB to 1 MiB | 1 MiB to 64 MiB | 64 MiB and above |\n|---|---|---|---|---|\n");
	for (int i = 0; i < nres; i++) {
		if (res[i].skip || res[i].moe || !res[i].group[0])
			continue;
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !res[j].skip && !res[j].moe && !strcmp(res[j].group, res[i].group);
		if (seen)
			continue;
		fprintf(out, "| %s |", res[i].group);
		for (int k = 0; k < 4; k++) {
			static double eo[1024], en[1024];
			int ko = 0, kn = 0;
			for (int j = i; j < nres; j++) {
				const struct result *r = &res[j];
				if (r->skip || r->moe || strcmp(r->group, res[i].group) || r->bytes < edges[k] || r->bytes >= edges[k + 1])
					continue;
				eo[ko++] = fabs(r->ours / r->meas - 1);
				if (!isnan(r->nccl))
					en[kn++] = fabs(r->nccl / r->meas - 1);
			}
			if (!ko)
				fprintf(out, " - |");
			else if (kn)
				fprintf(out, " %.1f%% (%.1f%%) |", 100 * median(eo, ko), 100 * median(en, kn));
			else
				fprintf(out, " %.1f%% |", 100 * median(eo, ko));
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

/* The simulator against the closed form on every scored collective row
 * (the same algorithm, protocol and channels; nothing else on the fabric):
 * the median and worst |simulated / closed form - 1|, the rows beyond 5%
 * listed; *med, *worst and *nover for the summary line. */
static void write_sim(FILE *out, const struct result *res, int nres, double *med, double *worst, int *nover, int *nrows)
{
	static double d[1024];
	int n = 0;
	*worst = 0;
	*nover = 0;
	fprintf(out, "## Closed form and simulator\n\n"
	             "`ccsim simulate` on each scored collective row, on the algorithm, protocol and channels the\n"
	             "closed form priced, alone on its fabric. The two engines share the parameters and the graph,\n"
	             "not their arithmetic: the simulator moves each step's bytes as flows under max-min sharing.\n"
	             "Rows where they differ by more than 5%%:\n\n"
	             "| id | size | closed form | simulated | diff |\n|---|---|---|---|---|\n");
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip || r->moe || isnan(r->sim))
			continue;
		double x = r->sim / r->ours - 1;
		d[n++] = fabs(x);
		if (fabs(x) > *worst)
			*worst = fabs(x);
		if (fabs(x) > 0.05) {
			char sz[32];
			fmt_size(r->bytes, sz, sizeof sz);
			fprintf(out, "| %s | %s | %.4g (%s) | %.4g | %+.1f%% |\n", r->id, sz, r->ours, r->ours_sel, r->sim, 100 * x);
			(*nover)++;
		}
	}
	*nrows = n;
	*med = median(d, n);
	fprintf(out, "\n%d rows simulated; median |simulated / closed form - 1| %.1f%%, worst %.1f%%, %d beyond 5%%.\n\n",
	        n, 100 * *med, 100 * *worst, *nover);
}

/* Every scored row, then every row not scored with why. */
static void write_rows(FILE *out, const struct result *res, int nres)
{
	fprintf(out, "## Rows\n\n| id | size | metric | measured | NCCL ran | ccsim | err | NCCL model | err |\n"
	             "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip || r->moe)
			continue;
		char sz[32];
		fmt_size(r->bytes, sz, sizeof sz);
		fprintf(out, "| %s | %s | %s | %.4g | %s | %.4g (%s) | %+.1f%% |", r->id, sz, r->metric, r->meas, r->algo_meas,
		        r->ours, r->ours_sel, 100 * (r->ours / r->meas - 1));
		if (isnan(r->nccl))
			fprintf(out, " - | - |\n");
		else
			fprintf(out, " %.4g (%s) | %+.1f%% |\n", r->nccl, r->nccl_sel, 100 * (r->nccl / r->meas - 1));
	}
	fprintf(out, "\n## Rows not scored\n\n| id | collective | why |\n|---|---|---|\n");
	for (int i = 0; i < nres; i++)
		if (res[i].skip)
			fprintf(out, "| %s | %s | %s |\n", res[i].id, res[i].coll, res[i].skip);
}

/* What the file is and how it was made, and the summary table's head. */
static void write_intro(FILE *out)
{
	fprintf(out, "# Validation against published measurements\n\n"
	             "Generated by `make validate` from `../shared/validation/published.csv`: every row the\n"
	             "shipped topologies can express, predicted by ccsim's closed form (`ccsim predict`, on the\n"
	             "algorithm NCCL ran: forced in the source, reported by NCCL's log, or NCCL's own choice as\n"
	             "its tuning model makes it) and by NCCL's own tuning model (`src/graph/tuning.cc`,\n"
	             "reimplemented in `model/nccl_tune.c` on the same graph, as the release the source names:\n"
	             "Azure's 2.18.5, stas00's 2.27.7, else 2.30). Error = predicted / measured - 1\n"
	             "on the row's metric. The model's constants come from public figures (docs/model.md); two\n"
	             "were set from rows of this file and are shown with their leave-one-group-out error in the\n"
	             "section \"Constants set from published rows\".\n\n");
	/* per group */
	fprintf(out, "## Summary\n\n| group | rows | ccsim median abs | ccsim worst | NCCL model median abs | NCCL model worst |\n"
	             "|---|---|---|---|---|---|\n");
}

/* The model's median error by scope (one node, or across the network) and
 * size band, as calibrate/modelerr.c holds it for diagnose; *stale set when
 * that table is more than 0.05 points off (a row or the model changed:
 * copy this table's figures there). */
static void write_scope(FILE *out, const struct result *res, int nres, int *stale)
{
	static const char *const scope[2] = { "one node", "across nodes" };
	fprintf(out, "## The model's own error by scope and size\n\n"
	             "ccsim's median |error| over the scored rows of each scope and size band (rows). `ccsim diagnose`\n"
	             "takes it as each row's tolerance, where it is above the 15%% floor (calibrate/modelerr.c holds\n"
	             "these figures; `validate --check` fails when they differ from this table).\n\n"
	             "| scope | below 64 KiB | 64 KiB to 1 MiB | 1 MiB to 64 MiB | 64 MiB and above |\n|---|---|---|---|---|\n");
	*stale = 0;
	for (int s = 0; s < 2; s++) {
		fprintf(out, "| %s |", scope[s]);
		for (int k = 0; k < CCS_MODELERR_BANDS; k++) {
			static double e[1024];
			int n = 0;
			for (int i = 0; i < nres; i++) {
				const struct result *r = &res[i];
				if (!r->skip && !r->moe && (r->nodes > 1) == s && r->bytes >= ccs_modelerr_edge[k] &&
				    r->bytes < ccs_modelerr_edge[k + 1])
					e[n++] = fabs(r->ours / r->meas - 1);
			}
			double m = n ? median(e, n) : 0;
			fprintf(out, " %.1f%% (%d) |", 100 * m, n);
			if (fabs(m - ccs_modelerr_med[s][k]) > 0.0005) {
				fprintf(stderr, "validate: calibrate/modelerr.c: %s, band %d: %.3f, the rows give %.3f\n", scope[s], k,
				        ccs_modelerr_med[s][k], m);
				*stale = 1;
			}
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

/* The DeepEP rows: each one's error; their count, median and worst (EP8 to
 * EP32, the targets) and how many targets are missed. */
static void write_moe(FILE *out, const struct result *res, int nres, int *moe_rows, double *moe_med,
                      double *moe_worst, int *moe_bad)
{
	*moe_worst = 0;
	*moe_rows = 0;
	*moe_bad = 0;
	static double em[1024];
	fprintf(out, "## MoE dispatch and combine (DeepEP on H800)\n\n"
	             "`ccsim predict -c dispatch|combine -a deepep_normal|deepep_ll` on `topologies/hgx-h800.yaml`\n"
	             "with DeepEP's test settings (normal: 4096 tokens per rank, top-8 of 256 experts, routing\n"
	             "limited to min(nodes, 4) nodes; low-latency: 128 tokens, top-8 of 288 experts; hidden 7168,\n"
	             "fp8 dispatch, bf16 combine; seed 1). Measured and predicted are DeepEP's own metrics: its\n"
	             "logical \"bottleneck bandwidth\" (GB/s) or the kernel time (us). Target: within 20%% per row\n"
	             "from EP8 to EP32; the larger EP rows are shown as well.\n\n"
	             "| id | EP | metric | measured | ccsim | err |\n|---|---|---|---|---|---|\n");
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip || !r->moe || r->pplx)
			continue;
		double e = r->ours / r->meas - 1;
		fprintf(out, "| %s | %d | %s | %.4g | %.4g | %+.1f%% |\n", r->id, r->ep, r->metric, r->meas, r->ours, 100 * e);
		em[(*moe_rows)++] = fabs(e);
		if (r->target && fabs(e) > *moe_worst)
			*moe_worst = fabs(e);
		if (r->target && fabs(e) > 0.20)
			(*moe_bad)++;
	}
	*moe_med = median(em, *moe_rows);
	fprintf(out, "\n%d rows; median |error| %.1f%%; worst from EP8 to EP32 %.1f%%.\n\n", *moe_rows, 100 * *moe_med,
	        100 * *moe_worst);
	/* the held-out pplx-kernels rows (issue 18's example of class 7) */
	static double ep_[256];
	int np = 0;
	fprintf(out, "### pplx-kernels on H100 (held out)\n\n"
	             "`ccsim predict -c dispatch|combine -a pplx` on `topologies/hgx-h100-cluster.yaml` (the source\n"
	             "names H100 nodes, not their NIC: 400G InfiniBand assumed) with pplx-kernels' README settings:\n"
	             "1 or 128 tokens a GPU, top-8 of 256 experts, hidden 7168, fp8 dispatch, bf16 combine. No\n"
	             "constant was set from these rows.\n\n| id | EP | measured (us) | ccsim (us) | err |\n|---|---|---|---|---|\n");
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];
		if (r->skip || !r->pplx)
			continue;
		double e = r->ours / r->meas - 1;
		fprintf(out, "| %s | %d | %.4g | %.4g | %+.1f%% |\n", r->id, r->ep, r->meas, r->ours, 100 * e);
		ep_[np++] = fabs(e);
	}
	fprintf(out, "\n%d rows; median |error| %.1f%%.\n\n", np, 100 * median(ep_, np));
}

/* The CSV's rows after its header, each scored into res[] with its text
 * kept in lines[] (for rescoring): 0, 1 on a bug in the rules, 2 when the
 * file is empty. */
static int read_rows(FILE *in, const char *path, struct result *res, char **lines, int *nres)
{
	static char line[16384];
	char *f[MAXF];
	if (!fgets(line, sizeof line, in)) {
		fprintf(stderr, "validate: %s is empty\n", path);
		return 2;
	}
	/* columns: id source gpu gpus_per_node nodes scaleup_fabric scaleup_GBps nic nic_Gbps
	 * nics_per_node scaleout_topology collective algo proto bytes metric value notes */
	while (fgets(line, sizeof line, in) && *nres < 1024) {
		char *keep = strdup(line);   /* csv_fields cuts line in place */
		if (!keep)
			return 1;
		if (csv_fields(line, f, MAXF) < 17) {
			free(keep);
			continue;
		}
		lines[*nres] = keep;
		res[*nres].want_sim = 1;
		res[*nres].sim = NAN;
		if (score_row(f, &res[*nres], NULL, 0))
			return 1;
		(*nres)++;
	}
	return 0;
}

/* The summary's last rows (every scored collective row, >= 64 MiB and all
 * sizes, ccsim's and NCCL's model's medians) and the leave-one-group-out
 * table beside them (logo.c), into out and *sm, *lg. */
struct summary {
	double mo_all, mo_big, mn_all, mn_big;
	int na, nb;
};

static void write_summary(FILE *out, const struct result *res, char *const *lines, int nres, struct summary *sm,
                          struct logo_fig *lg)
{
	static double e_all[1024], e_big[1024], n_all[1024], n_big[1024], em[1024];
	int na_ = 0, nb_ = 0, nna = 0, nnb = 0, nm = 0;
	for (int i = 0; i < nres; i++) {
		if (!res[i].skip && res[i].moe && !res[i].pplx)
			em[nm++] = fabs(res[i].ours / res[i].meas - 1);
		if (res[i].skip || res[i].moe)
			continue;
		double x = fabs(res[i].ours / res[i].meas - 1);
		e_all[na_++] = x;
		if (res[i].bytes >= 64.0 * 1048576)
			e_big[nb_++] = x;
		if (!isnan(res[i].nccl)) {
			double y = fabs(res[i].nccl / res[i].meas - 1);
			n_all[nna++] = y;
			if (res[i].bytes >= 64.0 * 1048576)
				n_big[nnb++] = y;
		}
	}
	sm->mo_all = median(e_all, na_);
	sm->mo_big = median(e_big, nb_);
	sm->mn_all = median(n_all, nna);
	sm->mn_big = median(n_big, nnb);
	sm->na = na_;
	sm->nb = nb_;
	double moe_in = median(em, nm);
	fprintf(out, "| **all scored rows, >= 64 MiB** | %d | **%.1f%%** | | **%.1f%%** | |\n", nb_, 100 * sm->mo_big,
	        100 * sm->mn_big);
	fprintf(out, "| **all scored rows, every size** | %d | **%.1f%%** | | **%.1f%%** | |\n\n", na_, 100 * sm->mo_all,
	        100 * sm->mn_all);
	logo_summary(res, lines, nres, lg);
	fprintf(out, "Leave one group out (the column the model is judged on): every row scored with every constant\n"
	             "that was set from rows of this file refit without the row's group (section \"Constants set\n"
	             "from published rows\"; a DeepEP row leaves its EP size out):\n\n"
	             "| rows | in-sample median abs | leave-one-group-out median abs | NCCL model median abs |\n"
	             "|---|---|---|---|\n"
	             "| >= 64 MiB (%d) | %.1f%% | %.1f%% | %.1f%% |\n| every size (%d) | %.1f%% | %.1f%% | %.1f%% |\n"
	             "| DeepEP (%d) | %.1f%% | %.1f%% | - |\n\n",
	        lg->nbig, 100 * sm->mo_big, 100 * lg->big, 100 * sm->mn_big, lg->nall, 100 * sm->mo_all, 100 * lg->all,
	        100 * sm->mn_all, lg->nmoe, 100 * moe_in, 100 * lg->moe);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: validate CSV OUT.md [--check]\n");
		return 2;
	}
	int check = argc > 3 && !strcmp(argv[3], "--check");
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "validate: cannot open %s\n", argv[1]);
		return 2;
	}
	struct result *res = calloc(1024, sizeof *res);
	static char *lines[1024];
	int nres = 0;
	int rrc = res ? read_rows(in, argv[1], res, lines, &nres) : 1;
	fclose(in);
	if (rrc)
		return rrc;

	FILE *out = fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "validate: cannot write %s\n", argv[2]);
		return 2;
	}
	write_intro(out);
	write_groups(out, res, nres);
	struct summary sm;
	struct logo_fig lg;
	write_summary(out, res, lines, nres, &sm, &lg);
	double mo_all = sm.mo_all, mo_big = sm.mo_big, mn_all = sm.mn_all, mn_big = sm.mn_big;
	int na_ = sm.na, nb_ = sm.nb;

	int behind;
	write_sizes(out, res, nres, &lg, &behind);
	write_group_sizes(out, res, nres);
	int stale;
	write_scope(out, res, nres, &stale);

	double moe_worst, moe_med;
	int moe_rows, moe_bad;
	write_moe(out, res, nres, &moe_rows, &moe_med, &moe_worst, &moe_bad);
	write_logo(out, res, lines, nres);
	double sim_med, sim_worst;
	int sim_over, sim_rows;
	write_sim(out, res, nres, &sim_med, &sim_worst, &sim_over, &sim_rows);
	write_rows(out, res, nres);
	fclose(out);
	printf("validate: %d rows scored; ccsim median |err| %.1f%% (>= 64 MiB, %d rows), %.1f%% (all sizes); "
	       "NCCL's model %.1f%% and %.1f%%\n", na_, 100 * mo_big, nb_, 100 * mo_all, 100 * mn_big, 100 * mn_all);
	printf("validate: %d DeepEP rows; median |err| %.1f%%, worst EP8-EP32 %.1f%% (target <= 20%% per row)\n",
	       moe_rows, 100 * moe_med, 100 * moe_worst);
	printf("validate: simulator vs closed form on %d rows: median %.1f%%, worst %.1f%%, %d beyond 5%%\n", sim_rows,
	       100 * sim_med, 100 * sim_worst, sim_over);
	printf("validate: leave one group out: %.1f%% (>= 64 MiB), %.1f%% (all sizes), %.1f%% (DeepEP); by size band "
	       "%.1f%%, %.1f%%, %.1f%%, %.1f%% (%d behind NCCL's model)\n", 100 * lg.big, 100 * lg.all, 100 * lg.moe,
	       100 * lg.band[0], 100 * lg.band[1], 100 * lg.band[2], 100 * lg.band[3], behind);
	free(res);
	for (int i = 0; i < nres; i++)
		free(lines[i]);
	/* the engines agree within 5% on every row (each row runs alone on
	 * its fabric: nothing contends; the rows beyond are listed in the file) */
	int ok = mo_big <= 0.06 && mo_all <= 0.20 && mo_big < mn_big && mo_all < mn_all && !moe_bad && moe_rows > 0 && !stale &&
	         sim_rows > 0 && sim_worst <= 0.05;
	printf("validate: targets (<= 6%% at >= 64 MiB, <= 20%% overall, below NCCL's model in both; DeepEP "
	       "EP8-EP32 <= 20%% per row; simulator within 5%% of the closed form per row): %s\n", ok ? "met" : "NOT MET");
	/* the figures the project is judged on: left one group out, each
	 * within 1.5x of its in-sample figure, ahead of NCCL's model in every
	 * size band */
	int logo_ok = lg.big <= 0.04 && lg.all <= 0.15 && lg.moe <= 0.20 && lg.big <= 1.5 * mo_big &&
	              lg.all <= 1.5 * mo_all && lg.moe <= 1.5 * moe_med && !behind;
	printf("validate: leave-one-group-out targets (<= 4%% at >= 64 MiB, <= 15%% overall, <= 20%% DeepEP, each within "
	       "1.5x of in-sample, ahead of NCCL's model in every size band): %s\n", logo_ok ? "met" : "NOT MET");
	ok = ok && logo_ok;
	return check && !ok ? 1 : 0;
}
