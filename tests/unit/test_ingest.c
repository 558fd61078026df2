/*
** tests/unit/test_ingest.c: measured logs into records (calibrate/ingest.h).
**   - real nccl-tests outputs of three layouts (tests/data/calib): rows,
**     both halves, units (us -> s, GB/s -> B/s), redop/root presence, the
**     footer, ranks, host, the collective from the preamble or file name
**   - real perftest outputs: Gb/s and MiB/s units, latency rows past
**     warning lines, verbs, read latency as a round trip
**   - garbled logs are refused with file:line:col
*/
#include "../check.h"

#include "../../calibrate/ingest.h"
#include "../../model/coll.h"

#include <stdio.h>
#include <string.h>

/* Parse the file at path as nccl-tests (nl set) or perftest (pl set). */
static int parse(const char *path, struct ccs_nt_log *nl, struct ccs_pf_log *pl, struct ccs_diag *d)
{
	char *text;
	size_t len;
	memset(d, 0, sizeof *d);
	int rc = ccs_ingest_read_file(path, &text, &len, d);
	if (rc)
		return rc;
	rc = nl ? ccs_nt_parse(path, text, len, NULL, nl, d) : ccs_pf_parse(path, text, len, pl, d);
	ccs_free(text);
	return rc;
}

static int nt(const char *path, struct ccs_nt_log *l, struct ccs_diag *d) { return parse(path, l, NULL, d); }
static int pf(const char *path, struct ccs_pf_log *l, struct ccs_diag *d) { return parse(path, NULL, l, d); }

static void test_nccltests(void)
{
	struct ccs_nt_log l;
	struct ccs_diag d;
	/* GB200 NVL72: 5 rows, 512 MiB .. 8 GiB, redop and root present */
	CHECK(!nt("tests/data/calib/all_reduce_perf-gb200-nvl72.log", &l, &d));
	CHECK(l.nrow == 5 && !strcmp(l.tab[0].coll, "allreduce") && l.tab[0].ranks == 72);
	if (l.nrow == 5) {
		CHECK(l.row[0].size == 536870912u && l.row[0].count == 134217728u && !strcmp(l.row[0].type, "float"));
		CHECK(!strcmp(l.row[0].redop, "sum") && l.row[0].root == -1 && l.row[0].line == 6);
		CHECK_NEAR(l.row[0].half[0].time_s, 1806.7e-6, 1e-12);
		CHECK_NEAR(l.row[0].half[0].busbw_Bps, 586.06e9, 1e-12);
		CHECK_NEAR(l.row[3].half[0].time_s, 10094e-6, 1e-12);
		CHECK_NEAR(l.row[4].half[1].algbw_Bps, 429.37e9, 1e-12);
		/* algbw is size / time (to the printed digits) */
		for (size_t i = 0; i < l.nrow; i++)
			CHECK_NEAR(l.row[i].half[0].algbw_Bps, l.row[i].size / l.row[i].half[0].time_s, 2e-3);
	}
	CHECK_NEAR(l.avg_busbw_Bps, 745.53e9, 1e-12);
	ccs_nt_release(&l);
	/* nccl-tests 2.13.6, 1 GPU: host from the Rank line, the overflowing
	 * in-place algbw column, redop none */
	CHECK(!nt("tests/data/calib/all_gather_perf-rtx4090.log", &l, &d));
	CHECK(l.nrow == 1 && !strcmp(l.tab[0].coll, "allgather") && l.tab[0].ranks == 1 && !strcmp(l.host, "nixos-desktop"));
	if (l.nrow == 1) {
		CHECK(!strcmp(l.row[0].redop, "none") && l.row[0].half[1].valid);
		CHECK_NEAR(l.row[0].half[1].algbw_Bps, 619657.10e9, 1e-12);
	}
	ccs_nt_release(&l);
	/* ~2020 layout with no header: 11 fields, %e error columns */
	CHECK(!nt("tests/data/calib/all_reduce_perf-legacy-2020.log", &l, &d));
	CHECK(l.nrow == 2 && l.row[0].redop[0] == 0 && l.row[0].root == -1);
	if (l.nrow == 2) {
		CHECK_NEAR(l.row[1].half[1].time_s, 18.39e-6, 1e-12);
		CHECK_NEAR(l.row[1].half[1].busbw_Bps, 3.56e9, 1e-12);
	}
	CHECK_NEAR(l.avg_busbw_Bps, 6.6972e9, 1e-12);
	ccs_nt_release(&l);
	/* inline text: the current header, NCCL INFO chatter between rows, an
	 * in-place-only row, N/A error counts, the preamble's collective */
	const char *text =
	    "# Collective test starting: reduce_scatter_perf\n"
	    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
	    "host:1:1 [0] NCCL INFO Channel 00/32 :    0   1\n"
	    "     1048576        131072     float     sum      -1    27.76   37.77   33.04     N/A    27.00   38.84   33.98     N/A\n"
	    "     2097152        262144     float     sum      -1                                      41.00   51.15   44.76       0\n";
	memset(&d, 0, sizeof d);
	CHECK(!ccs_nt_parse("inline", text, strlen(text), NULL, &l, &d));
	CHECK(l.nrow == 2 && !strcmp(l.tab[0].coll, "reducescatter"));
	if (l.nrow == 2) {
		CHECK(l.row[0].half[0].valid && l.row[0].half[1].valid);
		CHECK(!l.row[1].half[0].valid && l.row[1].half[1].valid);
		CHECK_NEAR(l.row[1].half[1].time_s, 41e-6, 1e-12);
	}
	ccs_nt_release(&l);
	/* garbled */
	CHECK(nt("tests/data/calib/bad-nt-number.log", &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "bad-nt-number.log:2:73: expected a bandwidth in GB/s (at most 1e7), got '66.1O'") != NULL);
	CHECK(nt("tests/data/calib/bad-nt-short.log", &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "bad-nt-short.log:2:") && strstr(d.msg, "does not fit the header"));
	CHECK(nt("tests/data/calib/bad-nt-empty.log", &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "no nccl-tests table found") != NULL);
	CHECK(nt("tests/data/calib/no-such.log", &l, &d) == CCS_EIO && strstr(d.msg, "cannot open"));
}

