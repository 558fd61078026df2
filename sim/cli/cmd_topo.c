/* sim/cli/cmd_topo.c: `ccsim topo show|check|dot FILE`. */
#include "cli.h"

#include "../../model/topo_stats.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DOT_MAX_DEVICES 2000

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: ccsim topo show [-t] FILE [--format text|json] [--gpus] [--set key.path=value]...\n"
	        "       ccsim topo check FILE [--set key.path=value]...\n"
	        "       ccsim topo dot FILE [--set key.path=value]... > FILE.dot\n"
	        "       ccsim topo import DUMP.xml [-o FILE.yaml]\n"
	        "show prints what the hardware offers; check validates (exit 0 or 1);\n"
	        "dot writes Graphviz for graphs of at most %d devices; import writes an NCCL\n"
	        "topology dump (NCCL_TOPO_DUMP_FILE) as topology YAML (every command also takes\n"
	        "the dump itself with -t).\n", DOT_MAX_DEVICES);
}

/* ---- text helpers ---- */

static const char *bw(double Bps, char *buf)
{
	ccs_fmt_Bps(Bps, buf, 32);
	return buf;
}

static void range_u(FILE *f, uint32_t lo, uint32_t hi)
{
	if (lo == hi)
		fprintf(f, "%u", lo);
	else
		fprintf(f, "%u-%u", lo, hi);
}

static void range_bw(FILE *f, double lo, double hi)
{
	char a[32], b[32];
	if (fabs(lo - hi) <= 1e-9 * hi)
		fprintf(f, "%s", bw(lo, a));
	else
		fprintf(f, "%s to %s", bw(lo, a), bw(hi, b));
}

static void print_ratio(FILE *f, double x)
{
	if (x >= 1)
		fprintf(f, "%.3g:1", x);
	else
		fprintf(f, "1:%.3g", 1 / x);
}

/* The text report's counts: gpus, nodes, domains, devices, switches, links. */
static void show_counts(FILE *f, const struct ccs_topo *t, const struct ccs_topo_stats *s)
{
	fprintf(f, "topology   %s (%s)\n", t->name, t->path);
	for (uint32_t i = 0; i < t->nfault; i++)
		fprintf(f, "%s%s", i ? ", " : "faults     ", t->fault[i]);
	if (t->nfault)
		fprintf(f, "\n");
	fprintf(f, "gpus       %u in %u node%s (", s->ngpu, s->nnodes, s->nnodes == 1 ? "" : "s");
	range_u(f, s->gpn_min, s->gpn_max);
	fprintf(f, " per node), %u scale-up domain%s of ", s->ndomains, s->ndomains == 1 ? "" : "s");
	range_u(f, s->dom_min, s->dom_max);
	fprintf(f, " gpu%s\n", s->dom_max == 1 ? "" : "s");
	fprintf(f, "devices   ");
	for (int k = 0; k < CCS_DEV_NKINDS; k++)
		if (s->ndev[k])
			fprintf(f, " %u %s", s->ndev[k], ccs_dev_kind_name[k]);
	fprintf(f, "\n");
	if (s->ndev[CCS_DEV_NETSW]) {
		fprintf(f, "switches  ");
		for (int i = 1; i < CCS_TIER_N; i++)
			if (s->tier[i].count)
				fprintf(f, " %u %s", s->tier[i].count, ccs_tier_name[i]);
		fprintf(f, "\n");
	}
	fprintf(f, "links     ");
	for (int k = 0; k < CCS_LINK_NTYPES; k++)
		if (s->nlink[k]) {
			fprintf(f, " %u %s", s->nlink[k], ccs_link_type_name[k]);
			if (s->nlanes[k] != s->nlink[k])
				fprintf(f, " (%llu lanes)", (unsigned long long)s->nlanes[k]);
		}
	fprintf(f, "\n");
}

/* Its bandwidths: scale-up and scale-out per gpu, nic paths, bisections,
 * diameter. */
