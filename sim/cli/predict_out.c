/*
** sim/cli/predict_out.c: a predict or simulate request's rows as
** nccl-tests prints them, as CSV or as JSON (predict.h).
*/
#include "predict.h"

#include "../../model/coll.h"
#include "../../model/escape.h"
#include "../report.h"

#include <stdio.h>
#include <string.h>

/* nccl-tests' getFloatStr: fit v into width with %.2f, %.1f, %.0f, else %e. */
static void fit(char *buf, size_t n, double v, int width)
{
	for (int prec = 2; prec >= 0; prec--) {
		int k = snprintf(buf, n, "%.*f", prec, v);
		if (k <= width)
			return;
	}
	snprintf(buf, n, "%.*e", width >= 7 ? 1 : 0, v);
}

/* -v: each row's cut bound, the least time the hardware allows whatever
 * the algorithm (model/bound.h), and how far the row is above it. */
static void print_cuts(const struct predict_req *rq)
{
	printf("# cut bound: bytes that must cross the busiest cut over its line rate (docs/model.md)\n");
	printf("# %12s %12s %-10s %8s\n", "size (B)", "bound (us)", "cut", "time/cut");
	for (size_t i = 0; i < rq->nrows; i++) {
		const struct ccs_simrow_row *rw = &rq->rows[i];
		printf("# %12llu %12.2f %-10s %8.2f\n", (unsigned long long)rw->bytes, rw->cut_s * 1e6,
		       ccs_cut_name[rw->cut_by], rw->cut_s > 0 ? rw->time_s / rw->cut_s : 0.0);
	}
}

/* -v with simulate: each row's run, as the simulator counts it: events,
 * flows (a class's members counted), the most in the solver at once, the
 * largest and mean region a rate update recomputed (the max-min components
 * it touched), and the classes it lumped them into with restarts, or why it
 * ran per flow. */
static void print_runs(const struct predict_req *rq)
{
	printf("# simulator runs\n# %12s %12s %14s %10s %10s %8s %8s %12s %8s  %s\n", "size (B)", "events", "flows",
	       "max active", "region max", "mean", "classes", "class flows", "restarts", "per flow because");
	for (size_t i = 0; i < rq->nrows; i++) {
		const struct ccs_simrow_row *rw = &rq->rows[i];
		if (!rw->events)
			continue;
		printf("# %12llu %12llu %14llu %10u %10u %8.1f %8u %12llu %8u  %s\n", (unsigned long long)rw->bytes,
		       (unsigned long long)rw->events, (unsigned long long)rw->flows, rw->max_active, rw->region_max,
		       rw->region_mean, rw->classes, (unsigned long long)rw->class_flows, rw->restarts,
		       rw->per_flow_why ? rw->per_flow_why : rw->lumped ? "- (lumped)" : "-");
	}
}

/* The rows as CSV, one line a size. */
static void print_csv(const struct predict_req *rq)
{
	printf("collective,algo,proto,channels,ranks,bytes,time_us,algbw_GBps,busbw_GBps,bound\n");
	for (size_t i = 0; i < rq->nrows; i++) {
		const struct ccs_simrow_row *rw = &rq->rows[i];
		char ab[2][32] = { "", "" };   /* no bandwidth (nothing moves): empty fields */
		if (rw->time_s > 0 && rq->n > 1) {
			snprintf(ab[0], sizeof ab[0], "%.6g", rw->algbw);
			snprintf(ab[1], sizeof ab[1], "%.6g", rw->busbw);
		}
		printf("%s,%s,%s,%d,%d,%llu,%.6g,%s,%s,%s\n", ccs_coll_cli[rq->coll], ccs_algo_desc[rw->algo].name,
		       ccs_proto_name[rw->proto], rw->channels, rq->n, (unsigned long long)rw->bytes, rw->time_s * 1e6,
		       ab[0], ab[1], ccs_bound_name[rw->bound]);
	}
}

/* What --fidelity aggregate did: AllToAll's sends merged (always), or for
 * the other collectives classes lumped in every simulated row (2), in
 * some (1), in none (0: classes did not apply, every flow ran; -v says
 * why). */
