/*
** sim/cli/cli.h: shared pieces of the `ccsim` command line.
**
** Every command accepts --set key.path=value (or --set=key.path=value), any
** number of times, applied in order to the topology before it is read, and
** --fault SPEC (model/fault.h), applied to the built topology after the
** file's own 'faults'.
** Exit status: 0 success, 1 bad input or failed check, 2 bad usage.
*/
#ifndef CCS_CLI_H
#define CCS_CLI_H

#include "../../model/escape.h"

#include <stddef.h>
#include <stdio.h>

struct ccs_topo;
struct ccs_comm;

struct ccs_args_sets {
	int n, cap;
	char **v;                   /* borrowed from argv, or owned below */
	char **owned;               /* "faults+=SPEC" made from --fault SPEC */
	int nowned;
};

void ccs_args_sets_init(struct ccs_args_sets *s);
void ccs_args_sets_release(struct ccs_args_sets *s);
/* If argv[*i] is a --set option, record it (advancing *i past its value)
 * and return 1; return 0 if it is not; -1 (message printed) on error. */
int  ccs_args_set(struct ccs_args_sets *s, int argc, char **argv, int *i);
/* The options every command shares, at argv[*i]: --set and --fault (as
 * ccs_args_set) and -h/--help (help(stdout) printed).  CCS_ARGS_NONE:
 * neither, parse on; CCS_ARGS_TOOK: taken, go to the next argument;
 * CCS_ARGS_HELP: help printed, stop with success; -1: message printed. */
enum { CCS_ARGS_NONE, CCS_ARGS_TOOK, CCS_ARGS_HELP };
int  ccs_args_shared(struct ccs_args_sets *s, int argc, char **argv, int *i, void (*help)(FILE *));
/* Flush stdout; print a message and return -1 if writing failed. */
int  ccs_args_flush(void);
/* Write path whole or not at all: fill(f, ctx) (non-zero: it failed) into
 * PATH.tmp.PID beside it, then renamed over path, so a reader never sees
 * half of it and a kill leaves the old file.  0, or -1 after "me: cannot
 * write 'PATH': why" with the temporary file removed. */
int  ccs_args_write_atomic(const char *me, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);
/* 1 (after saying so) when t has faults that strike during a run ('@'),
 * which only ccsim predict and simulate time; 'what' names the command. */
int  ccs_args_refuse_timed(const char *what, const struct ccs_topo *t);
/* The topology file at path with the --set list applied: 0, or -1 after
 * printing the loader's message (it names file:line:column).  With me set,
 * faults that strike during a run are refused as ccs_args_refuse_timed does
 * (-1; *t is still set and the caller frees it). */
int  ccs_args_topo(const char *me, const char *path, const struct ccs_args_sets *s, struct ccs_topo **t);
/* NCCL's variables that change the hardware it uses, applied to t
 * (nccl_env.c: NCCL_COLLNET_ENABLE, NCCL_P2P_DISABLE, NCCL_NET_GDR_LEVEL,
 * NCCL_IB_DISABLE, NCCL_NET; NCCL_SHM_DISABLE said to be not modelled):
 * 0, or -1 after a message naming the variable. */
int  ccs_nccl_env_topo(const char *me, struct ccs_topo *t);
/* ccs_comm_build with its reason printed as "me: why": 0 or -1. */
int  ccs_args_comm(const char *me, const struct ccs_topo *t, int nranks, int ppn, struct ccs_comm *c);
/* A flag's value as a whole number in [lo, hi] or a real in [lo, hi]:
 * 0, or -1 with "me: 'flag' must be ..." printed. */
int  ccs_args_int(const char *me, const char *flag, const char *v, long lo, long hi, int *out);
int  ccs_args_real(const char *me, const char *flag, const char *v, double lo, double hi, double *out);
/* argv[*i] as one of the n options in names that take a value: advance *i
 * past the value and set *v; else print "me: unknown option 'X' for WHAT
 * (see me WHAT --help)" or "'X' needs a value" and return -1. */
int  ccs_args_value(const char *me, const char *what, int argc, char **argv, int *i, const char *const *names, size_t n,
                   const char **v);