static void test_perftest(void)
{
	struct ccs_pf_log l;
	struct ccs_diag d;
	CHECK(!pf("tests/data/calib/perftest-write-bw-gbits.log", &l, &d));
	CHECK(l.kind == CCS_PF_BW && !strcmp(l.verb, "write") && !strcmp(l.device, "ib0") && l.nrow == 1);
	if (l.nrow == 1) {
		CHECK(l.row[0].bytes == 8 && l.row[0].iters == 224958464u);
		CHECK_NEAR(l.row[0].avg_Bps, 0.48 * 125e6, 1e-12);   /* Gb/s: 1e9 bits */
		CHECK_NEAR(l.row[0].rate_Mpps, 7.498617, 1e-12);
	}
	ccs_pf_release(&l);
	CHECK(!pf("tests/data/calib/perftest-write-bw-sweep.log", &l, &d));
	CHECK(l.nrow == 3);
	if (l.nrow == 3)
		CHECK_NEAR(l.row[1].peak_Bps, 0.084507 * 125e6, 1e-12);
	ccs_pf_release(&l);
	CHECK(!pf("tests/data/calib/perftest-send-lat.log", &l, &d));
	CHECK(l.kind == CCS_PF_LAT && l.nrow == 1 && !l.round_trip);
	if (l.nrow == 1) {
		CHECK_NEAR(l.row[0].t_typ_s, 1.27e-6, 1e-12);
		CHECK_NEAR(l.row[0].t_max_s, 5.19e-6, 1e-12);
	}
	ccs_pf_release(&l);
	/* MB/sec is MiB/s (perftest divides by 0x100000); read latency is a
	 * round trip */
	const char *mb = "                    RDMA_Read Latency Test\n"
	                 " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
	                 " 64      1000          3.10           4.00         3.20       3.25\n";
	memset(&d, 0, sizeof d);
	CHECK(!ccs_pf_parse("inline", mb, strlen(mb), &l, &d) && l.round_trip && !strcmp(l.verb, "read"));
	ccs_pf_release(&l);
	const char *mib = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
	                  " 65536      5000           46000.00            45000.00   0.72\n";
	memset(&d, 0, sizeof d);
	CHECK(!ccs_pf_parse("inline", mib, strlen(mib), &l, &d) && l.nrow == 1);
	if (l.nrow == 1)
		CHECK_NEAR(l.row[0].avg_Bps, 45000.0 * 1048576.0, 1e-12);
	ccs_pf_release(&l);
	CHECK(pf("tests/data/calib/bad-pf-unit.log", &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "bad-pf-unit.log:1:") && strstr(d.msg, "unknown bandwidth unit"));
}

