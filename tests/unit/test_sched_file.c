/*
** tests/unit/test_sched_file.c: schedules written as YAML (sim/sched/file.c): what they run, and
** each bad file rejected at its position.
*/
#include "../check.h"
#include "fixture.h"
#include "../../sim/sim.h"
#include "../../sim/sched/build.h"
#include "../../sim/trace.h"
#include "../../model/nccl_tables.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write text to a temporary schedule file and load it for c. */
static int sched_text(const char *text, const struct ccs_comm *c, struct ccs_sched *s, int *ranks, char *msg,
                      size_t n)
{
	char path[] = "/tmp/ccsim-sched-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_sched_file_load(path, c, 0, s, ranks, &d);
	snprintf(msg, n, "%s", d.set ? d.msg : "");
	unlink(path);
	return rc;
}

static double sched_time(const char *text, const struct ccs_comm *c, struct ccs_fabric *fab)
{
	struct ccs_sched s;
	struct ccs_sim_stats st;
	char msg[512];
	int ranks;
	if (sched_text(text, c, &s, &ranks, msg, sizeof msg)) {
		fprintf(stderr, "schedule: %s\n", msg);
		return -1;
	}
	int rc = ccs_sim_run(fab, &s, &st, NULL, msg, sizeof msg);
	ccs_sched_release(&s);
	return rc ? -1 : st.time_s;
}

/* Schedules from files: times that follow from the fabric's capacities. */
static void test_sched_file(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/hgx-h100-cluster.yaml", sets, 1, 0, &t, &c, &fab));
	if (!t)
		return;
	/* compute ops in a chain add up, to the picosecond */
	double tc = sched_time("ranks: 2\nops:\n  - {name: a, rank: 0, op: compute, time: 3us}\n"
	                       "  - {rank: 1, op: compute, time: 5.5us, after: [a]}\n", &c, fab);
	CHECK(tc == 8.5e-6);
	/* reduce: 2.5 bytes of HBM traffic per byte */
	double tr = sched_time("ranks: 1\nops:\n  - {rank: 0, op: reduce, bytes: 1GiB}\n", &c, fab);
	CHECK(c.mem_bw > 0);
	CHECK_NEAR(tr, 2.5 * 1073741824.0 / c.mem_bw, 1e-6);
	/* incast into one NIC: k senders of B bytes take k B / capacity
	 * (plus one hop), the capacity being the route's narrowest link */
	uint32_t res[CCS_FLOW_MAXPATH];
	int nres = 0;
	CHECK(!ccs_fabric_route(fab, 0, 8, UINT32_MAX, UINT32_MAX, 0, res, &nres) && nres > 0);
	double cap = 1e300;
	for (int i = 0; i < nres; i++)
		if (ccs_fabric_caps(fab)[res[i]] < cap)
			cap = ccs_fabric_caps(fab)[res[i]];
	double tk[4];
	for (int k = 1; k <= 3; k++) {
		char text[1024];
		int o = snprintf(text, sizeof text, "ranks: 16\nops:\n");
		for (int i = 0; i < k; i++)
			o += snprintf(text + o, sizeof text - (size_t)o,
			              "  - {rank: %d, op: send, peer: 8, bytes: 64MiB}\n  - {rank: 8, op: recv, peer: %d}\n", i, i);
		tk[k] = sched_time(text, &c, fab);
	}
	CHECK_NEAR(tk[2] - tk[1], 64.0 * 1048576 / cap, 1e-3);
	CHECK_NEAR(tk[3] - tk[2], 64.0 * 1048576 / cap, 1e-3);
	CHECK(tk[1] > 64.0 * 1048576 / cap);   /* plus the hop latency */
	/* sends and receives pair in order: the second recv waits for the 2nd send */
	double tp = sched_time("ranks: 2\nops:\n  - {name: c, rank: 0, op: compute, time: 100us}\n"
	                       "  - {rank: 0, op: send, peer: 1, bytes: 8B, latency: 0us}\n"
	                       "  - {rank: 0, op: send, peer: 1, bytes: 8B, latency: 0us, after: [c]}\n"
	                       "  - {rank: 1, op: recv, peer: 0}\n  - {name: r2, rank: 1, op: recv, peer: 0}\n"
	                       "  - {rank: 1, op: compute, time: 1us, after: [r2]}\n", &c, fab);
	CHECK(tp > 101e-6 && tp < 101.01e-6);
	fx_down(t, &c, fab);
}

