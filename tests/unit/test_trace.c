/*
** tests/unit/test_trace.c: the trace writer's three levels on a ring
** AllReduce of 2 HGX H100 nodes (16 ranks, 2 channels): every file is
** JSON that ends; the chunk level has one span per op, one wait per op
** that waits and link counters; the step level one span per rank and step
** (the channels' ops merged, 2 of them each) with its waits apart and no
** counters; the collective level one span and one wait per rank, the
** first starting where the latency ends; and all three span the same run.
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/trace.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The trace of s at level, read back (caller frees); NULL on failure. */
static char *trace_of(struct ccs_fabric *fab, const struct ccs_sched *s, int n, int level, double *time_s)
{
	char path[] = "/tmp/ccsim-trace-XXXXXX", err[256];
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	int in_trace;
	int rc = ccs_trace_run(fab, s, n, path, level, "ring", NULL, &st, &fl, &in_trace, err, sizeof err);
	ccs_flows_free(fl);
	*time_s = st.time_s;
	char *buf = fx_slurp_rm(path);
	if (rc) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

int main(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/hgx-h100-cluster.yaml", sets, 1, 0, &t, &c, &fab));
	if (!t)
		return CHECK_DONE("test_trace");
	struct ccs_sched s;
	const char *why = NULL;
	CHECK(!ccs_sched_build(&c, CCS_COLL_ALLREDUCE, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 2, 1 << 24, &s, &why));
	uint64_t waits = 0;
	for (uint64_t i = 0; i < s.nops; i++) {
		struct ccs_op o;
		ccs_sched_get(&s, i, &o);
		waits += o.delay_s > 0;
	}
	int n = c.n;
	double tt[3];
	char *chunk = trace_of(fab, &s, n, CCS_TRACE_CHUNK, &tt[0]);
	char *step = trace_of(fab, &s, n, CCS_TRACE_STEP, &tt[1]);
	char *coll = trace_of(fab, &s, n, CCS_TRACE_COLLECTIVE, &tt[2]);
	CHECK(chunk && step && coll);
	if (chunk && step && coll) {
		CHECK(tt[0] == tt[1] && tt[1] == tt[2]);
		for (int k = 0; k < 3; k++) {
			const char *b = k == 0 ? chunk : k == 1 ? step : coll;
			size_t len = strlen(b);
			CHECK(len > 4 && !strcmp(b + len - 4, "\n]}\n"));
		}
		/* chunk: each op, each wait, and the links */
		CHECK(count(chunk, "\"ph\": \"X\"") == s.nops + waits);
		CHECK(count(chunk, "\"cat\": \"latency\"") == waits);
		CHECK(count(chunk, "\"ph\": \"C\"") > 0);
		/* step: a ring AllReduce is 2 (n - 1) steps a rank, each the
		 * two channels' ops */
		size_t steps = (size_t)n * 2 * (size_t)(n - 1);
		CHECK(count(step, "\"cat\": \"data\"") == steps);
		CHECK(count(step, "\"args\": {\"ops\": 2,") == steps);
		CHECK(count(step, "\"name\": \"step 0\"") == (size_t)n);
		CHECK(count(step, "\"cat\": \"latency\"") > 0 && count(step, "\"cat\": \"latency\"") <= steps);
		CHECK(count(step, "\"ph\": \"C\"") == 0);
		CHECK(count(step, "\"level\": \"step\"") == 1);
		/* collective: one span and one wait per rank */
		CHECK(count(coll, "\"cat\": \"data\"") == (size_t)n);
		CHECK(count(coll, "\"cat\": \"latency\"") == (size_t)n);
		CHECK(count(coll, "\"ph\": \"C\"") == 0);
		/* rank 0's latency ends where its span starts */
		const char *w = strstr(coll, "\"cat\": \"latency\", \"ph\": \"X\", \"ts\": 0.000000, \"dur\": ");
		const char *d = strstr(coll, "\"cat\": \"data\", \"ph\": \"X\", \"ts\": ");
		CHECK(w && d);
		if (w && d) {
			double dur = strtod(w + strlen("\"cat\": \"latency\", \"ph\": \"X\", \"ts\": 0.000000, \"dur\": "), NULL);
			double ts = strtod(d + strlen("\"cat\": \"data\", \"ph\": \"X\", \"ts\": "), NULL);
			CHECK_NEAR(dur, ts, 1e-6);
			CHECK(dur > 0);
		}
		/* the step level is a small fraction of the chunk level */
		CHECK(strlen(step) * 2 < strlen(chunk));
		printf("trace sizes: chunk %zu, step %zu, collective %zu bytes\n", strlen(chunk), strlen(step), strlen(coll));
	}
	free(chunk);
	free(step);
	free(coll);
	ccs_sched_release(&s);
	fx_down(t, &c, fab);
	return CHECK_DONE("test_trace");
}