/* Logs as people save them (issue 19): one run's output, as printed and
 * behind each launcher's prefix; the collective from a command line, from
 * the columns, or refused where the columns cannot tell; two runs in one
 * file; a crash log; positions that count the prefix. */
static const char *const run_ar[] = {
	"$ mpirun -np 8 ./build/all_reduce_perf -b 1M -e 128M -f 128 -g 1",
	"# nThread 1 nGpus 1 minBytes 1048576 maxBytes 134217728 step: 128(factor) warmup iters: 5 iters: 20",
	"#  Rank  0 Group  0 Pid  12345 on    node01 device  0 [0x1b] NVIDIA H100 80GB HBM3",
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
	"node01:1234:1234 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
	"     1048576        262144     float     sum      -1    30.12   34.81   60.92      0    29.87   35.10   61.43      0",
	"   134217728      33554432     float     sum      -1   480.50  279.33  488.83      0   479.90  279.68  489.44      0",
	"# Avg bus bandwidth    : 275.1",
	NULL,
};

/* lines joined with prefix before each, from line 'from' (0-based) */
static void wrap(char *buf, size_t n, const char *const *lines, int from, const char *prefix)
{
	buf[0] = 0;
	for (int i = from; lines[i]; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "%s%s\n", prefix, lines[i]);
	}
}

static void test_as_saved(void)
{
	static char buf[8192];
	struct ccs_nt_log l;
	struct ccs_diag d;
	static const char *const prefixes[] = { "", "  0: ", "[1,0]<stdout>:", "node01: ", "2024-05-01T12:00:00.123456789Z ",
		                                "2024-05-01T12:00:00Z   0: ", "[default0]:", "> ", "> > ",
		                                "[2024-05-01 12:00:00] ", "2024-05-01 12:00:00,123 INFO " };
	for (int p = 0; p < (int)(sizeof prefixes / sizeof prefixes[0]); p++) {
		wrap(buf, sizeof buf, run_ar, 0, prefixes[p]);
		memset(&d, 0, sizeof d);
		CHECK(ccs_log_kind(buf, strlen(buf)) == CCS_LOG_NCCL);
		int rc = ccs_nt_parse("run1.txt", buf, strlen(buf), NULL, &l, &d);
		CHECK(!rc);
		if (rc) {
			fprintf(stderr, "prefix '%s': %s\n", prefixes[p], d.msg);
			continue;
		}
		/* the command line names the test; 8 ranks from busbw / algbw
		 * (the quote kept one Rank line) */
		CHECK(l.nrow == 2 && l.ntab == 1 && !strcmp(l.tab[0].coll, "allreduce") && !strcmp(l.host, "node01"));
		CHECK(l.nrow == 2 && l.row[1].size == 134217728u && l.row[1].line == 7);
		CHECK_NEAR(l.row[1].half[1].busbw_Bps, 489.44e9, 1e-12);
		ccs_nt_release(&l);
		struct ccs_meas_set set;
		memset(&set, 0, sizeof set);
		CHECK(!ccs_ingest_text("run1.txt", buf, strlen(buf), &set, &d));
		CHECK(set.n == 4 && set.m[0].ranks == 8 && !strcmp(set.m[0].name, "allreduce"));
		ccs_meas_set_release(&set);
	}
}

/* NCCL_ALGO / NCCL_PROTO as a log states them, and ccsim predict's own
 * table with its rank count (busbw / algbw cannot tell 32 ranks from 33). */