/* PXN routes, a trace's link counters, and positioned errors. */
static void test_sched_file_more(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	char err[256];
	CHECK(!fx_up("topologies/hgx-h100-cluster.yaml", sets, 1, 0, &t, &c, &fab));
	if (!t)
		return;
	/* PXN: rank 0 (node 0, GPU 0) to rank 13 (node 1, GPU 5) leaves over its
	 * scale-up port to node 0's GPU 5 and out of that GPU's NIC; without PXN
	 * through its own NIC */
	{
		uint32_t pr[CCS_FLOW_MAXPATH], dr[CCS_FLOW_MAXPATH];
		int pn = 0, dn = 0;
		CHECK(!ccs_fabric_route(fab, 0, 13, CCS_NIC_PXN, UINT32_MAX, 0, pr, &pn));
		CHECK(!ccs_fabric_route(fab, 0, 13, UINT32_MAX, UINT32_MAX, 0, dr, &dn));
		CHECK(pn >= 3 && pr[0] == 2 * c.rank_gpu[0] && pr[1] == 2 * c.rank_gpu[5] + 1);
		CHECK(dn >= 1 && dr[0] != pr[0]);
	}
	/* the trace has a counter track per link: rank 8's NIC link saturated by the incast from the start (a send's latency follows its bytes) */
	{
		struct ccs_diag dd;
		memset(&dd, 0, sizeof dd);
		struct ccs_sched is;
		int ir;
		CHECK(!ccs_sched_file_load("scenarios/incast-2node.yaml", &c, 0, &is, &ir, &dd));
		struct ccs_trace *trc = NULL;
		char tpath[] = "/tmp/ccsim-trace-XXXXXX";
		int fd = mkstemp(tpath);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		CHECK(!ccs_trace_open(&trc, tpath, &is, c.n, CCS_TRACE_CHUNK, "incast", err, sizeof err) && !ccs_trace_links(trc, fab));
		struct ccs_sim_hooks h;
		memset(&h, 0, sizeof h);
		ccs_trace_hooks(trc, &h);
		struct ccs_sim_stats ist;
		CHECK(!ccs_sim_run_hooked(fab, &is, &ist, NULL, &h, err, sizeof err));
		CHECK(!ccs_trace_close(trc));
		ccs_sched_release(&is);
		char *buf = fx_slurp_rm(tpath);
		CHECK(buf != NULL);
		CHECK(buf && strstr(buf, "{\"name\": \"leaf0->node1/nic0 (ib)\", \"ph\": \"C\", \"ts\": 0.000000, \"pid\": 16, "
		                         "\"args\": {\"util %\": 100.000}}") != NULL);
		CHECK(buf && strstr(buf, "\"name\": \"links (utilisation %)\"") != NULL);
		free(buf);
	}
	/* errors name the place */
	struct ccs_sched s;
	int ranks;
	char msg[512];
	CHECK(sched_text("ranks: 2\nops:\n  - {rank: 0, op: send, peer: 1, bytes: 1MiB}\n", &c, &s, &ranks, msg,
	                 sizeof msg) == CCS_EINPUT);
	CHECK(strstr(msg, ":3:5: send from rank 0 to rank 1 on channel 0 has no matching recv") != NULL);
	fx_down(t, &c, fab);

}

/* Contention: bisection traffic through a 2:1 leaf takes twice what the
 * NICs alone allow, and the busiest link is a leaf uplink. */
static void test_sched_bisection(void)
{
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	char err[256];
	uint32_t res[CCS_FLOW_MAXPATH];
	int nres = 0;
	const char *ov2[] = { "nodes=8", "scaleout.topology=fat-tree", "scaleout.radix=48",
	                      "scaleout.oversubscription=2" };
	CHECK(!fx_up("topologies/hgx-h100-cluster.yaml", ov2, 4, 0, &t, &c, &fab));
	if (!t)
		return;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	struct ccs_sched bs;
	int br = 0;
	CHECK(!ccs_sched_file_load("scenarios/bisection-2to1.yaml", &c, 0, &bs, &br, &d) && br == 64);
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	CHECK(!ccs_sim_run(fab, &bs, &st, &fl, err, sizeof err));
	ccs_sched_release(&bs);
	double nic = 0;
	CHECK(!ccs_fabric_route(fab, 0, 32, UINT32_MAX, UINT32_MAX, 0, res, &nres));
	for (int i = 0; i < nres; i++)
		if (ccs_fabric_res_kind(fab, res[i]) == 1)
			nic = ccs_fabric_caps(fab)[res[i]];
	CHECK(nic > 0);
	double ratio = st.time_s / (256.0 * 1048576 / nic);
	CHECK(ratio > 1.99 && ratio < 2.01);
	double top = 0;
	int top_kind = -1;
	for (uint32_t r = 0; fl && r < ccs_fabric_nres(fab); r++) {
		double cap_r = ccs_flows_cap(fl, r);
		double u = cap_r > 0 ? ccs_flows_stats(fl, r)->bytes / cap_r : 0;
		if (u > top * 1.001) {
			top = u;
			top_kind = ccs_fabric_res_kind(fab, r);
		}
	}
	CHECK(top_kind == 2);
	ccs_flows_free(fl);
	fx_down(t, &c, fab);
}

/* MSCCL's XML (sim/sched/msccl.c): an 8-GPU ring AllReduce on one HGX H100
 * node moves 14 chunks of S/8 a GPU, one after another on its thread
 * block, each a send at the scale-up port rate plus the hop latency; a
 * 2-GPU exchange written inline pairs its steps; a short side is refused
 * at its position. */
