/*
** calibrate/ingest.h: measured logs into plain records.
**
** nccl-tests (every layout since ~2020): data rows are lines whose first
** token is an integer; the schema comes from the `size count type ...`
** header: with or without `redop` and `root`, `#wrong` or `error`, `time`
** or `cputime`.  Each row holds an out-of-place and an in-place half; a
** half may be blank (no in-place variant) or N/A.  Units as printed: time
** [us], algbw and busbw [GB/s = 1e9 B/s], stored here in seconds and B/s.
** The collective comes from, in order: "# Collective test starting:
** X_perf"; a command line anywhere in the log naming X_perf (mpirun ...
** ./all_reduce_perf -b 8 ...); the caller's hint or the file name; the
** columns: a root of 0 or more is broadcast (redop none) or reduce, busbw
** above algbw allreduce, below it reduce_scatter (redop sum) or, with redop
** none, all_gather or alltoall, which the columns cannot tell apart (nor
** sendrecv from allreduce on 2 ranks, where busbw = algbw).  Ranks come from
** the "#  Rank" lines.  Launcher prefixes (srun --label, mpirun
** --tag-output, pdsh, kubectl --timestamps, torchrun --tee) are cut from
** every line (lines.h); NCCL's INFO and
** WARN lines and other chatter between rows are skipped.  A log without a
** table says so with the test's own failure line when it has one.
**
** perftest (ib_{write,send,read}_{bw,lat}): the table after the ` #bytes`
** header.  Bandwidth columns are labelled MB/sec or MiB/sec (both 2^20 B/s:
** perftest divides by 0x100000) or Gb/sec (1e9 bit/s); latencies in us,
** one-way for write and send (perftest halves the round trip), the round
** trip for read.  Warning lines inside the table are skipped; a run that
** stops mid-sweep on an error keeps the sizes it finished and names the
** error.
**
** ccsim-bench (the benches' own logs, calibrate/bench_*.c*): a first line
** "# ccsim-bench 1", "# key: value" lines of metadata, then one record per
** line of key=value tokens:
**   name=h2d class=pcie size=1048576 iters=200 median=4.1e-05 min=4.0e-05
**   max=4.6e-05 unit=s devices=0 host=dgx01 driver=550.54.15 runtime=12040
** name, size, iters, median and unit are required; unit is s, ms, us or ns
** and times are per operation.  A record that is cut short or garbled is
** skipped with a warning naming its line; a log with no record is an error.
**
** Errors name source:line:column: a row whose token count does not fit the
** header, a token that is not a number, a log with no table.
**
** All four (with ccsim-profiler logs, below) become measurements (struct
** ccs_meas): one per size and variant, time per operation in seconds, the
** link class it measures (nvlink, pcie, hbm, gpu, ib, roce; "nccl" for
** collectives).
*/
#ifndef CCS_INGEST_H
#define CCS_INGEST_H

#include "ntinfo.h"

#include "../model/ccs.h"

#include <stddef.h>
#include <stdint.h>

struct ccs_nt_half {
	int valid;                  /* 0: blank, N/A, or numbers that contradict themselves (kept out) */
	int bad;                    /* the latter (ccs_nt_inconsistent says why) */
	double time_s, algbw_Bps, busbw_Bps;
	double wrong;               /* nccl-tests' #wrong (0 where not printed) */
};

struct ccs_nt_row {
	uint64_t size, count;
	char type[16], redop[16];
	int root;                   /* -1: none or not printed */
	struct ccs_nt_half half[2]; /* out-of-place, in-place */
	int line;
	int tab;                    /* its table (run) in the log */
};

/* One run's table: several runs saved in one file (a script looping over
 * the tests) are several tables.  A run starts at its "# nThread" line, its
 * "starting:" line, a "#  Rank" line, a table header or a command naming a
 * test, whichever comes first after the previous table's rows. */
struct ccs_nt_table {
	char coll[32];              /* "allreduce" ... (model/coll.h cli names), "" unknown */
	char coll_why[160];         /* when coll is "": what the columns leave open */
	char cmd[32];               /* the collective its command line names, "" none */
	int ranks;                  /* highest "#  Rank" + 1, or from busbw / algbw; 0 unknown */
	int line;                   /* its first line */
	int rank_lines, hosts;      /* its "#  Rank" lines, the distinct hosts they name */
	int nodes;                  /* hosts, where every rank has its line; 0 unknown */
};
#define CCS_NT_MAXTAB 64