static void test_stated(void)
{
	static const char info[] =
		"$ NCCL_PROTO=Simple mpirun -x NCCL_ALGO_X=1 ./all_reduce_perf -b 1G -e 1G\n"
		"#  Rank  7 Group  0 Pid 1 on node01 device  7 [0x00] NVIDIA H100\n"
		"node01:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
		"node01:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"  1073741824     268435456     float     sum      -1   5639.0  190.41  333.22      0   5640.0  190.38  333.16      0\n";
	struct ccs_meas_set set;
	struct ccs_diag d;
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(!ccs_ingest_text("run.txt", info, strlen(info), &set, &d));
	/* the first statement of each; NCCL_ALGO_X is another name */
	CHECK(!strcmp(set.nt.nccl_algo, "Ring") && !strcmp(set.nt.nccl_proto, "Simple"));
	CHECK(strstr(set.nt.evidence, "NCCL_ALGO=Ring (run.txt:3)") && strstr(set.nt.evidence, "NCCL_PROTO=Simple (run.txt:1)"));
	ccs_meas_set_release(&set);
	static const char own[] =
		"# ccsim predict: AllReduce on hgx-h100: 32 ranks in 4 groups of 8 (scale-up domains), NCCL's choice\n"
		"# faults: nic:node1/nic0:50%\n"
		"#\n"
		"#       size         count      type   redop    root     time   algbw   busbw  algo           proto   ch  bound    best\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
		"  4294967296    1073741824     float     sum      -1  25154.6  170.74  330.81  ring           Simple  16  nic      -\n";
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("out.txt", own, strlen(own), &set, &d));
	CHECK(set.n == 1 && set.m[0].ranks == 32 && !strcmp(set.m[0].name, "allreduce") && !set.nt.nccl_algo[0]);
	ccs_meas_set_release(&set);
	/* ncclTopoCheckGdr's verdicts: enabled for one pair and disabled
	 * (too far) for another state neither GDR on nor off for all */
	static const char gdr[] =
		"h:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 7000 / HCA 0 (distance 4 <= 5), read 1 mode Default\n"
		"h:1:1 [1] NCCL INFO GPU Direct RDMA Disabled for GPU 9000 / HCA 3 (distance 9 > 5)\n"
		"# Collective test starting: all_reduce_perf\n"
		"#  Rank  7 Group  0 Pid 1 on node01 device  7 [0x00] NVIDIA H100\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"  1073741824     268435456     float     sum      -1   5639.0  190.41  333.22      0   5640.0  190.38  333.16      0\n";
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("gdr.txt", gdr, strlen(gdr), &set, &d));
	CHECK((set.nt.ev & CCS_EV_GDR) && (set.nt.ev & CCS_EV_NO_GDR) == 0 && strstr(set.nt.evidence, "GPUDirect RDMA on"));
	ccs_meas_set_release(&set);
}

/* What NCCL's lines and settings say of the transports (calibrate/ntinfo.h):
 * the rings' summary, a channel line, the network named or fallen back
 * from, the settings a command line or NCCL's echo states. */