static int lumped_rows(const struct predict_req *rq)
{
	size_t sim = 0, lumped = 0;
	for (size_t i = 0; i < rq->nrows; i++)
		if (rq->rows[i].events) {
			sim++;
			lumped += rq->rows[i].lumped != 0;
		}
	return rq->coll == CCS_COLL_ALLTOALL || (sim && lumped == sim) ? 2 : lumped ? 1 : 0;
}

/* The rows as one JSON object. */
static void print_json(const struct predict_req *rq)
{
	const char *type_name = rq->dt->name;
	const char *op_name = ccs_coll_reduces(rq->coll) ? ccs_redop_name[rq->op] : "none";
	char jn[1024];
	printf("{\n  \"collective\": \"%s\",\n  \"topology\": \"%s\",\n  \"ranks\": %d,\n  \"groups\": %d,\n"
	       "  \"ranks_per_group\": %d,\n  \"type\": \"%s\",\n  \"redop\": \"%s\",\n  \"selection\": \"%s\",\n"
	       "%s  \"rows\": [", ccs_coll_name[rq->coll], ccs_escape_json(rq->t->name, jn, sizeof jn), rq->n, rq->comm.G, rq->comm.p, type_name, op_name,
	       rq->best ? "ccsim" : "nccl",
	       !rq->aggregate ? "" : lumped_rows(rq) ? "  \"fidelity\": \"aggregate\",\n" : "  \"fidelity\": \"exact\",\n");
	for (size_t i = 0; i < rq->nrows; i++) {
		const struct ccs_simrow_row *rw = &rq->rows[i];
		char ab[2][32] = { "null", "null" };   /* no bandwidth (nothing moves) */
		if (rw->time_s > 0 && rq->n > 1) {
			snprintf(ab[0], sizeof ab[0], "%.6g", rw->algbw);
			snprintf(ab[1], sizeof ab[1], "%.6g", rw->busbw);
		}
		printf("%s\n    {\"bytes\": %llu, \"count\": %llu, \"time_us\": %.6g, \"algbw_GBps\": %s, "
		       "\"busbw_GBps\": %s, \"algo\": \"%s\", \"proto\": \"%s\", \"channels\": %d, \"bound\": \"%s\"",
		       i ? "," : "", (unsigned long long)rw->bytes, (unsigned long long)rw->count, rw->time_s * 1e6, ab[0],
		       ab[1], ccs_algo_desc[rw->algo].name, ccs_proto_name[rw->proto], rw->channels, ccs_bound_name[rw->bound]);
		if (!rq->sim && !rq->t->ntimed)
			printf(", \"terms_us\": {\"latency\": %.6g, \"sync\": %.6g, \"bandwidth\": %.6g}",
			       rw->lat_s * 1e6, rw->sync_s * 1e6, rw->bw_s * 1e6);
		printf(", \"cut_bound_us\": %.6g, \"cut\": \"%s\"", rw->cut_s * 1e6, ccs_cut_name[rw->cut_by]);
		if (rw->alt_algo >= 0)
			printf(", \"%s\": {\"algo\": \"%s\", \"proto\": \"%s\", \"time_us\": %.6g}", rq->best ? "nccl" : "best",
			       ccs_algo_desc[rw->alt_algo].name, ccs_proto_name[rw->alt_proto], rw->alt_time * 1e6);
		printf("}");
	}
	printf("\n  ],\n  \"avg_busbw_GBps\": %.6g\n}\n", rq->avg_bus);
}

