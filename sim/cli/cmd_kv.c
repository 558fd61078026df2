/*
** sim/cli/cmd_kv.c: `ccsim predict|simulate -c kvcache`: KV-cache transfer from
** a prefill instance to a decode instance (model/kv.h), layer by layer.
**
** Prints the time until the last layer's cache has landed, the part of it
** decode waits beyond prefill's compute (exposed), the transfer time of one
** layer, per-rank bytes, the bytes on scale-up links and on the network,
** the rate each decode rank receives at, the pages and the bound.
*/
#include "cli.h"

#include "../../model/kv.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"
#include "../sim.h"
#include "../sched/build.h"
#include "../report.h"
#include "../trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *me = "ccsim predict";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: %s -t TOPO -c kvcache [options]\n"
	        "  -n N, --ppn P       ranks (default: every GPU), at most P per node\n"
	        "  --prefill P         prefill ranks, the communicator's first (default: half)\n"
	        "  --decode Q          decode ranks, the communicator's last (default: the rest)\n"
	        "  --layers L          layers (80)\n"
	        "  --kv-dim D          values per token and layer, K and V of all KV heads (2048 = 8 heads x 128 x 2)\n"
	        "  --kv-replicated     every rank holds all D (an MLA latent, e.g. --kv-dim 576): decode rank j\n"
	        "                      pulls from prefill rank j mod P; otherwise heads are sharded over the ranks\n"
	        "  --tokens T          prompt tokens to move (4096)\n"
	        "  --page-tokens K     tokens per page, one RDMA write each (16)\n"
	        "  --dtype bf16|fp8|fp32   bytes per value (bf16)\n"
	        "  --layer-time TIME   prefill compute per layer (0: the whole cache at once), e.g. 0.4ms\n"
	        "  --format table|csv|json   --set key.path=value\n"
	        "  simulate only: --links, --trace FILE.json, --trace-level collective|step|chunk\n",
	        me);
}

/* --dtype: bytes per value */
static int take_dtype(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	int *dsize = o->dest;
	if (!strcmp(v, "bf16") || !strcmp(v, "fp16"))
		*dsize = 2;
	else if (!strcmp(v, "fp8"))
		*dsize = 1;
	else if (!strcmp(v, "fp32"))
		*dsize = 4;
	else {
		fprintf(stderr, "%s: unknown dtype '%s'; one of: bf16, fp16, fp8, fp32\n", me_, v);
		return -1;
	}
	return 0;
}

/* --layer-time: a time with its unit */
static int take_layer_time(const char *me_, const struct ccs_args_opt *o, const char *v)
{
	char err[160];
	if (ccs_parse_qty(v, CCS_QTY_TIME, o->dest, err, sizeof err)) {
		fprintf(stderr, "%s: '--layer-time': %s\n", me_, err);
		return -1;
	}
	return 0;
}

/* A KV-cache transfer request: the options, the plan and its time. */
struct kv_req {
	int sim;
	const char *topo, *format, *trace_path, *coll_s;
	int nranks, ppn, links, bound, trace_level;
	struct ccs_kv_cfg cfg;
	struct ccs_args_sets sets;
	struct ccs_topo *t;
	struct ccs_comm comm;
	struct ccs_kv_plan plan;
	struct ccs_kv_cost kc;
	double T;
	struct ccs_fabric *fab;
	struct ccs_flows *fl;
};