static void show_bandwidths(FILE *f, const struct ccs_topo_stats *s)
{
	char a[32], b[32];
	fprintf(f, "scale-up   ");
	if (s->su_bw_max == 0) {
		fprintf(f, "none (no nvlink, ub or hccs links)\n");
	} else {
		range_bw(f, s->su_bw_min, s->su_bw_max);
		fprintf(f, " per gpu per direction (");
		range_u(f, s->su_links_min, s->su_links_max);
		fprintf(f, " lanes)");
		if (s->su_multicast)
			fprintf(f, "; multicast");
		if (s->su_reduce)
			fprintf(f, "; in-switch reduction");
		if (s->su_up_max > 0) {
			fprintf(f, "; node uplinks to the second tier ");
			range_bw(f, s->su_up_min, s->su_up_max);
			fprintf(f, " (lanes:uplinks %.3g:1)", s->su_up_oversub);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "scale-out  ");
	if (s->ndev[CCS_DEV_NIC]) {
		range_bw(f, s->so_bw_min, s->so_bw_max);
		fprintf(f, " per gpu per direction; ");
		range_u(f, s->npn_min, s->npn_max);
		ccs_fmt_bps(s->nic_bw_min, a, sizeof a);
		ccs_fmt_bps(s->nic_bw_max, b, sizeof b);
		fprintf(f, " nics per node at %s%s%s; nic:gpu ", a, strcmp(a, b) ? " to " : "",
		        strcmp(a, b) ? b : "");
		print_ratio(f, (double)s->ndev[CCS_DEV_NIC] / s->ngpu);
		fprintf(f, "\n");
	} else {
		fprintf(f, "none (no nics)\n");
	}
	fprintf(f, "nic path  ");
	for (int p = 0; p <= CCS_PATH_N; p++)
		if (s->path_hist[p])
			fprintf(f, " %s %u", p < CCS_PATH_N ? ccs_path_name[p] : "none", s->path_hist[p]);
	fprintf(f, " (best nic of each gpu)\n");
	fprintf(f, "bisection  scale-up ");
	if (s->su_bisect_gpus >= 2)
		fprintf(f, "%s (domain of %u gpus, %u | %u)", bw(s->su_bisect_Bps, a), s->su_bisect_gpus,
		        s->su_bisect_gpus / 2, s->su_bisect_gpus - s->su_bisect_gpus / 2);
	else
		fprintf(f, "n/a (one gpu per domain)");
	fprintf(f, "; scale-out ");
	if (s->so_bisect_nodes)
		fprintf(f, "%s (%u | %u nodes)", bw(s->so_bisect_Bps, a), s->so_bisect_nodes,
		        s->nnodes - s->so_bisect_nodes);
	else
		fprintf(f, "n/a (one node)");
	fprintf(f, "; per direction\n");
	fprintf(f, "diameter   %d hops gpu to gpu (%s)\n", s->diameter,
	        s->diameter_exact ? "exact" : "sampled");
	if (!s->diameter_exact)
		fprintf(f, "           from %u of %u gpus\n", s->diameter_sources, s->ngpu);
}

/* The fabric and its tiers: switches, ports, bandwidth and oversubscription. */
static void show_fabric(FILE *f, const struct ccs_topo *t, const struct ccs_topo_stats *s)
{
	char a[32], b[32];
	if (t->fab.present) {
		fprintf(f, "fabric     %s, %d tier%s, radix %d, %d plane%s, sharp %s", t->fab.kind,
		        t->fab.tiers, t->fab.tiers == 1 ? "" : "s", t->fab.radix, t->fab.planes,
		        t->fab.planes == 1 ? "" : "s", t->fab.sharp ? "yes" : "no");
		fprintf(f, ", routing %s", ccs_routing_name[ccs_topo_routing(t)]);
		if (t->fab.spray > 1)
			fprintf(f, " over %d paths", t->fab.spray);
		fprintf(f, "\n");
	}
	if (s->ndev[CCS_DEV_NETSW]) {
		fprintf(f, "tier       switches  ports-down  ports-up  bw-down       bw-up         oversubscription\n");
		for (int i = 1; i < CCS_TIER_N; i++) {
			const struct ccs_tier_stats *ts = &s->tier[i];
			if (!ts->count)
				continue;
			fprintf(f, "%-10s %-9u %-11llu %-9llu %-13s %-13s ", ccs_tier_name[i], ts->count,
			        (unsigned long long)ts->down_ports, (unsigned long long)ts->up_ports,
			        bw(ts->down_Bps, a), ts->up_Bps > 0 ? bw(ts->up_Bps, b) : "-");
			if (ts->up_Bps > 0) {
				print_ratio(f, ts->down_Bps / ts->up_Bps);
				if (t->fab.present && i < t->fab.tiers) {
					fprintf(f, " (design ");
					print_ratio(f, t->fab.oversub[i]);
					fprintf(f, ")");
				}
			} else {
				fprintf(f, "- (top)");
			}
			fprintf(f, "\n");
		}
	}
}

static void show_text(FILE *f, const struct ccs_topo *t, const struct ccs_topo_stats *s)
{
	show_counts(f, t, s);
	show_bandwidths(f, s);
	show_fabric(f, t, s);
}

int ccs_topo_show_text(FILE *f, const struct ccs_topo *t)
{
	struct ccs_topo_stats st;
	if (ccs_topo_stats(t, &st))
		return CCS_ENOMEM;
	show_text(f, t, &st);
	return CCS_OK;
}

static void show_gpus_text(FILE *f, const struct ccs_topo *t)
{
	char a[32];
	fprintf(f, "gpu                      node   domain local numa scale-up     nics (path, hops)\n");
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		const struct ccs_dev *d = &t->dev[gp->dev];
		fprintf(f, "%-24s %-6d %-6d %-5d %-4d %-12s", d->name, gp->node, gp->domain, gp->local, d->numa,
		        bw(gp->su_bw_Bps, a));
		for (uint32_t i = 0; i < gp->nic_count; i++) {
			const struct ccs_gpu_nic *n = &t->gnic[gp->nic_first + i];
			fprintf(f, " %s:%s:%u", t->dev[n->nic].name, ccs_path_name[n->path], n->hops);
		}
		fprintf(f, "\n");
	}
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	char b[4096];
	fprintf(f, "\"%s\"", ccs_escape_json(s, b, sizeof b));
}