static void test_msccl(void)
{
	const char *sets[] = { "nodes=1" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/hgx-h100-cluster.yaml", sets, 1, 0, &t, &c, &fab));
	if (!t)
		return;
	struct ccs_sched s;
	struct ccs_sim_stats st;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int ranks = 0;
	double S = 1073741824.0;
	char msg[512];
	CHECK(!ccs_sched_file_load("tests/data/sched/msccl-ring-allreduce-8.xml", &c, S, &s, &ranks, &d) && ranks == 8);
	CHECK(!ccs_sim_run(fab, &s, &st, NULL, msg, sizeof msg));
	CHECK_NEAR(st.bytes_sent, 14.0 * 8 * S / 8, 1e-9);
	double hop = ccs_nccl_latency(&c.nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 1, 0) -
	             ccs_nccl_latency(&c.nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0);
	/* 14 chunks in series at the port rate, plus the reductions (2.5 bytes
	 * of memory traffic per byte) of the 7 reducing steps */
	double port = c.b_su, t14 = 14 * (S / 8 / port + hop) + 7 * (S / 8) * 2.5 / c.mem_bw;
	CHECK_NEAR(st.time_s, t14, 0.02);
	ccs_sched_release(&s);
	const char *two = "<algo name=\"x\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\">\n"
	                  " <gpu id=\"0\"><tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\"><step s=\"0\" type=\"s\"/><step s=\"1\" type=\"r\"/></tb></gpu>\n"
	                  " <gpu id=\"1\"><tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\"><step s=\"0\" type=\"r\"/><step s=\"1\" type=\"s\"/></tb></gpu>\n"
	                  "</algo>\n";
	CHECK(!sched_text(two, &c, &s, &ranks, msg, sizeof msg) && ranks == 2);
	ccs_sched_release(&s);
	const char *short_ = "<algo name=\"x\" nchannels=\"1\" ngpus=\"2\">\n"
	                     " <gpu id=\"0\"><tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\"><step s=\"0\" type=\"s\"/></tb></gpu>\n"
	                     " <gpu id=\"1\"><tb id=\"0\" send=\"-1\" recv=\"0\" chan=\"0\"></tb></gpu>\n"
	                     "</algo>\n";
	CHECK(sched_text(short_, &c, &s, &ranks, msg, sizeof msg) == CCS_EINPUT);
	CHECK(strstr(msg, ":2:") && strstr(msg, "gpu 0 sends to gpu 1 on channel 0 1 time more than gpu 1 receives"));
	fx_down(t, &c, fab);
}

/* A send's latency follows its bytes, and a rendezvous (EFA v1 above one
 * packet) comes before them: on two p4de nodes a block's 1 MiB send then its
 * 8 B send, the 8 B never lands first; what waits on the 8 B's recv (100 us)
 * ends at least 100 us after the 1 MiB has landed. */
static void test_send_order(void)
{
	const char *sets[] = { "nodes=2" };
	struct ccs_topo *t;
	struct ccs_comm c;
	struct ccs_fabric *fab;
	CHECK(!fx_up("topologies/aws-p4de.yaml", sets, 1, 0, &t, &c, &fab));
	if (!t)
		return;
	const char *big = "name: a\nranks: 16\nops:\n"
	                  "  - {name: b, rank: 0, op: send, peer: 8, bytes: 1MiB}\n"
	                  "  - {name: rb, rank: 8, op: recv, peer: 0}\n";
	const char *both = "name: a\nranks: 16\nops:\n"
	                   "  - {name: b, rank: 0, op: send, peer: 8, bytes: 1MiB}\n"
	                   "  - {name: s, rank: 0, op: send, peer: 8, bytes: 8B, after: [b]}\n"
	                   "  - {name: rb, rank: 8, op: recv, peer: 0}\n"
	                   "  - {name: rs, rank: 8, op: recv, peer: 0}\n"
	                   "  - {name: u, rank: 8, op: compute, time: 100us, after: [rs]}\n";
	struct ccs_sched s;
	struct ccs_sim_stats st;
	int ranks;
	char msg[512];
	double tb = -1, tu = -1;
	if (!sched_text(big, &c, &s, &ranks, msg, sizeof msg)) {
		tb = !ccs_sim_run(fab, &s, &st, NULL, msg, sizeof msg) ? st.time_s : -1;
		ccs_sched_release(&s);
	}
	ccs_fabric_rewind(fab);
	if (!sched_text(both, &c, &s, &ranks, msg, sizeof msg)) {
		tu = !ccs_sim_run(fab, &s, &st, NULL, msg, sizeof msg) ? st.time_s : -1;
		ccs_sched_release(&s);
	}
	CHECK(tb > 0 && tu > 0);
	CHECK(tu >= tb + 100e-6 - 1e-9);
	fx_down(t, &c, fab);
}

int main(void)
{
	test_send_order();
	test_sched_file();
	test_msccl();
	test_sched_file_more();
	test_sched_bisection();
	return CHECK_DONE("test_sched_file");
}
