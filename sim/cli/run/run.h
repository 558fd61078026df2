/*
** sim/cli/run/run.h: the parts of `ccsim run SCENARIO.yaml` (cmd_run.c), one
** file each:
**   scenario.c   the scenario file: designs and workloads read and checked with positions
**   cell.c       one point: a design's communicator against one workload, closed form and simulator
**   timeline.c   link utilisation over time of a simulated point (the heatmap's data)
**   sweep.c      sweep axes: topology scalars and workload fields, their combinations and hashes
**   exec.c       running the points in workers and storing their results as they come
**   output.c     the summary tables printed after a study
**   plots.c      the study's plots: busbw vs size, time vs an axis, where time goes, heatmaps
**   shard.c      the points split into shards by their keys' hash (--shard K/N), and which a database holds
**   slurm.c      a Slurm job array of shards and its dependent merge job (--slurm)
**   mpi.c        the points handed out over MPI, rank 0 storing them (--mpi; MPI comes from a plugin)
** A scenario is several designs (a topology, its overrides, ranks) against
** several workloads (MoE dispatch/combine, KV-cache transfers, or a
** collective at a size), swept over axes; each (design instance, workload
** instance) is a point, stored in the SQLite results (calibrate/store.h)
** under its key and resumed from there (docs/scenarios.md).
*/
#ifndef CCS_RUN_H
#define CCS_RUN_H

#define _DEFAULT_SOURCE
#include "../../../calibrate/ingest.h"
#include "../../../calibrate/store.h"
#include "../../../model/kv.h"
#include "../../../model/moe.h"
#include "../../../model/topo_yaml.h"
#include "../../../model/ytree.h"
#include "../../sim.h"
#include "../../fabric.h"
#include "../../flow.h"
#include "../plot.h"
#include "../runner.h"
#include "../cli.h"

#include <stdio.h>

#define DNAN ((double)NAN)

/* A scenario's limits (docs/scenarios.md, "Limits"); going past one is an
 * input error at the node that does, naming the limit.  Keys and the
 * results table hold the whole text, never a cut one. */
#define CCS_RUN_MAX_AXES   32        /* sweep axes of the scenario */
#define CCS_RUN_MAX_POINTS 1000000   /* points: design instances x workload instances */
#define CCS_RUN_NAME_MAX   80        /* a design's or a workload's name, in bytes */
#define CCS_RUN_AXES_MAX   160       /* the axis text of one instance ("nodes=16 ...") */

struct design {
	const struct ccs_ynode *node;
	const char *name, *topo;
	char path[2100];
	const char *sets[32];
	char setbuf[32][256];
	int nsets;
	long ranks, ppn;
	struct ccs_topo *t;
	struct ccs_comm c;
	int built;
};

struct work {
	const struct ccs_ynode *node;
	const char *name;
	int moe, kv, op, coll, algo, proto; /* algo, proto -1: auto */
	int synth;                   /* algo: synth (a schedule made for the design, sim/synth/synth.h) */
	long ranks;                  /* 0: the design's */
	uint64_t bytes;
	struct ccs_moe_cfg cfg;
	struct ccs_kv_cfg kvc;
};

/* One cell: time, algorithm, bottleneck bandwidth (MoE) or busbw. */
struct timeline;

struct cell {
	double t_model, t_sim, bw;
	double lat_s, bwterm_s, step_s;   /* the closed form's terms (collectives; NAN otherwise) */
	int bound;                        /* enum ccs_bound, -1 unknown */
	char algo[48];
	struct timeline *tl;              /* record link utilisation of the simulation (may be NULL) */
};

#define TL_LINKS 12
#define TL_BINS 48
#define TL_MAX_EVENTS 2000000u

struct tl_ev {
	ccs_time t;
	uint32_t res;
	float util;
};

struct timeline {
	char path[1200];            /* the .dat to write */
	const char *title;
	struct tl_ev *ev;
	size_t nev, cap;
	int overflow;                  /* past TL_MAX_EVENTS: no heatmap */
	int nomem;                     /* out of memory: the run fails */
	const struct ccs_fabric *fab;
};

/* An axis: a topology scalar (key as for --set), a field of every workload
 * ("workload.KEY"), or a list inside one workload (local). */
struct axis {
	const char *key;            /* --set key, or the workload key */
	const struct ccs_ynode *at; /* for messages */
	int workload;
	uint32_t n;
	const struct ccs_ynode **val;
};

/* A design on one combination of the topology axes. */
struct inst {
	int design;
	char axes[CCS_RUN_AXES_MAX + 1];  /* "nodes=16 scaleout.oversubscription=2" */
	char hash[24];
	struct ccs_topo *t;
	struct ccs_comm c;
	int built;
};

/* A workload on one combination of its axes. */
struct winst {
	int work;
	char axes[CCS_RUN_AXES_MAX + 1];
	struct work w;
};