/* `topo show --format json`: the statistics as one JSON document.  One
 * idea: the document's keys in the order of the text report. */
static void show_json(FILE *f, const struct ccs_topo *t, const struct ccs_topo_stats *s, int gpus)
{
	fprintf(f, "{\n  \"name\": ");
	json_str(f, t->name);
	fprintf(f, ",\n  \"path\": ");
	json_str(f, t->path);
	fprintf(f, ",\n  \"gpus\": %u,\n  \"nodes\": %u,\n  \"domains\": %u,\n", s->ngpu, s->nnodes, s->ndomains);
	fprintf(f, "  \"gpus_per_node\": [%u, %u],\n  \"gpus_per_domain\": [%u, %u],\n", s->gpn_min, s->gpn_max,
	        s->dom_min, s->dom_max);
	fprintf(f, "  \"devices\": {");
	for (int k = 0; k < CCS_DEV_NKINDS; k++)
		fprintf(f, "%s\"%s\": %u", k ? ", " : "", ccs_dev_kind_name[k], s->ndev[k]);
	fprintf(f, "},\n  \"switches\": {");
	for (int i = 1; i < CCS_TIER_N; i++)
		fprintf(f, "%s\"%s\": %u", i > 1 ? ", " : "", ccs_tier_name[i], s->tier[i].count);
	fprintf(f, "},\n  \"links\": {");
	for (int k = 0; k < CCS_LINK_NTYPES; k++)
		fprintf(f, "%s\"%s\": {\"links\": %u, \"lanes\": %llu}", k ? ", " : "", ccs_link_type_name[k],
		        s->nlink[k], (unsigned long long)s->nlanes[k]);
	fprintf(f, "},\n");
	fprintf(f, "  \"scaleup_GBps_per_gpu\": [%.6g, %.6g],\n", s->su_bw_min / 1e9, s->su_bw_max / 1e9);
	fprintf(f, "  \"scaleup_node_uplinks_GBps\": [%.6g, %.6g],\n", s->su_up_min / 1e9, s->su_up_max / 1e9);
	fprintf(f, "  \"scaleup_lanes_per_gpu\": [%u, %u],\n", s->su_links_min, s->su_links_max);
	fprintf(f, "  \"multicast\": %s,\n  \"in_switch_reduction\": %s,\n  \"sharp\": %s,\n",
	        s->su_multicast ? "true" : "false", s->su_reduce ? "true" : "false", s->sharp ? "true" : "false");
	fprintf(f, "  \"scaleout_GBps_per_gpu\": [%.6g, %.6g],\n", s->so_bw_min / 1e9, s->so_bw_max / 1e9);
	fprintf(f, "  \"nics_per_node\": [%u, %u],\n  \"nic_Gbps\": [%.6g, %.6g],\n", s->npn_min, s->npn_max,
	        s->nic_bw_min * 8 / 1e9, s->nic_bw_max * 8 / 1e9);
	fprintf(f, "  \"nic_per_gpu\": %.6g,\n", (double)s->ndev[CCS_DEV_NIC] / s->ngpu);
	fprintf(f, "  \"injection_GBps\": %.6g,\n", s->injection_Bps / 1e9);
	fprintf(f, "  \"nic_path\": {");
	for (int p = 0; p <= CCS_PATH_N; p++)
		fprintf(f, "%s\"%s\": %u", p ? ", " : "", p < CCS_PATH_N ? ccs_path_name[p] : "none", s->path_hist[p]);
	fprintf(f, "},\n");
	fprintf(f, "  \"bisection\": {\"scaleup_GBps\": %.6g, \"scaleup_domain_gpus\": %u, "
	           "\"scaleout_GBps\": %.6g, \"scaleout_first_half_nodes\": %u},\n",
	        s->su_bisect_Bps / 1e9, s->su_bisect_gpus, s->so_bisect_Bps / 1e9, s->so_bisect_nodes);
	fprintf(f, "  \"diameter\": {\"hops\": %d, \"exact\": %s, \"sources\": %u},\n", s->diameter,
	        s->diameter_exact ? "true" : "false", s->diameter_sources);
	fprintf(f, "  \"fabric\": ");
	if (t->fab.present)
		fprintf(f, "{\"topology\": \"%s\", \"tiers\": %d, \"radix\": %d, \"planes\": %d, \"sharp\": %s},\n",
		        t->fab.kind, t->fab.tiers, t->fab.radix, t->fab.planes, t->fab.sharp ? "true" : "false");
	else
		fprintf(f, "null,\n");
	fprintf(f, "  \"tiers\": [");
	int first = 1;
	for (int i = 1; i < CCS_TIER_N; i++) {
		const struct ccs_tier_stats *ts = &s->tier[i];
		if (!ts->count)
			continue;
		fprintf(f, "%s\n    {\"tier\": \"%s\", \"switches\": %u, \"ports_down\": %llu, \"ports_up\": %llu, "
		           "\"max_ports_used\": %u, \"down_GBps\": %.6g, \"up_GBps\": %.6g, \"oversubscription\": ",
		        first ? "" : ",", ccs_tier_name[i], ts->count, (unsigned long long)ts->down_ports,
		        (unsigned long long)ts->up_ports, ts->max_ports, ts->down_Bps / 1e9, ts->up_Bps / 1e9);
		if (ts->up_Bps > 0)
			fprintf(f, "%.6g", ts->down_Bps / ts->up_Bps);
		else
			fprintf(f, "null");
		if (t->fab.present && i < t->fab.tiers)
			fprintf(f, ", \"design_oversubscription\": %.6g", t->fab.oversub[i]);
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f, "%s]", first ? "" : "\n  ");
	if (gpus) {
		fprintf(f, ",\n  \"gpu_list\": [");
		for (uint32_t g = 0; g < t->ngpu; g++) {
			const struct ccs_gpu *gp = &t->gpu[g];
			const struct ccs_dev *d = &t->dev[gp->dev];
			fprintf(f, "%s\n    {\"name\": ", g ? "," : "");
			json_str(f, d->name);
			fprintf(f, ", \"node\": %d, \"domain\": %d, \"local\": %d, \"numa\": %d, \"scaleup_GBps\": %.6g, \"nics\": [",
			        gp->node, gp->domain, gp->local, d->numa, gp->su_bw_Bps / 1e9);
			for (uint32_t i = 0; i < gp->nic_count; i++) {
				const struct ccs_gpu_nic *n = &t->gnic[gp->nic_first + i];
				fprintf(f, "%s{\"nic\": ", i ? ", " : "");
				json_str(f, t->dev[n->nic].name);
				fprintf(f, ", \"path\": \"%s\", \"hops\": %u}", ccs_path_name[n->path], n->hops);
			}
			fprintf(f, "]}");
		}
		fprintf(f, "\n  ]");
	}
	fprintf(f, "\n}\n");
}