struct ccs_nt_log {
	struct ccs_nt_table tab[CCS_NT_MAXTAB];
	int ntab;
	uint64_t host_hash[1024];   /* the current table's hosts (FNV-1a of their names) */
	char fail[200];             /* the test's own failure line ("Test NCCL failure ..."), "" none */
	char cut[256];              /* the last line, cut short inside a row and skipped: why, with its position */
	struct ccs_ntinfo info;     /* what NCCL's lines say of its transports and settings (ntinfo.h) */
	int fail_line;
	char host[64];              /* host of rank 0, "" unknown */
	int cputime;                /* times are -C CPU times */
	double avg_busbw_Bps;       /* footer, -1 when absent */
	struct ccs_nt_row *row;
	size_t nrow;
	/* halves kept out because their numbers contradict themselves or
	 * nccl-tests marked them wrong, and rows that repeat an earlier row of
	 * their table exactly (several tasks' output interleaved): how many,
	 * the first one's line and why */
	int nbad, bad_line, ndup, dup_line;
	char bad_why[160];
};

/* Parse text[0..len) of nccl-tests output named src (for messages).
 * coll_hint: the collective when the log does not say (NULL: from src's
 * file name, e.g. all_reduce_perf.log).  CCS_EINPUT with d set, CCS_ENOMEM;
 * on failure out holds nothing to free. */
int  ccs_nt_parse(const char *src, const char *text, size_t len, const char *coll_hint, struct ccs_nt_log *out,
                  struct ccs_diag *d);
void ccs_nt_release(struct ccs_nt_log *l);
/* Why half h of a row of size bytes contradicts itself, written into buf
 * (and returned), or NULL when it does not. */
const char *ccs_nt_inconsistent(const struct ccs_nt_half *h, uint64_t size, char *buf, size_t n);

enum { CCS_PF_BW, CCS_PF_LAT };

struct ccs_pf_row {
	uint64_t bytes, iters;
	double peak_Bps, avg_Bps, rate_Mpps;            /* bandwidth tests */
	double t_min_s, t_max_s, t_typ_s, t_avg_s;      /* latency tests (t_typ: median) */
	int line;
};

struct ccs_pf_log {
	int kind;                   /* CCS_PF_BW or CCS_PF_LAT */
	char verb[16];              /* write, send, read, "" unknown */
	int round_trip;             /* latencies are round trips (read) */
	char device[64];
	char link[8];               /* "ib", "roce" (Link type : IB / Ethernet), "" unknown */
	struct ccs_pf_row *row;
	size_t nrow;
	/* the test's own failure line ("Completion with error at client",
	 * "Failed status 12: ...", "Couldn't post send", "Failed to complete
	 * run_iter_bw ..."): the first, with its line and column; "" none.
	 * The rows before it are kept: they ran. */
	char fail[160];
	int fail_line, fail_col;
};

int  ccs_pf_parse(const char *src, const char *text, size_t len, struct ccs_pf_log *out, struct ccs_diag *d);
void ccs_pf_release(struct ccs_pf_log *l);

/* ccsim-bench records. */
struct ccs_bl_rec {
	char name[32], cls[16], devices[48];
	uint64_t size, iters;
	double median_s, min_s, max_s;   /* min/max NAN when absent */
	int line;
};

struct ccs_bl_log {
	char host[64], versions[192];    /* "driver=... runtime=..." as the log gives them */
	struct ccs_bl_rec *rec;
	size_t nrec;
	char **warn;                     /* "src:line:col: ... skipped", ccs_malloc'd */
	size_t nwarn;
};

int  ccs_bl_parse(const char *src, const char *text, size_t len, struct ccs_bl_log *out, struct ccs_diag *d);
void ccs_bl_release(struct ccs_bl_log *l);