/* The rows as nccl-tests prints them, with ccsim's columns after. */
static void print_table(const struct predict_req *rq)
{
	const char *type_name = rq->dt->name;
	const char *op_name = ccs_coll_reduces(rq->coll) ? ccs_redop_name[rq->op] : "none";
	int root_col = ccs_coll_rooted(rq->coll) ? rq->root : -1;
	printf("# %s: %s on %s: %d ranks in %d group%s of %d (%s), %s's choice", rq->sim ? "ccsim simulate" : "ccsim predict", ccs_coll_name[rq->coll],
	       rq->t->name, rq->n, rq->comm.G, rq->comm.G == 1 ? "" : "s", rq->comm.p,
	       rq->comm.intra_nvl ? "scale-up domains" : "nodes", rq->best ? "ccsim" : "NCCL");
	if (rq->concurrent > 1)
		printf("; %d copies at once (time: all done)", rq->concurrent);
	printf("\n");
	int lumped = rq->aggregate ? lumped_rows(rq) : 0;
	if (rq->aggregate && rq->coll == CCS_COLL_ALLTOALL)
		printf("# fidelity aggregate: each rank's sends to the ranks behind one leaf switch merged into one transfer "
		       "(an approximation; its error against every flow: docs/simulator.md)\n");
	else if (lumped)
		printf("# fidelity aggregate: transfers alike by their routes run as one class that starts when its last "
		       "member is ready%s (an approximation; its error against every flow: docs/simulator.md)\n",
		       lumped == 2 ? "" : ", in the rows -v marks lumped");
	else if (rq->aggregate)
		printf("# fidelity aggregate: classes do not apply here (-v says why), so every flow ran: exact\n");
	if (rq->t->nfault) {
		printf("# faults: ");
		for (uint32_t i = 0; i < rq->t->nfault; i++)
			printf("%s%s", i ? ", " : "", rq->t->fault[i]);
		if (rq->t->ntimed)
			printf(rq->sim ? " ('@': struck during each run; flows on dead links rerouted)"
			           : " ('@': the work done by then at the healthy rate, the rest at the struck one's)");
		printf("\n");
	}
	if (rq->n < 2)
		printf("# one rank: nothing moves between GPUs, so the time is 0 (NCCL returns after its launch, "
		       "which is not modelled) and there is no bandwidth (N/A)\n");
	printf("#\n");
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %-14s %-6s %3s  %-8s %s\n", "size", "count", "type",
	       "redop", "root", "time", "algbw", "busbw", "algo", "proto", "ch", "bound", rq->best ? "nccl" : "best");
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
	       "(GB/s)");
	for (size_t i = 0; i < rq->nrows; i++) {
		const struct ccs_simrow_row *rw = &rq->rows[i];
		char ts[32], as[32], bs[32], alt[96] = "-";
		fit(ts, sizeof ts, rw->time_s * 1e6, 7);
		fit(as, sizeof as, rw->algbw, 6);
		fit(bs, sizeof bs, rw->busbw, 6);
		if (!(rw->time_s > 0) || rq->n < 2) {
			snprintf(as, sizeof as, "N/A");
			snprintf(bs, sizeof bs, "N/A");
		}
		if (rw->alt_algo >= 0)
			snprintf(alt, sizeof alt, "%s/%s@%.4gus", ccs_algo_desc[rw->alt_algo].name, ccs_proto_name[rw->alt_proto],
			         rw->alt_time * 1e6);
		printf("%12llu  %12llu  %8s  %6s  %6d  %7s  %6s  %6s  %-14s %-6s %3d  %-8s %s\n",
		       (unsigned long long)rw->bytes, (unsigned long long)rw->count, type_name, op_name, root_col, ts,
		       as, bs, ccs_algo_desc[rw->algo].name, ccs_proto_name[rw->proto], rw->channels,
		       ccs_bound_name[rw->bound], alt);
	}
	printf("# Avg bus bandwidth    : %g \n", rq->avg_bus);
	printf("#\n");
	if (rq->verbose)
		print_cuts(rq);
	if (rq->verbose && rq->sim)
		print_runs(rq);
}

void ccs_predict_out_rows(const struct predict_req *rq)
{
	static const struct { const char *name; void (*print)(const struct predict_req *); } fmts[] = {
		{ "csv", print_csv }, { "json", print_json }, { "table", print_table },
	};
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
		if (!strcmp(rq->format, fmts[i].name)) {   /* checked against these when parsed */
			fmts[i].print(rq);
			return;
		}
}