/* ---- dot ---- */

static const char *dot_color(int kind)
{
	static const char *const c[] = { "palegreen", "lightskyblue", "khaki", "lightsalmon", "plum", "lightgrey" };
	return c[kind];
}

static void write_dot(FILE *f, const struct ccs_topo *t)
{
	char a[32];
	fprintf(f, "graph ");
	json_str(f, t->name);
	fprintf(f, " {\n  node [shape=box, style=filled, fontsize=10];\n  edge [fontsize=8];\n");
	for (int32_t n = -1; n < t->nnodes; n++) {
		if (n >= 0)
			fprintf(f, "  subgraph cluster_node%d {\n    label=\"node%d\";\n", n, n);
		for (uint32_t d = 0; d < t->ndev; d++) {
			if (t->dev[d].node != n)
				continue;
			fprintf(f, "%s  ", n >= 0 ? "  " : "");
			json_str(f, t->dev[d].name);
			fprintf(f, " [fillcolor=%s];\n", dot_color(t->dev[d].kind));
		}
		if (n >= 0)
			fprintf(f, "  }\n");
	}
	for (uint32_t i = 0; i < t->nlink; i++) {
		const struct ccs_link *l = &t->link[i];
		fprintf(f, "  ");
		json_str(f, t->dev[l->a].name);
		fprintf(f, " -- ");
		json_str(f, t->dev[l->b].name);
		fprintf(f, " [label=\"%s x%u\\n%s\"];\n", ccs_link_type_name[l->type], l->lanes, bw(l->bw_Bps, a));
	}
	fprintf(f, "}\n");
}

