/* sim/cli/cmd_params.c: `ccsim params [-t TOPO]`: the model's parameter
 * table (model/params.h) and, with a topology, the values it resolves to
 * and where each came from. */
#include "cli.h"

#include "../../model/params.h"
#include "../../model/topo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const me = "ccsim params";

static void help(FILE *f)
{
	fprintf(f, "usage: ccsim params [-t TOPO] [--set key.path=value ...] [--format table|csv|md]\n"
	           "  the model's physical constants: key, what it belongs to, value, kind (spec, code,\n"
	           "  ubench, maint, derived, fitted, stand-in) and source; with -t, what TOPO resolves\n"
	           "  each link type's efficiency to and where it came from (its GPUs' NVLink generation,\n"
	           "  or the topology's 'model:' section and --set), and its transport's costs;\n"
	           "  --format md prints the table as docs/model.md holds it\n");
}

static void csv_field(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void row_table(const struct ccs_param *p)
{
	printf("%-28s %-8g %-5s %-9s %s; %s\n", p->key, p->value, p->unit[0] ? p->unit : "-", p->kind, p->belongs,
	       p->source);
}

static void row_csv(const struct ccs_param *p)
{
	printf("%s,", p->key);
	csv_field(p->belongs);
	printf(",%g,%s,%s,", p->value, p->unit, p->kind);
	csv_field(p->source);
	printf("\n");
}

/* Markdown, as docs/model.md section 6 holds it (tests/run.sh compares) */
static void row_md(const struct ccs_param *p)
{
	printf("| `%s` | %s | %g%s%s | %s | ", p->key, p->belongs, p->value, p->unit[0] ? " " : "", p->unit, p->kind);
	for (const char *s = p->source; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){ *s, 0 }, stdout);
	printf(" |\n");
}

static const struct {
	const char *head;
	void (*row)(const struct ccs_param *);
} formats_tab[] = {
	{ "key                          value    unit  kind      belongs to; source\n", row_table },
	{ "key,belongs,value,unit,kind,source\n", row_csv },
	{ "| key | belongs to | value | kind | source |\n|---|---|---|---|---|\n", row_md },
};

static void table(int fmt)
{
	size_t n;
	const struct ccs_param *p = ccs_params_table(&n);
	fputs(formats_tab[fmt].head, stdout);
	for (size_t i = 0; i < n; i++)
		formats_tab[fmt].row(&p[i]);
}

/* t's transport and its costs, each from the table's row or the
 * topology's model.transport_costs (or --set). */
static void transport(const struct ccs_topo *t)
{
	const struct ccs_model_params *m = &t->params;
	int tr = ccs_topo_transport(t, m->transport);
	struct ccs_transport_row r;
	ccs_transport_row_of(tr, &r);
	ccs_transport_override(&r, m->tr_over, m->tr_over_set);
	printf("  transport            %-6s %s\n", ccs_transport_name[tr],
	       m->transport >= 0 ? "(named by the topology or --set)" : "(the NICs' link type)");
	const double v[CCS_TR_COSTS] = { r.msg_lat_s * 1e6, r.chunk_s * 1e6, r.eff, r.nccl_lat_s * 1e6, r.eager_B, r.trips };
	static const char *const unit[] = { [CCS_TR_KIND_TIME] = "us", [CCS_TR_KIND_FRAC] = "  ",
		                            [CCS_TR_KIND_SIZE] = "B ", [CCS_TR_KIND_COUNT] = "  " };
	for (int k = 0; k < CCS_TR_COSTS; k++) {
		char key[64];
		snprintf(key, sizeof key, "transport.%s.%s", ccs_transport_name[tr], ccs_tr_cost_name[k]);
		const char *from = m->tr_over_set >> k & 1 ? "the topology's model.transport_costs or --set"
		                 : !isnan(ccs_param(key)) ? key
		                 : k == CCS_TR_EAGER || k == CCS_TR_TRIPS ? "no row: no rendezvous"
		                 : "no row: nothing added to the link";
		printf("  %-20s %-6g %s (%s)\n", ccs_tr_cost_name[k], v[k], unit[ccs_tr_cost_kind[k]], from);
	}
}

/* What t resolves: each link type's efficiency and its origin, and the
 * other parameters. */
static void resolved(const struct ccs_topo *t, const char *path)
{
	const struct ccs_model_params *m = &t->params;
	printf("\n%s (%s) resolves:\n", t->name ? t->name : "topology", path);
	for (int ty = 0; ty < CCS_LINK_NTYPES; ty++) {
		char key[64];
		const char *from;
		snprintf(key, sizeof key, "efficiency.%s", ccs_link_type_name[ty]);
		if (m->eff_set >> ty & 1)
			from = "the topology's model: section or --set";
		else if (ty == CCS_LINK_NVLINK && m->nvlink_arch >= 0) {
			const char *k;
			ccs_params_nvlink_eff(ccs_arch_name[m->nvlink_arch], &k);
			snprintf(key, sizeof key, "%s", k);
			from = "its GPUs' NVLink generation";
		} else if (fabs(m->eff[ty] - ccs_param(key)) > 1e-12)
			from = "a calibration";
		else
			from = "the table";
		printf("  efficiency.%-10s %-6g %s (%s)\n", ccs_link_type_name[ty], m->eff[ty], from, key);
	}
	static const char *const proto[3] = { "LL", "LL128", "Simple" };
	for (int q = 0; q < 3; q++)
		printf("  step_overhead.%-6s %-6g us\n", proto[q], m->step_s[q] * 1e6);
	printf("  ep_overhead          %-6g us\n", m->ep_overhead_s * 1e6);
	printf("  oneshot_overhead     %-6g us\n", m->shot_overhead_s[0] * 1e6);
	printf("  twoshot_overhead     %-6g us\n", m->shot_overhead_s[1] * 1e6);
	printf("  twoshot_efficiency   %-6g\n", m->twoshot_eff);
	transport(t);
}

int ccs_cmd_params(int argc, char **argv)
{
	struct ccs_args_sets sets;
	ccs_args_sets_init(&sets);
	const char *topo = NULL;
	static const char *const formats[] = { "table", "csv", "md" };
	int fmt = 0, rc = 0;
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_STR, &topo, 0, 0, NULL, 0, "TOPO", NULL },
		{ "--format", CCS_ARGS_NAME, &fmt, 0, 0, formats, 3, "format", NULL },
	};
	for (int i = 1; i < argc && !rc; i++) {
		int s = ccs_args_shared(&sets, argc, argv, &i, help);
		if (s == CCS_ARGS_HELP) {
			ccs_args_sets_release(&sets);
			return 0;
		}
		if (s < 0 || (s == CCS_ARGS_NONE && ccs_args_take(me, NULL, opts, sizeof opts / sizeof opts[0], argc, argv, &i)))
			rc = 2;
	}
	struct ccs_topo *t = NULL;
	if (!rc && sets.n && !topo) {
		fprintf(stderr, "%s: --set needs -t TOPO\n", me);
		rc = 2;
	}
	if (!rc && topo && ccs_args_topo(me, topo, &sets, &t))
		rc = 1;
	if (!rc) {
		table(fmt);
		if (t && fmt == 0)
			resolved(t, topo);
		rc = ccs_args_flush() ? 1 : 0;
	}
	ccs_topo_free(t);
	ccs_args_sets_release(&sets);
	return rc;
}
