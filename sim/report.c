/* sim/report.c: what a finished run shows (report.h). */
#include "report.h"

#include "fabric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What bounded a finished run: the busiest resource's kind, or latency when
 * none was busy half the run. */
int ccs_report_bound(const struct ccs_comm *c, const struct ccs_fabric *fab, const struct ccs_flows *fl, double T)
{
	double best = 0;
	uint32_t bi = 0;
	for (uint32_t r = 0; r < ccs_fabric_nres(fab); r++) {
		const struct ccs_res_stats *rs = ccs_flows_stats(fl, r);
		double cap = ccs_flows_cap(fl, r);
		double u = cap > 0 && T > 0 ? rs->bytes / (cap * T) : 0;
		if (u > best) {
			best = u;
			bi = r;
		}
	}
	if (best < 0.5)
		return CCS_BOUND_LATENCY;
	int kind = ccs_fabric_res_kind(fab, bi);
	char name[256];
	ccs_fabric_res_name(fab, bi, name, sizeof name);
	/* kind: 1 NIC-leaf, 2 leaf-spine (leaf uplinks), 3 spine-core */
	return kind == 3 ? CCS_BOUND_SPINE : kind == 2 ? CCS_BOUND_LEAF : kind == 1 ? CCS_BOUND_NIC
	     : ccs_fabric_is_mem(fab, bi) ? CCS_BOUND_REDUCE
	     : ccs_fabric_copy_capped(fab, bi) ? CCS_BOUND_SM
	     : ccs_fabric_is_copy(fab, bi) || strstr(name, "scale-up") ? c->su_bound
	     : strstr(name, "(pcie)") ? CCS_BOUND_PCIE : strstr(name, "(c2c)") ? CCS_BOUND_C2C
	     : strstr(name, "(nvlink)") ? CCS_BOUND_NVLINK : CCS_BOUND_NIC;
}

struct link_row {
	uint32_t res;
	double util;
};

static int cmp_util(const void *a, const void *b)
{
	const struct link_row *x = a, *y = b;
	return x->util < y->util ? 1 : x->util > y->util ? -1 : (x->res > y->res) - (x->res < y->res);
}

/* The busiest resources of the last run: bytes, busy time, peak and mean
 * utilisation (bytes / (capacity x run time)). */
int ccs_report_busiest(const struct ccs_fabric *fab, const struct ccs_flows *fl, double T, char *name, size_t n,
                       double *util)
{
	double best = 0;
	uint32_t bi = UINT32_MAX;
	for (uint32_t r = 0; r < ccs_fabric_nres(fab); r++) {
		double cap = ccs_flows_cap(fl, r);
		double u = cap > 0 && T > 0 ? round(ccs_flows_stats(fl, r)->bytes) / (cap * T) : 0;
		if (u > best) {
			best = u;
			bi = r;
		}
	}
	*util = best;
	if (bi == UINT32_MAX) {
		snprintf(name, n, "-");
		return -1;
	}
	ccs_fabric_res_name(fab, bi, name, n);
	return 0;
}

void ccs_report_links(const struct ccs_fabric *fab, const struct ccs_flows *fl, double T)
{
	uint32_t n = ccs_fabric_nres(fab), k = 0, total = 0;
	struct link_row *v = ccs_malloc(((size_t)n + 1) * sizeof *v);
	if (!v)
		return;
	for (uint32_t r = 0; r < n; r++) {
		const struct ccs_res_stats *rs = ccs_flows_stats(fl, r);
		double cap = ccs_flows_cap(fl, r);
		/* copy ports and memories count only where used */
		total += !(ccs_fabric_is_copy(fab, r) || ccs_fabric_is_mem(fab, r)) || rs->bytes > 0;
		if (rs->bytes <= 0 || cap <= 0)
			continue;
		v[k].res = r;
		/* whole bytes: sums of the same transfers settled at different
		 * moments differ in the last bits, and must not reorder ties */
		v[k].util = T > 0 ? round(rs->bytes) / (cap * T) : 0;
		k++;
	}
	qsort(v, k, sizeof *v, cmp_util);
	printf("# links of the last size, busiest first (%u of %u carried traffic)\n", k, total);
	printf("# %-58s %14s %10s %6s %6s\n", "link", "bytes", "busy(us)", "peak", "mean");
	for (uint32_t i = 0; i < k && i < 20; i++) {
		char name[256];
		const struct ccs_res_stats *rs = ccs_flows_stats(fl, v[i].res);
		ccs_fabric_res_name(fab, v[i].res, name, sizeof name);
		printf("  %-58s %14.0f %10.2f %5.0f%% %5.0f%%\n", name, rs->bytes, rs->busy_s * 1e6, 100 * rs->peak_util,
		       100 * v[i].util);
	}
	ccs_free(v);
}
