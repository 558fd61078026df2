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
	CHECK(l.nrow == 5 && !strcmp(l.coll, "allreduce") && l.ranks == 72);
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
	CHECK(l.nrow == 1 && !strcmp(l.coll, "allgather") && l.ranks == 1 && !strcmp(l.host, "nixos-desktop"));
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
	CHECK(l.nrow == 2 && !strcmp(l.coll, "reducescatter"));
	if (l.nrow == 2) {
		CHECK(l.row[0].half[0].valid && l.row[0].half[1].valid);
		CHECK(!l.row[1].half[0].valid && l.row[1].half[1].valid);
		CHECK_NEAR(l.row[1].half[1].time_s, 41e-6, 1e-12);
	}
	ccs_nt_release(&l);
	/* garbled */
	CHECK(nt("tests/data/calib/bad-nt-number.log", &l, &d) == CCS_EINPUT);
	CHECK(strstr(d.msg, "bad-nt-number.log:2:73: expected a bandwidth in GB/s, got '66.1O'") != NULL);
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

int main(void)
{
	test_nccltests();
	test_perftest();
	return CHECK_DONE("test_ingest");
}
