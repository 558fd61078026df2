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
	        "  simulate only: --links, --trace FILE.json\n",
	        me);
}

int ccs_cmd_kv(int argc, char **argv, int sim)
{
	me = sim ? "ccsim simulate" : "ccsim predict";
	const char *topo = NULL, *format = "table", *trace_path = NULL;
	int nranks = 0, ppn = 0, links = 0, rc = 2;
	struct ccs_kv_cfg cfg;
	ccs_kv_cfg_default(&cfg);
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	struct ccs_topo *t = NULL;
	struct ccs_comm comm;
	memset(&comm, 0, sizeof comm);
	struct ccs_kv_plan plan;
	memset(&plan, 0, sizeof plan);
	struct ccs_fabric *fab = NULL;
	struct ccs_flows *fl = NULL;

	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&sets, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		if (sim && !strcmp(a, "--links")) {
			links = 1;
			continue;
		}
		if (!strcmp(a, "--kv-replicated")) {
			cfg.replicated = 1;
			continue;
		}
		static const char *const with_val[] = { "-t", "-c", "-n", "--ppn", "--prefill", "--decode", "--layers",
		                                        "--kv-dim", "--tokens", "--page-tokens", "--dtype", "--layer-time",
		                                        "--format", "--trace" };
		/* --trace (last) is simulate's */
		size_t nv = sizeof with_val / sizeof with_val[0] - !sim;
		const char *v;
		if (ccs_args_value(me, "-c kvcache", argc, argv, &i, with_val, nv, &v))
			goto out;
		int bad = 0;
		if (!strcmp(a, "-t"))
			topo = v;
		else if (!strcmp(a, "-c"))
			;
		else if (!strcmp(a, "-n"))
			bad = ccs_args_int(me, a, v, 1, 1 << 20, &nranks);
		else if (!strcmp(a, "--ppn"))
			bad = ccs_args_int(me, a, v, 1, 1 << 20, &ppn);
		else if (!strcmp(a, "--prefill"))
			bad = ccs_args_int(me, a, v, 1, 1 << 20, &cfg.prefill);
		else if (!strcmp(a, "--decode"))
			bad = ccs_args_int(me, a, v, 1, 1 << 20, &cfg.decode);
		else if (!strcmp(a, "--layers"))
			bad = ccs_args_int(me, a, v, 1, 100000, &cfg.layers);
		else if (!strcmp(a, "--kv-dim"))
			bad = ccs_args_int(me, a, v, 1, 1 << 24, &cfg.dim);
		else if (!strcmp(a, "--tokens"))
			bad = ccs_args_int(me, a, v, 1, 1 << 26, &cfg.tokens);
		else if (!strcmp(a, "--page-tokens"))
			bad = ccs_args_int(me, a, v, 1, 1 << 26, &cfg.page_tokens);
		else if (!strcmp(a, "--dtype")) {
			if (!strcmp(v, "bf16") || !strcmp(v, "fp16"))
				cfg.dsize = 2;
			else if (!strcmp(v, "fp8"))
				cfg.dsize = 1;
			else if (!strcmp(v, "fp32"))
				cfg.dsize = 4;
			else {
				fprintf(stderr, "%s: unknown dtype '%s'; one of: bf16, fp16, fp8, fp32\n", me, v);
				bad = 1;
			}
		} else if (!strcmp(a, "--layer-time")) {
			char err[160];
			if (ccs_parse_qty(v, CCS_QTY_TIME, &cfg.layer_s, err, sizeof err)) {
				fprintf(stderr, "%s: '--layer-time': %s\n", me, err);
				bad = 1;
			}
		} else if (!strcmp(a, "--format"))
			format = v;
		else if (!strcmp(a, "--trace"))
			trace_path = v;
		if (bad)
			goto out;
	}
	if (!topo) {
		fprintf(stderr, "%s: missing -t TOPO\n", me);
		goto out;
	}
	if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json")) {
		fprintf(stderr, "%s: unknown format '%s'; one of: table, csv, json\n", me, format);
		goto out;
	}
	rc = 1;
	struct ccs_diag diag;
	memset(&diag, 0, sizeof diag);
	if (ccs_topo_load(topo, (const char *const *)sets.v, sets.n, &t, &diag)) {
		fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: failed to load topology");
		goto out;
	}
	if (!sim && ccs_args_refuse_timed(me, t))
		goto out;
	char err[256];
	if (ccs_comm_build(t, nranks, ppn, &comm, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", me, err);
		goto out;
	}
	int prc = ccs_kv_plan(&comm, &cfg, &plan, err, sizeof err);
	if (prc) {
		fprintf(stderr, "%s: %s\n", me, prc == CCS_ENOMEM ? "out of memory" : err);
		goto out;
	}
	struct ccs_kv_cost kc;
	if (ccs_kv_eval(&comm, &cfg, &plan, &kc)) {
		fprintf(stderr, "%s: out of memory\n", me);
		goto out;
	}
	double T = kc.time_s;
	int bound = kc.bound;
	if (sim) {
		struct ccs_sched s;
		const char *why = NULL;
		int src = ccs_fabric_new(&comm, &fab);
		if (!src)
			src = ccs_sched_kv(&comm, &cfg, &plan, &s, &why);
		if (src) {
			fprintf(stderr, "%s: %s\n", me, src == CCS_ENOMEM ? "out of memory" : why);
			goto out;
		}
		struct ccs_sim_stats st;
		char title[160];
		int in_trace;
		snprintf(title, sizeof title, "KV cache %d -> %d ranks, %d layers", cfg.prefill, cfg.decode, cfg.layers);
		src = ccs_trace_run(fab, &s, comm.n, trace_path, title, &st, &fl, &in_trace, err, sizeof err);
		ccs_sched_release(&s);
		if (src) {
			fprintf(stderr, "%s: %s\n", me, err);
			goto out;
		}
		T = st.time_s;
		bound = ccs_report_bound(&comm, fab, fl, T);
	}
	double exposed = T - cfg.layers * cfg.layer_s;
	double rate = T > 0 ? kc.recv_max / T / 1e9 : 0;
	double total = (double)cfg.layers * cfg.tokens * cfg.dim * cfg.dsize;
	if (!strcmp(format, "csv")) {
		printf("collective,prefill,decode,layers,tokens,time_us,exposed_us,layer_us,send_max_B,recv_max_B,"
		       "scaleup_B,network_B,recv_GBps,pages,page_B,bound\n");
		printf("kvcache,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", cfg.prefill, cfg.decode,
		       cfg.layers, cfg.tokens, T * 1e6, exposed * 1e6, kc.layer_s * 1e6, kc.send_max, kc.recv_max,
		       kc.scaleup_bytes, kc.net_bytes, rate, plan.pages, plan.page_bytes, ccs_bound_name[bound]);
	} else if (!strcmp(format, "json")) {
		printf("{\n  \"collective\": \"kvcache\",\n  \"topology\": \"%s\",\n  \"engine\": \"%s\",\n"
		       "  \"prefill\": %d,\n  \"decode\": %d,\n  \"layers\": %d,\n  \"tokens\": %d,\n"
		       "  \"time_us\": %.6g,\n  \"exposed_us\": %.6g,\n  \"layer_us\": %.6g,\n  \"send_max_B\": %.6g,\n"
		       "  \"recv_max_B\": %.6g,\n  \"scaleup_B\": %.6g,\n  \"network_B\": %.6g,\n  \"recv_GBps\": %.6g,\n"
		       "  \"pages\": %.6g,\n  \"page_B\": %.6g,\n  \"bound\": \"%s\"\n}\n",
		       t->name, sim ? "sim" : "model", cfg.prefill, cfg.decode, cfg.layers, cfg.tokens, T * 1e6,
		       exposed * 1e6, kc.layer_s * 1e6, kc.send_max, kc.recv_max, kc.scaleup_bytes, kc.net_bytes, rate,
		       plan.pages, plan.page_bytes, ccs_bound_name[bound]);
	} else {
		printf("# %s: kvcache on %s: prefill ranks 0-%d -> decode ranks %d-%d (%d groups)\n", me, t->name,
		       cfg.prefill - 1, comm.n - cfg.decode, comm.n - 1, comm.G);
		printf("# %d layers x %d tokens x %d values (%s) x %d B = %.1f MB; %.0f pages of %d tokens per pair and "
		       "layer (%.0f B each), %d pairs\n", cfg.layers, cfg.tokens, cfg.dim,
		       cfg.replicated ? "replicated" : "sharded", cfg.dsize, total / 1e6, plan.pages, cfg.page_tokens,
		       plan.page_bytes, plan.npairs);
		if (cfg.layer_s > 0)
			printf("# prefill computes a layer every %.6g us: transfers overlap it\n", cfg.layer_s * 1e6);
		printf("#\n# %10s %10s %10s %9s %9s %10s %10s %9s  %-8s\n", "time", "exposed", "per layer", "send max",
		       "recv max", "scale-up", "network", "recv", "bound");
		printf("# %10s %10s %10s %9s %9s %10s %10s %9s\n", "(us)", "(us)", "(us)", "(MB)", "(MB)", "(MB)", "(MB)",
		       "(GB/s)");
		printf("  %10.2f %10.2f %10.3f %9.3f %9.3f %10.2f %10.2f %9.2f  %-8s\n#\n", T * 1e6, exposed * 1e6,
		       kc.layer_s * 1e6, kc.send_max / 1e6, kc.recv_max / 1e6, kc.scaleup_bytes / 1e6, kc.net_bytes / 1e6,
		       rate, ccs_bound_name[bound]);
	}
	if (links && fl && fab)
		ccs_report_links(fab, fl, T);
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_flows_free(fl);
	ccs_fabric_free(fab);
	ccs_kv_plan_release(&plan);
	ccs_comm_release(&comm);
	ccs_topo_free(t);
	ccs_args_sets_release(&sets);
	return rc;
}