struct point {
	int inst, wi;
	int heat;                   /* the last point of its (instance, workload): draws the heatmap */
	int done;                   /* in the database before this run */
	size_t ord;                 /* its place among the scenario's points (before --shard keeps some) */
	char key[512];              /* design=NAME|workload=NAME|AXES: at most 499 bytes */
};

struct job {
	struct ccs_result r;
	char err[256];
};

struct scen {
	const char *name, *path;
	int engine, plots;
	char outdir[1024];
	struct design *gs;
	int ng;
	struct work *ws;            /* as written (names, nodes) */
	int nw;
	struct axis *ax;            /* global: topology axes first, then workload ones */
	int nax, ntopo_ax;
	struct axis *lax;           /* local axes of every workload, grouped */
	int *lax_off;               /* per workload, nw + 1 offsets into lax */
	int nwy;                    /* workloads in the file (lax_off has nwy + 1) */
	struct inst *inst;
	size_t ninst;
	struct winst *wi;
	size_t nwi;
	struct point *pt;
	size_t npt;
	int32_t *at;                /* ninst x nwi: the point of (instance, workload instance), -1 left out */
	struct ccs_store *db;
	int64_t scen_id;
	struct ccs_result *pending;
	size_t npending, cap_pending;
	size_t failed, stored, skipped;
	double last_flush;
};

struct plots {
	char (*name)[200];
	size_t n, cap;
};

/* A step's outcome (cmd_run.c runs them in turn): go on, or stop with the
 * scenario's positioned message (CCS_STEP_DIAG: in the document's diag),
 * out of memory, a message already printed (the exit status kept), or done
 * early. */
enum { CCS_STEP_OK, CCS_STEP_DIAG, CCS_STEP_OOM, CCS_STEP_FAIL, CCS_STEP_DONE };

/* points.c: the study's points, made and checked before anything runs.
 * count: designs x topology combinations x workload instances against
 * CCS_RUN_MAX_POINTS, before any topology is built; designs: each design on
 * each combination of the topology axes (--set overrides, a 'faults' value
 * split into faults+= ones), loaded and its communicator built; workloads:
 * each workload on each combination of the global and its own axes; make:
 * their cross product, each point checked (one whose algorithm or protocol
 * came from a list and does not apply is left out, another is an error at
 * its workload).  Each returns a CCS_STEP_ outcome. */
struct ccs_points {
	struct scen *S;
	struct ccs_ydoc *doc;
	const struct ccs_ynode *root;
	uint32_t *idx;              /* the axes' value indices being combined */
};
int ccs_points_count(struct ccs_points *P);
int ccs_points_designs(struct ccs_points *P);
int ccs_points_workloads(struct ccs_points *P);
int ccs_points_make(struct ccs_points *P);

/* scenario.c */
int ccs_scenario_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *fmt, ...) CCS_PRINTF(3, 4);
int ccs_scenario_load_design(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *dir, int quick, struct design *g);
int ccs_scenario_load_work(struct ccs_ydoc *d, const struct ccs_ynode *m, struct work *w);

/* cell.c */
int ccs_cell_kv_check(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, char *err,
                    size_t errn);
int ccs_cell_run(const struct ccs_topo *t, const struct ccs_comm *gc, long ppn, const struct work *w, int engine,
                    struct cell *out, char *err, size_t errn);

/* timeline.c */
int ccs_timeline_run(struct timeline *tl, struct ccs_fabric *fab, const struct ccs_sched *s, struct ccs_sim_stats *st,
                  char *err, size_t errn);

/* sweep.c */
int ccs_sweep_listed_algo(const struct scen *S, int w);
void ccs_sweep_topo_hash(const struct ccs_topo *t, char out[24]);
void ccs_sweep_file_hash(const char *text, size_t len, char out[24]);
int ccs_sweep_axis_from(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a);
int ccs_sweep_sizes_axis(struct ccs_ydoc *d, const struct ccs_ynode *k, const struct ccs_ynode *v, struct axis *a,
                      int quick);
int ccs_sweep_load_work_with(struct ccs_ydoc *d, const struct ccs_ynode *m, int nov, const char *const *keys,
                          const struct ccs_ynode *const *vals, struct work *w);
int ccs_sweep_next_combo(const struct axis *a, int n, uint32_t *idx);
/* "k=v k=v" of the axes at idx into out; 1 when it does not fit (out then
 * holds a cut text that must not be used). */
int ccs_sweep_axes_text(const struct axis *a, int n, const uint32_t *idx, char *out, size_t outn, int strip_workload);

/* exec.c */
int ccs_exec_compute(void *ctx, size_t task, void *res);
int ccs_exec_flush_results(struct scen *S);
int ccs_exec_collect(void *ctx, size_t task, int rc, const void *res);