/* ccsim-profiler logs (calibrate/nccl/profiler.c): "# ccsim-profiler 1",
** "# host: H", then one line per collective of a job:
**   coll comm=HASH ranks=N nodes=M rank=R seq=S func=AllReduce count=C
**   type=ncclFloat32 algo=RING proto=SIMPLE channels=K place=oop|ip
**   start_ns=T0 time_ns=T clock=gpu|host
** func, count, type, ranks, nodes and time_ns are required; a record cut
** short or garbled is skipped with a warning naming its line.  Sizes are
** counted as nccl-tests counts them (AllGather: count x ranks x type size;
** ReduceScatter the same); ingest groups the records of one collective,
** type, placement, rank count and size into one measurement (source
** "profiler"): the median, fastest and slowest of their times. */
struct ccs_pl_rec {
	int coll;                   /* enum ccs_coll */
	uint64_t size;
	char type[16], algo[16], proto[16];
	int ranks, nodes, inplace;
	double time_s;
	int line;
	int host_clock;             /* clock=host: not a kernel time (skipped) */
};

struct ccs_pl_log {
	char host[64];
	struct ccs_pl_rec *rec;
	size_t nrec;
	size_t nhost;               /* clock=host records skipped */
	char **warn;
	size_t nwarn;
};

int ccs_pl_parse(const char *src, const char *text, size_t len, struct ccs_pl_log *out, struct ccs_diag *d);
void ccs_pl_release(struct ccs_pl_log *l);
/* 0 when x and y are records of one series (collective, type, placement,
 * ranks, size); ccs_pl_sort orders by series, then time. */
int ccs_pl_series(const struct ccs_pl_rec *x, const struct ccs_pl_rec *y);
void ccs_pl_sort(struct ccs_pl_log *l);

/* One measurement, whatever log it came from. */
struct ccs_meas {
	char source[12];            /* "nccl-tests", "profiler", "perftest", "bench" */
	char name[32];              /* allreduce ... | rdma_write_bw, rdma_send_lat ... | h2d, p2p_write ... */
	char cls[16];               /* link class measured; "nccl" for collectives */
	char variant[24];           /* nccl-tests: "oop float" / "ip bf16"; perftest: "rtt" for round trips */
	char devices[48];
	uint64_t size, iters;
	int ranks;                  /* nccl-tests, 0 unknown */
	int nodes;                  /* nccl-tests: the hosts its Rank lines name, 0 unknown */
	double median_s, min_s, max_s;  /* time per operation; min/max NAN unknown */
	double busbw_Bps;           /* nccl-tests; NAN otherwise */
	int line;                   /* in file */
	char file[96];              /* the log's base name */
	char flag[96];              /* why it is kept out of fits and checks (numbers that contradict
	                             * themselves), stored with it; "" used */
};

struct ccs_meas_set {
	struct ccs_meas *m;
	size_t n, cap;
	char host[64];              /* first host any log named, "" none */
	char versions[192];
	struct ccs_ntinfo_sum nt;   /* what the logs' NCCL lines say (ntinfo.h): the evidence */
	char **warn;                /* lines skipped, with positions */
	size_t nwarn;
	/* what the user says of nccl-tests logs that do not (ingest -c, -n,
	 * --ppn): the collective (CCS_COLL_ + 1), the ranks, the ranks per
	 * node; 0 not said.  A log that says otherwise is refused. */
	struct { int coll, ranks, ppn; } told;
};

enum { CCS_LOG_NONE, CCS_LOG_NCCL, CCS_LOG_PERFTEST, CCS_LOG_BENCH, CCS_LOG_PROFILER };

/* Whether m times a collective (nccl-tests or a profiled job): the rows
 * collective fits, checks and diagnoses read. */
int ccs_meas_is_coll(const struct ccs_meas *m);

/* Which kind of log text is (CCS_LOG_NONE: none of them). */
int ccs_log_kind(const char *text, size_t len);

/* Parse the log in path, whatever its kind, and append its measurements
 * to set.  CCS_EINPUT (d names the file and line), CCS_EIO, CCS_ENOMEM; on
 * failure set keeps what it held before. */
int  ccs_ingest_file(const char *path, struct ccs_meas_set *set, struct ccs_diag *d);
/* The same for text already read (src names it in messages). */
int  ccs_ingest_text(const char *src, const char *text, size_t len, struct ccs_meas_set *set, struct ccs_diag *d);
void ccs_meas_set_release(struct ccs_meas_set *set);

/* A log is at most this many bytes (256 MiB): /dev/zero or a runaway file
 * is refused, not read until memory runs out. */
#define CCS_INGEST_MAX_FILE (256u << 20)
/* Read a whole file into a NUL-terminated buffer the caller frees:
 * CCS_EIO with d set when it cannot be read. */
int ccs_ingest_read_file(const char *path, char **text, size_t *len, struct ccs_diag *d);

#endif