/* Options as a table (git's parse-options): one row per flag, what kind of
 * value it takes and where it goes.
 *   FLAG   no value; *(int *)dest = 1
 *   STR    *(const char **)dest = the value
 *   INT    *(int *)dest, a whole number in [lo, hi] (ccs_args_int's message)
 *   REAL   *(double *)dest, a number in [lo, hi] (ccs_args_real's)
 *   NAME   *(int *)dest = the index of the value in names[0..nnames)
 *          ("unknown KEY 'v'; one of: a, b", KEY the row's key)
 *   FN     fn(me, row, value): 0, or -1 with its message printed; with a
 *          key ("own") fn also hears of a missing value (NULL) and says
 *          what it needs
 * A missing value is "me: 'X' needs a value" (STR: "needs KEY" when the row
 * has a key). */
enum { CCS_ARGS_FLAG, CCS_ARGS_STR, CCS_ARGS_INT, CCS_ARGS_REAL, CCS_ARGS_NAME, CCS_ARGS_FN };
struct ccs_args_opt {
	const char *flag;
	int kind;
	void *dest;
	double lo, hi;
	const char *const *names;
	int nnames;
	const char *key;
	int (*fn)(const char *me, const struct ccs_args_opt *o, const char *v);
};
/* argv[*i] as a row of opts: take its value (advancing *i) and store it.
 * 0 on success; -1 with the message printed when the value is missing or
 * bad, or the flag is in no row: "me: unknown option 'X' for WHAT (see me
 * WHAT --help)", or with what NULL "me: unknown option 'X' (see me --help)". */
int ccs_args_take(const char *me, const char *what, const struct ccs_args_opt *opts, size_t n, int argc, char **argv,
                  int *i);
/* Its parts: the row of flag (NULL: none), the value stored by row o (0,
 * or -1 after a message), and the unknown-option message (returns -1). */
const struct ccs_args_opt *ccs_args_find(const struct ccs_args_opt *opts, size_t n, const char *flag);
int ccs_args_store(const char *me, const struct ccs_args_opt *o, int argc, char **argv, int *i);
int ccs_args_unknown(const char *me, const char *what, const char *flag);
/* The same with the nearest of the n known flags cands (did you mean ...). */
int ccs_args_unknown_near(const char *me, const char *what, const char *flag, const char *const *cands, int n);

int ccs_cmd_topo(int argc, char **argv);
/* `topo show`'s text for t (counts, bandwidths, fabric): 0, or CCS_ENOMEM. */
int ccs_topo_show_text(FILE *f, const struct ccs_topo *t);
/* diagnose: fault hypotheses against measured logs (sim/cli/cmd_diagnose.c) */
int ccs_cmd_diagnose(int argc, char **argv);
/* step: one training step's communication (sim/cli/cmd_step.c) */
int ccs_cmd_step(int argc, char **argv);
/* simulate --job ...: several jobs on one fabric (sim/cli/cmd_jobs.c) */
int ccs_cmd_jobs(int argc, char **argv);
/* compare and report (sim/cli/cmd_report.c) */
int ccs_cmd_compare(int argc, char **argv);
int ccs_cmd_report(int argc, char **argv);
/* calibrate run|ingest|fit|show|diff|check (sim/cli/cmd_calibrate.c) */
int ccs_cmd_calibrate(int argc, char **argv);
int ccs_cmd_predict(int argc, char **argv);
int ccs_cmd_simulate(int argc, char **argv);
/* predict / simulate for -c dispatch, combine, alltoallv (sim/cli/cmd_moe.c) */
int ccs_cmd_moe(int argc, char **argv, int sim);
/* predict / simulate for -c kvcache (sim/cli/cmd_kv.c) */
int ccs_cmd_kv(int argc, char **argv, int sim);
/* ccsim merge OUT.db SHARD.db... (sim/cli/cmd_merge.c) */
int ccs_cmd_merge(int argc, char **argv);
/* ccsim params [-t TOPO]: the parameter table (sim/cli/cmd_params.c) */
int ccs_cmd_params(int argc, char **argv);
int ccs_cmd_synth(int argc, char **argv);
/* ccsim run SCENARIO (sim/cli/cmd_run.c) */
int ccs_cmd_run(int argc, char **argv);

#endif