/* output.c */
int ccs_output_by_key(const void *a, const void *b);
const struct ccs_result *ccs_output_find_result(const struct ccs_result *rs, size_t n, const char *key, const char *hash);
const struct ccs_result *ccs_output_res_at(const struct scen *S, const struct ccs_result **res, size_t inst, size_t wi);
double ccs_output_shown_t(const struct scen *S, const struct ccs_result *r);
void ccs_output_print_tables(const struct scen *S, const struct ccs_result **res);
void ccs_output_print_grid(const struct scen *S, const struct ccs_result **res);

/* shard.c */
/* The shard (0..n-1) of the point with this key. */
size_t ccs_shard_of(const char *key, size_t n);
/* Keep only the points of shard k of n (S->pt compacted, S->at rebuilt). */
void ccs_shard_keep(struct scen *S, size_t k, size_t n);
/* Of the points pts[0..npts) (a shard's), how many db lacks for the
 * scenario of this file hash and ccsim version (*missing); db need not
 * exist. */
int ccs_shard_missing(const struct scen *S, const char *hash, const size_t *pts, size_t npts, const char *db,
                      size_t *missing, struct ccs_diag *d);

/* slurm.c: --slurm and its options */
struct ccs_slurm {
	int on, submit;
	long shards;                /* 0: the default */
	const char *dir, *partition, *account, *time, *extra[8];
	int nextra;
};
/* Option argv[*i] when it is one of --slurm's: 1 (consumed, *i advanced
 * past its value), 0 not one, -1 after a message. */
int ccs_slurm_arg(struct ccs_slurm *o, int argc, char **argv, int *i);
/* The job array's and the merge job's scripts for scenario S (file path,
 * file hash), results into db, -j jobs per task, engine and --quick as
 * given (NULL, 0: the file's); with o->submit, submitted through sbatch.
 * 0, or 1 after a message. */
int ccs_slurm_write(const struct scen *S, const struct ccs_slurm *o, const char *path, const char *hash, const char *db,
                    int jobs, const char *engine, int quick);

/* mpi.c: run under mpirun (--mpi) */
/* MPI started through the plugin next to the binary: *rank, *size; 0, or
 * 1 after a message. */
int ccs_mpi_start(int *argc, char ***argv, int *rank, int *size);
/* Rank 0: hand out todo[0..n) (slowest first) to the other ranks, storing
 * their results (ccs_exec_collect); *done gets the number stored.  Other
 * ranks: compute what rank 0 sends until it says stop.  CCS_RUN_*. */
int ccs_mpi_run(struct scen *S, size_t *todo, size_t n, size_t *done);
void ccs_mpi_stop(int failed);

/* plots.c: per design, busbw against size (closed form and simulated in
 * one colour per series: solid and dashed); time against each swept axis;
 * where the time of each design's last point goes; link heatmaps.
 * compare.c: per workload, busbw against size of every design on one chart. */
int ccs_plots_busbw(const struct scen *S, const struct ccs_result **res, struct plots *P);
int ccs_plots_compare(const struct scen *S, const struct ccs_result **res, struct plots *P);
/* Series s's busbw (GB/s; and simulated with both engines) of workload w
 * on instance in at each of the nsz sizes into val (size-major, wcol per
 * series); keep[s] whether it has any.  Returns how many have. */
size_t ccs_plots_busbw_values(const struct scen *S, const struct ccs_result **res, size_t in, size_t first,
                              size_t stride, uint32_t nsz, size_t nser, int both, double *val, char *keep);
/* Workload w's series against its size axis sz: the first workload
 * instance, the stride of the size axis among them, how many series. */
void ccs_plots_series(const struct scen *S, int w, int sz, size_t *first, size_t *stride, size_t *nser);
/* A series' label: its workload axes but the size, values only ("ring ll128"). */
void ccs_plots_series_label(const char *ax, char *txt, size_t n);
/* A size row's first columns: bytes and the tic's label (every tenth of many). */
void ccs_plots_size_row(FILE *f, const struct scen *S, int sz, uint32_t zi);
int ccs_plot_add(struct plots *P, const char *name);
FILE *ccs_plots_dat_open(const struct scen *S, const char *name);
int ccs_plots_axes(const struct scen *S, const struct ccs_result **res, struct plots *P);
int ccs_plots_breakdown(const struct scen *S, const struct ccs_result **res, struct plots *P);
int ccs_plots_heat(const struct scen *S, struct plots *P);
int ccs_plots_mkdirs(const char *path);

/* labels.c: a scenario key in words ("workload.ranks" -> "ranks",
 * "node.devices.3.bandwidth" -> "bandwidth of node device 3"); axes
 * "k=v k=v" as "K v, K v"; a label broken into lines of about width. */
void ccs_label_key(const char *key, char *out, size_t n);
void ccs_label_axes(const char *axes, char *out, size_t n);
void ccs_label_wrap(const char *in, int width, char *out, size_t n);

#endif