/* The options after the subcommand: 0, or 2 after a message. */
static int topo_args(int argc, char **argv, const char *sub, int mode, struct ccs_args_sets *sets, const char **file_,
                     const char **format_, int *gpus_)
{
	const char *file = NULL, *format = "text";
	int gpus = 0;
	for (int i = 2; i < argc; i++) {
		int r = ccs_args_set(sets, argc, argv, &i);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (!strcmp(argv[i], "--format") && mode == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ccsim topo: '--format' needs a value: text or json\n");
				return 2;
			}
			format = argv[++i];
			if (strcmp(format, "text") && strcmp(format, "json")) {
				fprintf(stderr, "ccsim topo: unknown format '%s'; one of: text, json\n", format);
				return 2;
			}
		} else if (!strcmp(argv[i], "--gpus") && mode == 0) {
			gpus = 1;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc && !file) {
			file = argv[++i];   /* as every other command names its topology */
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ccsim topo %s: unknown option '%s'\n", sub, argv[i]);
			return 2;
		} else if (!file) {
			file = argv[i];
		} else {
			fprintf(stderr, "ccsim topo %s: one topology file at a time, got '%s' and '%s'\n", sub, file, argv[i]);
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "ccsim topo %s: missing topology FILE\n", sub);
		usage(stderr);
		return 2;
	}
	*file_ = file;
	*format_ = format;
	*gpus_ = gpus;
	return 0;
}