static void test_evidence(void)
{
	struct ccs_meas_set set;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	/* NCCL's ring summary: GDR 0 is GPUDirect off (unless sockets, which
	 * clear it anyway); GDR 1 overrides the NET/IB line's silence */
	static const char *const ring[] = {
		"h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n",
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:1.2.3.4<0>\n"
		  "h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n",
		"h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0\n"
		  "h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n",
		/* NCCL's network named, no channel line: GPUDirect unknown */
		"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:1.2.3.4<0>\n",
		"h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n",
	};
	static const char tab[] =
		"#  Rank 15 Group  0 Pid 1 on node02 device  7 [0x00] NVIDIA H100\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"  1073741824     268435456     float     sum      -1  12000.0   89.48  167.77      0  12000.0   89.48  167.77      0\n";
	for (int i = 0; i < 5; i++) {
		char txt[1024];
		snprintf(txt, sizeof txt, "%s%s", ring[i], tab);
		memset(&set, 0, sizeof set);
		CHECK(!ccs_ingest_text("ring.txt", txt, strlen(txt), &set, &d));
		unsigned ev = set.nt.ev & (CCS_EV_GDR | CCS_EV_NO_GDR);
		if (i == 0)
			CHECK(ev == CCS_EV_NO_GDR && strstr(set.nt.evidence, "GPUDirect RDMA off (NCCL's rings say GDR 0, ring.txt:1)"));
		else if (i == 1)
			CHECK(ev == CCS_EV_GDR && strstr(set.nt.evidence, "(GDR 1, ring.txt:2)") && !strstr(set.nt.evidence, "off"));
		else if (i == 2)
			CHECK(ev == 0 && (set.nt.ev & CCS_EV_SOCKET) && !strstr(set.nt.evidence, "GDR 0"));
		else if (i == 3)
			CHECK(ev == 0 && (set.nt.ev & CCS_EV_RDMA) && strstr(set.nt.evidence, "NCCL's network is RDMA (ring.txt:1)"));
		else
			CHECK(ev == CCS_EV_NO_GDR && strstr(set.nt.evidence, "GPUDirect RDMA off (NET/IB without GDRDMA, ring.txt:1)"));
		ccs_meas_set_release(&set);
	}
	/* what NCCL's settings and its newer lines say: sockets (IB off by
	 * setting, NCCL_NET=Socket, "Using network Socket", no IB device),
	 * GPUDirect off (NCCL_NET_GDR_LEVEL=LOC or 0), P2P off (host memory);
	 * a setting to another value says nothing */
	static const struct {
		const char *line;
		unsigned ev;
	} said[] = {
		{ "$ mpirun -x NCCL_IB_DISABLE=1 ./all_reduce_perf -b 1G -e 1G\n", CCS_EV_SOCKET },
		{ "h:1:1 [0] NCCL INFO NCCL_NET set by environment to socket\n", CCS_EV_SOCKET },
		{ "h:1:1 [0] NCCL INFO Using network Socket\n", CCS_EV_SOCKET },
		{ "h:1:1 [0] NCCL INFO NET/IB : No device found.\n", CCS_EV_SOCKET },
		{ "h:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n", CCS_EV_SOCKET },
		{ "h:1:1 [0] NCCL INFO Using network IBext_v8\n", CCS_EV_RDMA },
		{ "$ NCCL_NET_GDR_LEVEL=LOC srun ./all_reduce_perf\n", CCS_EV_NO_GDR },
		{ "h:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to 0\n", CCS_EV_NO_GDR },
		{ "$ mpirun -x NCCL_P2P_DISABLE=1 ./all_reduce_perf\n", CCS_EV_SHM },
		{ "$ mpirun -x NCCL_IB_DISABLE=0 -x NCCL_NET_GDR_LEVEL=PXB -x NCCL_P2P_DISABLE=0 ./all_reduce_perf\n", 0 },
	};
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
		char txt[1024];
		snprintf(txt, sizeof txt, "%s%s", said[i].line, tab);
		memset(&set, 0, sizeof set);
		CHECK(!ccs_ingest_text("said.txt", txt, strlen(txt), &set, &d));
		CHECK(set.nt.ev == said[i].ev);
		if (set.nt.ev != said[i].ev)
			fprintf(stderr, "'%s': ev %#x, want %#x\n", said[i].line, set.nt.ev, said[i].ev);
		ccs_meas_set_release(&set);
	}
}

/* The collective from the columns, or refused where they cannot tell. */
static void test_from_columns(void)
{
	static char buf[8192];
	struct ccs_nt_log l;
	struct ccs_diag d;
	/* without the command line: the columns (busbw / algbw 1.75, sum) */
	wrap(buf, sizeof buf, run_ar, 1, "");
	memset(&d, 0, sizeof d);
	CHECK(!ccs_nt_parse("saved.txt", buf, strlen(buf), NULL, &l, &d) && !strcmp(l.tab[0].coll, "allreduce"));
	ccs_nt_release(&l);
	/* columns: reduce_scatter (sum, below algbw), broadcast (root 0);
	 * all_gather and alltoall (none, below) cannot be told apart */
	const char *rs = "   134217728       4194304     float     sum      -1   480.5  279.33  244.41      0   479.9  279.68  244.72      0\n";
	const char *bc = "   134217728      33554432     float    none       0   480.5  279.33  279.33      0   479.9  279.68  279.68      0\n";
	const char *ag = "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
	                 "   134217728       4194304     float    none      -1   480.5  279.33  244.41      0   479.9  279.68  244.72      0\n";
	memset(&d, 0, sizeof d);
	CHECK(!ccs_nt_parse("a.txt", rs, strlen(rs), NULL, &l, &d) && !strcmp(l.tab[0].coll, "reducescatter"));
	ccs_nt_release(&l);
	CHECK(!ccs_nt_parse("a.txt", bc, strlen(bc), NULL, &l, &d) && !strcmp(l.tab[0].coll, "broadcast"));
	ccs_nt_release(&l);
	/* a machine staging through host memory, 1.35 GB/s busbw on 8 ranks:
	 * the rank count still comes from busbw over size / time */
	const char *slow = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	                   "  1073741824     268435456     float     sum      -1  1391930    0.77    1.35      0  1391930    0.77    1.35      0\n";
	struct ccs_meas_set set;
	memset(&d, 0, sizeof d);
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("all_reduce_perf.log", slow, strlen(slow), &set, &d) && set.n == 2 && set.m[0].ranks == 8);
	ccs_meas_set_release(&set);
	/* ... and with a name that says nothing, the collective from its
	 * columns too (busbw over size / time: 1.75, not 1 within the digits) */
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("saved/slow.txt", slow, strlen(slow), &set, &d) && set.n == 2 && set.m[0].ranks == 8 &&
	      !strcmp(set.m[0].name, "allreduce"));
	ccs_meas_set_release(&set);
	/* a busbw of 0.01 cannot tell allreduce from sendrecv */
	const char *crawl = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	                    "        1024           256     float     sum      -1    100.0    0.01    0.01      0    100.0    0.01    0.01      0\n";
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_text("saved/crawl.txt", crawl, strlen(crawl), &set, &d) == CCS_EINPUT &&
	      strstr(d.msg, "no row fast enough"));
	ccs_meas_set_release(&set);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	CHECK(ccs_ingest_text("saved/ag.txt", ag, strlen(ag), &set, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "saved/ag.txt:2:1: which collective?") && strstr(d.msg, "all_gather or alltoall") &&
	      strstr(d.msg, "-c"));
	ccs_meas_set_release(&set);
}