/* The options: 0, 1 after --help, -1 after a message. */
static int kv_parse(struct kv_req *q, int argc, char **argv)
{
	const struct ccs_args_opt opts[] = {
		{ "--kv-replicated", CCS_ARGS_FLAG, &q->cfg.replicated, 0, 0, NULL, 0, NULL, NULL },
		{ "-t", CCS_ARGS_STR, &q->topo, 0, 0, NULL, 0, NULL, NULL },
		{ "-c", CCS_ARGS_STR, &q->coll_s, 0, 0, NULL, 0, NULL, NULL },
		{ "-n", CCS_ARGS_INT, &q->nranks, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--ppn", CCS_ARGS_INT, &q->ppn, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--prefill", CCS_ARGS_INT, &q->cfg.prefill, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--decode", CCS_ARGS_INT, &q->cfg.decode, 1, 1 << 20, NULL, 0, NULL, NULL },
		{ "--layers", CCS_ARGS_INT, &q->cfg.layers, 1, 100000, NULL, 0, NULL, NULL },
		{ "--kv-dim", CCS_ARGS_INT, &q->cfg.dim, 1, 1 << 24, NULL, 0, NULL, NULL },
		{ "--tokens", CCS_ARGS_INT, &q->cfg.tokens, 1, 1 << 26, NULL, 0, NULL, NULL },
		{ "--page-tokens", CCS_ARGS_INT, &q->cfg.page_tokens, 1, 1 << 26, NULL, 0, NULL, NULL },
		{ "--dtype", CCS_ARGS_FN, &q->cfg.dsize, 0, 0, NULL, 0, NULL, take_dtype },
		{ "--layer-time", CCS_ARGS_FN, &q->cfg.layer_s, 0, 0, NULL, 0, NULL, take_layer_time },
		{ "--format", CCS_ARGS_STR, &q->format, 0, 0, NULL, 0, NULL, NULL },
		{ "--links", CCS_ARGS_FLAG, &q->links, 0, 0, NULL, 0, NULL, NULL },
		{ "--trace", CCS_ARGS_STR, &q->trace_path, 0, 0, NULL, 0, NULL, NULL },
		{ "--trace-level", CCS_ARGS_NAME, &q->trace_level, 0, 0, ccs_trace_level_name, CCS_TRACE_LEVEL_N, "level",
		  NULL },
	};

	for (int i = 1; i < argc; i++) {
		int r = ccs_args_shared(&q->sets, argc, argv, &i, usage);
		if (r == CCS_ARGS_TOOK)
			continue;
		if (r)
			return r < 0 ? -1 : 1;   /* an error, or help printed */
		/* --links, --trace and --trace-level (last) are simulate's */
		if (ccs_args_take(me, "-c kvcache", opts, sizeof opts / sizeof opts[0] - (q->sim ? 0 : 3), argc, argv, &i))
			return -1;
	}
	return 0;
}

/* What must be given: 0, or -1 after a message. */
static int kv_check(struct kv_req *q)
{
	if (!q->topo) {
		fprintf(stderr, "%s: missing -t TOPO\n", me);
		return -1;
	}
	if (strcmp(q->format, "table") && strcmp(q->format, "csv") && strcmp(q->format, "json")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv, json\n", me, q->format);
		return -1;
	}
	return 0;
}

/* The topology, communicator, plan and its closed form: 0, or -1 after a
 * message. */
static int kv_setup(struct kv_req *q)
{
	if (ccs_args_topo(q->sim ? NULL : me, q->topo, &q->sets, &q->t) ||
	    ccs_args_comm(me, q->t, q->nranks, q->ppn, &q->comm))
		return -1;
	char err[256];
	int prc = ccs_kv_plan(&q->comm, &q->cfg, &q->plan, err, sizeof err);
	if (prc) {
		fprintf(stderr, "%s: %s\n", me, prc == CCS_ENOMEM ? "out of memory" : err);
		return -1;
	}
	if (ccs_kv_eval(&q->comm, &q->cfg, &q->plan, &q->kc)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	return 0;
}

/* The time: the closed form's, or simulated (with its trace). */
static int kv_time(struct kv_req *q)
{
	char err[256];
	q->T = q->kc.time_s;
	q->bound = q->kc.bound;
	if (q->sim) {
		struct ccs_sched s;
		const char *why = NULL;
		int src = ccs_fabric_new(&q->comm, &q->fab);
		if (!src)
			src = ccs_sched_kvcache(&q->comm, &q->cfg, &q->plan, &s, &why);
		if (src) {
			fprintf(stderr, "%s: %s\n", me, src == CCS_ENOMEM ? "out of memory" : why);
			return -1;
		}
		struct ccs_sim_stats st;
		char title[160];
		int in_trace;
		snprintf(title, sizeof title, "KV cache %d -> %d ranks, %d layers", q->cfg.prefill, q->cfg.decode, q->cfg.layers);
		src = ccs_trace_run(q->fab, &s, q->comm.n, q->trace_path, q->trace_level, title, NULL, &st, &q->fl, &in_trace, err, sizeof err);
		ccs_sched_release(&s);
		if (src) {
			fprintf(stderr, "%s: %s\n", me, err);
			return -1;
		}
		q->T = st.time_s;
		q->bound = ccs_report_bound(&q->comm, q->fab, q->fl, q->T);
	}
	return 0;
}

/* The transfer as a table, csv or json. */
static int kv_print(struct kv_req *q)
{
	double exposed = q->T - q->cfg.layers * q->cfg.layer_s;
	double rate = q->T > 0 ? q->kc.recv_max / q->T / 1e9 : 0;
	double total = (double)q->cfg.layers * q->cfg.tokens * q->cfg.dim * q->cfg.dsize;
	if (!strcmp(q->format, "csv")) {
		printf("collective,prefill,decode,layers,tokens,time_us,exposed_us,layer_us,send_max_B,recv_max_B,"
		       "scaleup_B,network_B,recv_GBps,pages,page_B,bound\n");
		printf("kvcache,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", q->cfg.prefill, q->cfg.decode,
		       q->cfg.layers, q->cfg.tokens, q->T * 1e6, exposed * 1e6, q->kc.layer_s * 1e6, q->kc.send_max, q->kc.recv_max,
		       q->kc.scaleup_bytes, q->kc.net_bytes, rate, q->plan.pages, q->plan.page_bytes, ccs_bound_name[q->bound]);
	} else if (!strcmp(q->format, "json")) {
		char jn[1024];
		printf("{\n  \"collective\": \"kvcache\",\n  \"topology\": \"%s\",\n  \"engine\": \"%s\",\n"
		       "  \"prefill\": %d,\n  \"decode\": %d,\n  \"layers\": %d,\n  \"tokens\": %d,\n"
		       "  \"time_us\": %.6g,\n  \"exposed_us\": %.6g,\n  \"layer_us\": %.6g,\n  \"send_max_B\": %.6g,\n"
		       "  \"recv_max_B\": %.6g,\n  \"scaleup_B\": %.6g,\n  \"network_B\": %.6g,\n  \"recv_GBps\": %.6g,\n"
		       "  \"pages\": %.6g,\n  \"page_B\": %.6g,\n  \"bound\": \"%s\"\n}\n",
		       ccs_escape_json(q->t->name, jn, sizeof jn), q->sim ? "sim" : "model", q->cfg.prefill, q->cfg.decode, q->cfg.layers, q->cfg.tokens, q->T * 1e6,
		       exposed * 1e6, q->kc.layer_s * 1e6, q->kc.send_max, q->kc.recv_max, q->kc.scaleup_bytes, q->kc.net_bytes, rate,
		       q->plan.pages, q->plan.page_bytes, ccs_bound_name[q->bound]);
	} else {
		printf("# %s: kvcache on %s: prefill ranks 0-%d -> decode ranks %d-%d (%d groups)\n", me, q->t->name,
		       q->cfg.prefill - 1, q->comm.n - q->cfg.decode, q->comm.n - 1, q->comm.G);
		printf("# %d layers x %d tokens x %d values (%s) x %d B = %.1f MB; %.0f pages of %d tokens per pair and "
		       "layer (%.0f B each), %d pairs\n", q->cfg.layers, q->cfg.tokens, q->cfg.dim,
		       q->cfg.replicated ? "replicated" : "sharded", q->cfg.dsize, total / 1e6, q->plan.pages, q->cfg.page_tokens,
		       q->plan.page_bytes, q->plan.npairs);
		if (q->cfg.layer_s > 0)
			printf("# prefill computes a layer every %.6g us: transfers overlap it\n", q->cfg.layer_s * 1e6);
		printf("#\n# %10s %10s %10s %9s %9s %10s %10s %9s  %-8s\n", "time", "exposed", "per layer", "send max",
		       "recv max", "scale-up", "network", "recv", "bound");
		printf("# %10s %10s %10s %9s %9s %10s %10s %9s\n", "(us)", "(us)", "(us)", "(MB)", "(MB)", "(MB)", "(MB)",
		       "(GB/s)");
		printf("  %10.2f %10.2f %10.3f %9.3f %9.3f %10.2f %10.2f %9.2f  %-8s\n#\n", q->T * 1e6, exposed * 1e6,
		       q->kc.layer_s * 1e6, q->kc.send_max / 1e6, q->kc.recv_max / 1e6, q->kc.scaleup_bytes / 1e6, q->kc.net_bytes / 1e6,
		       rate, ccs_bound_name[q->bound]);
	}
	return 0;
}

int ccs_cmd_kv(int argc, char **argv, int sim)
{
	me = sim ? "ccsim simulate" : "ccsim predict";
	struct kv_req *q = ccs_calloc(1, sizeof *q);
	if (!q) {
		fprintf(stderr, "ccsim: out of memory\n");
		return 1;
	}
	q->sim = sim;
	q->format = "table";
	ccs_kv_cfg_default(&q->cfg);
	ccs_args_sets_init(&q->sets);
	int rc = kv_parse(q, argc, argv);
	if (rc)
		rc = rc > 0 ? 0 : 2;
	else if (kv_check(q))
		rc = 2;
	else if (kv_setup(q) || kv_time(q) || kv_print(q))
		rc = 1;
	else {
		if (q->links && q->fl && q->fab)
			ccs_report_links(q->fab, q->fl, q->T);
		rc = ccs_args_flush() ? 1 : 0;
	}
	ccs_flows_free(q->fl);
	ccs_fabric_free(q->fab);
	ccs_kv_plan_release(&q->plan);
	ccs_comm_release(&q->comm);
	ccs_topo_free(q->t);
	ccs_args_sets_release(&q->sets);
	ccs_free(q);
	return rc;
}