/* check, dot or show on the loaded topology: the exit status. */
static int topo_act(const struct ccs_topo *t, int mode, const char *file, const char *format, int gpus)
{
	int rc;
	if (mode == 1) {
		printf("%s: ok: %u gpus, %u devices, %u links\n", file, t->ngpu, t->ndev, t->nlink);
		rc = 0;
	} else if (mode == 2) {
		if (t->ndev > DOT_MAX_DEVICES) {
			fprintf(stderr, "ccsim topo dot: %s has %u devices; dot draws at most %d (try --set nodes=2)\n",
			        file, t->ndev, DOT_MAX_DEVICES);
			rc = 1;
		} else {
			write_dot(stdout, t);
			rc = 0;
		}
	} else {
		struct ccs_topo_stats st;
		if (ccs_topo_stats(t, &st)) {
			fprintf(stderr, "ccsim: out of memory\n");
			rc = 1;
		} else {
			if (!strcmp(format, "json")) {
				show_json(stdout, t, &st, gpus);
			} else {
				show_text(stdout, t, &st);
				if (gpus)
					show_gpus_text(stdout, t);
			}
			rc = 0;
		}
	}
	return rc;
}

static int put_text(FILE *f, void *text)
{
	return fputs(text, f) < 0;
}

/* topo import DUMP.xml [-o FILE]: the dump's YAML, checked by loading it;
 * the exit status. */
static int topo_import(int argc, char **argv)
{
	const char *in = NULL, *outp = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			outp = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ccsim topo import: unknown option '%s'\n", argv[i]);
			return 2;
		} else if (!in)
			in = argv[i];
		else {
			fprintf(stderr, "ccsim topo import: one dump at a time, got '%s' and '%s'\n", in, argv[i]);
			return 2;
		}
	}
	if (!in) {
		fprintf(stderr, "ccsim topo import: missing DUMP.xml\n");
		return 2;
	}
	struct stat si, so;
	if (outp && !stat(in, &si) && !stat(outp, &so) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
		/* the YAML written over the dump it is read from loses the dump */
		fprintf(stderr, "ccsim topo import: -o %s is the dump being imported; write the YAML elsewhere\n", outp);
		return 2;
	}
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	char *yaml = NULL, *warn = NULL;
	int rc = ccs_topo_yaml_import(in, &yaml, &warn, &d);
	struct ccs_topo *t = NULL;
	if (!rc)
		rc = ccs_topo_yaml_load_buf(in, yaml, strlen(yaml), NULL, 0, &t, &d);
	if (rc) {
		fprintf(stderr, "%s\n", d.set ? d.msg : "ccsim topo import: out of memory");
		ccs_free(yaml);
		ccs_free(warn);
		return 1;
	}
	if (warn)
		fprintf(stderr, "warning: %s: %s\n", in, warn);
	int bad = 0;
	if (outp) {
		bad = ccs_args_write_atomic("ccsim topo import", outp, put_text, yaml) != 0;
		if (!bad)
			fprintf(stderr, "%s: %u gpus, %u devices, %u links\n", outp, t->ngpu, t->ndev, t->nlink);
	} else {
		fputs(yaml, stdout);
		bad = ccs_args_flush() != 0;
	}
	ccs_topo_free(t);
	ccs_free(yaml);
	ccs_free(warn);
	return bad ? 1 : 0;
}

int ccs_cmd_topo(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "import"))
		return topo_import(argc, argv);
	int mode = !strcmp(sub, "show") ? 0 : !strcmp(sub, "check") ? 1 : !strcmp(sub, "dot") ? 2 : -1;
	if (mode < 0) {
		fprintf(stderr, "ccsim topo: unknown command '%s'\n", sub);
		usage(stderr);
		return 2;
	}
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	int rc = 2;
	const char *file = NULL, *format = "text";
	int gpus = 0;
	if ((rc = topo_args(argc, argv, sub, mode, &sets, &file, &format, &gpus)))
		goto out;
	struct ccs_topo *t = NULL;
	if (ccs_args_topo(NULL, file, &sets, &t)) {
		rc = 1;
		goto out;
	}
	rc = topo_act(t, mode, file, format, gpus);
	ccs_topo_free(t);
	if (rc == 0 && ccs_args_flush())
		rc = 1;
out:
	ccs_args_sets_release(&sets);
	return rc;
}