/* What the user says of a log that does not (ingest -c, -n, --ppn), and
 * a log that says otherwise refused. */
static void test_told(void)
{
	const char *ag = "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
	                 "   134217728       4194304     float    none      -1   480.5  279.33  244.41      0   479.9  279.68  244.72      0\n";
	const char *slow = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	                   "  1073741824     268435456     float     sum      -1  1391930    0.77    1.35      0  1391930    0.77    1.35      0\n";
	struct ccs_meas_set set;
	struct ccs_diag d;
	/* -c says what the log does not: allgather, 8 ranks from busbw/algbw
	 * (244.41 / 279.33 = 7/8), 2 nodes of --ppn 4 */
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	set.told.coll = CCS_COLL_ALLGATHER + 1;
	set.told.ppn = 4;
	CHECK(!ccs_ingest_text("saved/ag.txt", ag, strlen(ag), &set, &d) && set.n == 2 &&
	      !strcmp(set.m[0].name, "allgather") && set.m[0].ranks == 8 && set.m[0].nodes == 2);
	ccs_meas_set_release(&set);
	/* ... and refused where the log says otherwise: its busbw / algbw says
	 * allreduce, or 8 ranks, or 8 ranks do not fill nodes of 3 */
	memset(&set, 0, sizeof set);
	set.told.coll = CCS_COLL_ALLGATHER + 1;
	CHECK(ccs_ingest_text("saved/slow.txt", slow, strlen(slow), &set, &d) == CCS_EINPUT &&
	      strstr(d.msg, "saved/slow.txt:2:1: the log says allreduce") && strstr(d.msg, "-c says allgather") && !set.n);
	ccs_meas_set_release(&set);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	set.told.coll = CCS_COLL_ALLGATHER + 1;
	set.told.ranks = 4;
	CHECK(ccs_ingest_text("saved/ag.txt", ag, strlen(ag), &set, &d) == CCS_EINPUT &&
	      strstr(d.msg, "shows 8 ranks (its busbw / algbw), -n says 4"));
	ccs_meas_set_release(&set);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	set.told.coll = CCS_COLL_ALLTOALL + 1;
	set.told.ppn = 3;
	CHECK(ccs_ingest_text("saved/ag.txt", ag, strlen(ag), &set, &d) == CCS_EINPUT &&
	      strstr(d.msg, "8 ranks do not fill nodes of --ppn 3"));
	ccs_meas_set_release(&set);
	/* allreduce on the 8 ranks a Rank line shows would print busbw 7/4 of
	 * algbw, not 7/8 */
	char ag8[512];
	snprintf(ag8, sizeof ag8, "#  Rank  7 Group  0 Pid 1 on a device  7 [0x00] NVIDIA H100\n%s", ag);
	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	set.told.coll = CCS_COLL_ALLREDUCE + 1;
	CHECK(ccs_ingest_text("saved/ag.txt", ag8, strlen(ag8), &set, &d) == CCS_EINPUT &&
	      strstr(d.msg, "busbw / algbw is 0.875; allreduce on 8 ranks prints 1.750"));
	ccs_meas_set_release(&set);
}

/* A log copied from a rendered Markdown page: every '#' of nccl-tests'
 * lines lost (a line starting with '#' is a heading there): its Rank lines
 * still give the host and 8 ranks, its header the columns, its footer the
 * average; a second test after it starts a second table. */
static void test_dehashed(void)
{
	const char *text =
	    "mpirun -np 8 all_reduce_perf -b 32M -e 64M -f 2\n"
	    " nThread 1 nGpus 1 minBytes 33554432 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
	    "\n"
	    " Using devices\n"
	    "   Rank  0 Group  0 Pid 4001 on     boxA device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
	    "   Rank  7 Group  0 Pid 4008 on     boxA device  7 [0xbd] NVIDIA A100-SXM4-80GB\n"
	    "\n"
	    "                                                       out-of-place                       in-place\n"
	    "       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	    "        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
	    "    33554432       8388608     float     sum      -1    250.0  134.22  234.88      0    251.0  133.68  233.95      0\n"
	    "    67108864      16777216     float     sum      -1    460.0  145.89  255.31      0    461.0  145.57  254.75      0\n"
	    " Out of bounds values : 0 OK\n"
	    " Avg bus bandwidth    : 244.72\n"
	    "\n"
	    " Collective test starting: broadcast_perf\n"
	    " nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
	    "   Rank  0 Group  0 Pid 4001 on     boxA device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
	    "       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	    "    33554432       8388608     float    none       0    200.0  167.77  167.77      0    201.0  166.94  166.94      0\n";
	struct ccs_nt_log l;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int rc = ccs_nt_parse("issue-paste.txt", text, strlen(text), NULL, &l, &d);
	CHECK(!rc);
	if (rc) {
		fprintf(stderr, "%s\n", d.msg);
		return;
	}
	CHECK(!strcmp(l.host, "boxA") && l.nrow == 3 && l.ntab == 2);
	CHECK(l.ntab == 2 && l.tab[0].ranks == 8 && !strcmp(l.tab[0].coll, "allreduce") && !strcmp(l.tab[1].coll, "broadcast"));
	CHECK_NEAR(l.avg_busbw_Bps, 244.72e9, 1e-12);
	CHECK(l.nrow == 3 && l.row[2].size == 33554432u);
	ccs_nt_release(&l);
}

/* The nodes a run spans: the hosts its Rank lines name, where every rank
 * has its line (2 hosts x 2 ranks: 2; a quote that kept 2 of 8 lines:
 * unknown; two 1-rank processes that each print rank 0: unknown). */
static void test_hosts(void)
{
	static const char *const heads[] = {
		"#  Rank  0 Group  0 Pid 1 on a device  0 [0x00] NVIDIA H100\n#  Rank  1 Group  0 Pid 2 on a device  1 [0x00] NVIDIA H100\n"
		"#  Rank  2 Group  0 Pid 3 on b device  0 [0x00] NVIDIA H100\n#  Rank  3 Group  0 Pid 4 on b device  1 [0x00] NVIDIA H100\n",
		"#  Rank  0 Group  0 Pid 1 on a device  0 [0x00] NVIDIA H100\n#  Rank  3 Group  0 Pid 4 on b device  1 [0x00] NVIDIA H100\n",
		"#  Rank  0 Group  0 Pid 1 on a device  0 [0x00] NVIDIA H100\n#  Rank  0 Group  0 Pid 9 on b device  0 [0x00] NVIDIA H100\n",
	};
	static const int want[] = { 2, 0, 0 };
	static const char *const row[] = {
		"   134217728      33554432     float     sum      -1   1000.0  134.22  201.33      0   1000.0  134.22  201.33      0\n",
		"   134217728      33554432     float     sum      -1   1000.0  134.22  201.33      0   1000.0  134.22  201.33      0\n",
		"   134217728      33554432     float     sum      -1   1000.0  134.22    0.00      0   1000.0  134.22    0.00      0\n",
	};
	for (int i = 0; i < 3; i++) {
		char txt[2048];
		snprintf(txt, sizeof txt, "$ mpirun ./all_reduce_perf -b 128M -e 128M\n%s"
		         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n%s",
		         heads[i], row[i]);
		struct ccs_meas_set set;
		struct ccs_diag d;
		memset(&set, 0, sizeof set);
		memset(&d, 0, sizeof d);
		CHECK(!ccs_ingest_text("hosts.txt", txt, strlen(txt), &set, &d));
		CHECK(set.n == 2 && set.m[0].nodes == want[i]);
		if (set.n && set.m[0].nodes != want[i])
			fprintf(stderr, "case %d: nodes %d ranks %d, want %d\n", i, set.m[0].nodes, set.m[0].ranks, want[i]);
		ccs_meas_set_release(&set);
	}
}

/* Two runs in one file, a copy cut inside its last row, a crash log, a
 * position behind a prefix. */
static void test_odd_files(void)
{
	static char buf[8192];
	struct ccs_nt_log l;
	struct ccs_diag d;
	struct ccs_meas_set set;
	const char *ag = "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
	                 "   134217728       4194304     float    none      -1   480.5  279.33  244.41      0   479.9  279.68  244.72      0\n";
	/* two runs in one file: each table its own collective and ranks */
	size_t o = 0;
	o += (size_t)snprintf(buf + o, sizeof buf - o, "# Collective test starting: all_reduce_perf\n");
	for (int i = 2; run_ar[i]; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s\n", run_ar[i]);
	o += (size_t)snprintf(buf + o, sizeof buf - o, "# Collective test starting: all_gather_perf\n%s", ag + strlen("# size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"));
	memset(&d, 0, sizeof d);
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("two.txt", buf, strlen(buf), &set, &d));
	CHECK(set.n == 6 && !strcmp(set.m[0].name, "allreduce") && !strcmp(set.m[5].name, "allgather"));
	CHECK(set.n == 6 && set.m[0].ranks == 8 && set.m[5].ranks == 8);
	ccs_meas_set_release(&set);
	/* a copy cut inside its last row: the row is skipped with a warning
	 * naming it; a short row with more after it is still an error */
	wrap(buf, sizeof buf, run_ar, 0, "");
	o = strlen(buf);
	snprintf(buf + o, sizeof buf - o, "   268435456      67108864     float     sum      -1   950.1  282");
	memset(&d, 0, sizeof d);
	memset(&set, 0, sizeof set);
	CHECK(!ccs_ingest_text("cut.txt", buf, strlen(buf), &set, &d));
	CHECK(set.n == 4 && set.nwarn == 1 && strstr(set.warn[0], "cut.txt:9:") && strstr(set.warn[0], "log ends inside"));
	ccs_meas_set_release(&set);
	o = strlen(buf);
	snprintf(buf + o, sizeof buf - o, "\n# Avg bus bandwidth    : 275.1\n");
	memset(&d, 0, sizeof d);
	CHECK(ccs_nt_parse("cut.txt", buf, strlen(buf), NULL, &l, &d) == CCS_EINPUT && strstr(d.msg, "cut.txt:9:"));
	/* a crash log: the test's own failure line, with its position */
	const char *crash = "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592\n#\n"
	                    "  0: node01: Test NCCL failure common.cu:1005 'unhandled system error' \n";
	memset(&d, 0, sizeof d);
	CHECK(ccs_nt_parse("crash.txt", crash, strlen(crash), NULL, &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "crash.txt:3:1: no nccl-tests table: the test failed: Test NCCL failure common.cu:1005") != NULL);
	/* a garbled number behind srun's prefix: the column counts the prefix */
	const char *bad = "  0:      1048576        262144     float     sum      -1    30.12   34.8l   60.92      0    29.87   35.10   61.43      0\n";
	memset(&d, 0, sizeof d);
	CHECK(ccs_nt_parse("bad.txt", bad, strlen(bad), NULL, &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "bad.txt:1:70: expected a bandwidth in GB/s (at most 1e7), got '34.8l'") != NULL);
	if (!strstr(d.msg, "bad.txt:1:70:"))
		fprintf(stderr, "%s\n", d.msg);
}

int main(void)
{
	test_nccltests();
	test_as_saved();
	test_from_columns();
	test_told();
	test_stated();
	test_evidence();
	test_odd_files();
	test_dehashed();
	test_hosts();
	test_perftest();
	return CHECK_DONE("test_ingest");
}
