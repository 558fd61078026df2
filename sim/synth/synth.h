/*
** sim/synth/synth.h: schedules synthesized for a topology (docs/synthesis.md).
**
** The fabric as the simulator routes it: a transfer from rank u to rank v
** crosses the resources R(u, v) (sim/fabric.h; a sprayed transfer 1/K of
** its bytes on each of K paths), resource e of capacity c_e [B/s].
**
** AllGather of N bytes on n ranks: rank r's shard (N / n bytes) reaches
** every rank along spanning out-trees T rooted at r, a share w(r, T) of it
** along each, sum_T w(r, T) = 1.  ReduceScatter: the same over in-trees
** (each rank sends its partial of shard r toward r, reduced on the way).
** The trees' loads bound the time:
**   a(e, T) = sum over tree edges (u, v) of T of the share of R(u, v) on e
**   tau >= (N / n) sum_{r,T} w(r, T) a(e, T) / c_e      for every e
** and the linear program
**   minimize tau  over w >= 0, tau
**   subject to  sum_T w(r, T) = 1                         (dual y_r)
**               sum_{r,T} w(r, T) a(e, T) <= tau c_e / (N / n)   (dual -p_e <= 0)
** gives the throughput-optimal packing of such trees: its tau is the LP
** bound, the time no schedule of trees over these routes can beat when
** latency, chunking and the solver's sharing are left out.  There are
** exponentially many trees, so the program is solved by column generation:
** a tree T rooted at r improves it when its reduced cost
**   sum_{(u,v) in T} k(u, v) - y_r < 0,   k(u, v) = sum_e p_e share(R(u, v), e),
** and the cheapest tree for each root is a minimum-cost arborescence
** (Chu-Liu/Edmonds, synth_arbo.c) under the costs k; when no root has one,
** the packing is optimal (or, stopped early, within the Lagrangian gap
** tau + sum_r min(0, min_T rc(r, T)) of it).  AllReduce is a ReduceScatter
** then an AllGather of each shard, both trees' loads in one program (their
** phases overlap when pipelined), so its bound is that program's tau.
** AllToAll is a multi-commodity flow: pair (s, d)'s N / n bytes along
** paths, direct or through one relay m, priced per pair as
** min(k(s, d), min_m k(s, m) + k(m, d)) - y_(s,d).
**
** Lowering (synth_plan.c): each shard in K chunks, a tree given round(K w)
** of them (largest remainders), each chunk pipelined down its tree; a
** rank's sends to one peer on one channel in one thread block, its
** receives from one peer in another, each block's steps in the order its
** chunks are expected ready (a key that grows along every path, so that no
** block waits on one that waits on it and both ends of a pair agree).
** That is an MSCCL algorithm (its XML, read by sim/sched/msccl.c) and an
** MSCCL++ execution plan (JSON, put / signal / wait, sim/sched/mscclpp.c);
** the schedule YAML of the same ops is written from the plan directly, so
** that each export, read back, is checked to the picosecond.
*/
#ifndef CCS_SYNTH_H
#define CCS_SYNTH_H

#include "../fabric.h"

/* ccs_synth_make's candidates: the LP's optimum, its optimum crossing
 * groups on rails only, the first trees alone (two levels), chains along
 * rings alone (NCCL's rings' pipelines, weighed by the program). */
enum { CCS_SYNTH_OPT, CCS_SYNTH_RAILS, CCS_SYNTH_FIRST, CCS_SYNTH_CHAINS, CCS_SYNTH_NCAND };

/* A tree of a packing: parent[v] (-1 for the root) of every rank, its
 * share w of its root's shard and the chunks it was given. */
struct ccs_synth_tree {
	int root;
	int phase;                  /* 0: in-tree (ReduceScatter's), 1: out-tree (AllGather's, AllToAll's) */
	int dst;                    /* AllToAll: the path's destination (parent -2 for the ranks it leaves out); else -1 */
	int32_t *parent;
	double w;
	int chunks;                 /* its slots of the shard (ccs_synth_slot), consecutive after the trees
	                               before it of its root and phase */
	int fine;                   /* the chunks of the shard those slots hold */
	int nl;                     /* its load: load[i] bytes on fabric resource res[i] per byte of its share */
	uint32_t *res;
	double *load;
};

struct ccs_synth_cfg {
	int coll;                   /* CCS_COLL_ALLGATHER, _REDUCESCATTER, _ALLREDUCE or _ALLTOALL */
	double bytes;               /* N, nccl-tests' size */
	int max_iter;               /* column generation rounds (0: 400, 60 beyond 128 ranks; -1: none, the first trees only) */
	double gap;                 /* stop once the Lagrangian bound is within this share (0: 0.5%) */
	int rails;                  /* trees cross groups only between ranks at the same place (a rail) */
	int chains;                 /* first trees: chains along rings that cross groups on rails (else two levels) */
};

struct ccs_synth {
	int n, coll;
	double bytes;
	double lp_s;                /* the LP bound of its trees for bytes [s] */
	double opt_lp_s;            /* the program's optimum over all trees (ccs_synth_make) [s] */
	/* ccs_synth_make's candidates (the optimum, the optimum on the rails,
	 * the first trees): each one's bound and simulated time, and which it
	 * kept */
	double cand_lp_s[CCS_SYNTH_NCAND], cand_sim_s[CCS_SYNTH_NCAND];
	int kept;
	int converged;              /* 1: no improving tree left; 2: within gap of the optimum; 0: the round limit */
	double gap;                 /* how far above the optimum its bound may be, at most (a share) */
	int iters, cols;            /* rounds and trees generated */
	int ntree;
	struct ccs_synth_tree *tree;   /* the trees with a share */
	uint32_t bottleneck;        /* the busiest resource at the optimum */
	int32_t *group, *nics;      /* per rank: its group, its best NICs (a channel c across groups takes NIC c mod nics) */
	uint8_t *nic_own;           /* per rank: bit i set where its i-th NIC is its own among the ranks sharing
	                               it (ccs_synth_pack: shared NICs dealt out in turn), 0: none */
	double *hop_lat, *hop_sB;   /* per pair (u n + v): a transfer's latency [s] and time per byte at its
	                               narrowest resource [s/B], averaged over the channels' routes */
	/* the lowering (ccs_synth_chunk) */
	int K, C;                   /* chunks per shard (graded: the fine ones), channels inside a group
	                               (across: one per NIC) */
	int cin;                    /* C chosen by ccs_synth_make (0: U, at most 32) */
	int spread;                 /* across groups, a pair's chunks over one NIC take C / k channels (else one) */
	int bare_hop;               /* in-trees keyed by depth, one longest hop a level (the first pass), not
	                               again with a network hop as its NICs' sharing makes it (synth_plan.c
	                               second_pass) */
	int all_nics;               /* across groups every NIC a rank may use, not only its own (nic_own) */
	int grade;                  /* tried with a shard's first and last chunks cut finer (ccs_synth_chunk) */
	int U, L;                   /* as lowered: slots a shard, 2^L chunks a whole one (L 0: K slots of one) */
	double bytes_lowered;       /* the run's size they were chosen for */
	double round_s;             /* the bound of the rounded shares (chunks / K) for bytes [s] */
};

/* Pack trees for cfg on fabric f (communicator c).  CCS_EINPUT with err (a
 * collective it does not synthesize, one rank, no route between two
 * ranks), CCS_ENOMEM, CCS_EFIT (the solver failed, err says how). */
int  ccs_synth_pack(struct ccs_fabric *f, const struct ccs_comm *c, const struct ccs_synth_cfg *cfg,
                    struct ccs_synth *out, char *err, size_t errn);
void ccs_synth_release(struct ccs_synth *s);
/* Lower s for a run of bytes (K, C as ccs_synth_chunk) into p (released
 * first) and simulate it on f for communicator c: *time_s.  CCS_EINPUT
 * (err: why the run failed), CCS_ENOMEM. */
struct ccs_synth_plan;
int ccs_synth_sim(struct ccs_synth *s, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K, int C,
                  struct ccs_synth_plan *p, double *time_s, char *err, size_t errn);
/* Pack the candidates: the program's optimum, its optimum with trees that
 * cross groups only on rails, its first trees alone (two levels: the root
 * to its group and to one rank of each other group, on its rail), and
 * chains along rings alone (a ring per place in a group, each leaving a
 * group and entering the next on one rail; every root's pipeline along
 * each, weighed by the program); AllToAll: the optimum and the direct
 * paths.  Each is simulated lowered for cfg->bytes; when C is 0, each
 * within twice the fastest is tried again with C = 4 and 1 channels
 * (out->cin) and, across groups, a pair's chunks over one NIC spread over
 * C / k channels (out->spread); the fastest is kept in out (force >= 0:
 * candidate force, whatever the times).  An optimum's bound may not
 * survive the sharing the LP leaves out: on two aws-p5 nodes the
 * unrestricted optimum sends chunks across the network twice to spare
 * NVLink and simulates at twice its bound; on eight PCIe GPUs its stars
 * simulate 50% above the bound that rings reach.  With one group the
 * rails are the optimum, not tried again.  Errors as ccs_synth_pack. */
/* About how many ops the schedule of a coll over n ranks at K chunks a
 * shard is written as: n (n - 1) K transfers a phase, 2 ops each on
 * out-trees and AllToAll's paths, 4 on in-trees, 6 for AllReduce. */
double ccs_synth_ops(int coll, int n, int K);
/* The most ops a synthesized schedule may have, refused before any
 * packing beyond: its YAML, about 100 MB (CCS_SCHED_MAX_FILE), is read
 * back in about 4 GB (about 17 YAML nodes an op; 128 aws-p5en ranks at 32
 * chunks a shard, 1.04 M ops: 4.0 GB and 10 s for `ccsim simulate
 * --schedule`, 4.5 GB for `ccsim synth`). */
#define CCS_SYNTH_MAX_OPS (1 << 20)
int ccs_synth_make(struct ccs_fabric *f, const struct ccs_comm *c, const struct ccs_synth_cfg *cfg, int K, int C, int force,
                   struct ccs_synth *out, char *err, size_t errn);

/* Round the shares into K chunks a shard (largest remainders per root and
 * phase) over C channels (chunk slot s on channel s mod C), for a run of
 * bytes; round_s from caps (the fabric's nres capacities; HUGE_VAL when
 * memory ran out).  K 0: one chunk per 64 KiB of shard, from 1 to 64,
 * and no more than keeps the schedule within CCS_SYNTH_MAX_OPS (n (n - 1) K
 * transfers a phase, 2 ops each out-trees, 4 in-trees, 6 AllReduce); C
 * 0: s->cin, else K up to MSCCL's 32 (MAXCHANNELS).  More channels: a
 * pair's chunks move at once and one's latency overlaps another's bytes;
 * fewer: the chunks that share a link at once all arrive at the end, so
 * the fewer at once, the sooner the first is forwarded.
 * With s->grade (and K >= 2) the shard is cut finer at its ends: each of
 * the K chunks is 2^L fine ones (s->K = K 2^L, L = CCS_SYNTH_GRADE, s->U =
 * K + 2 L slots), the first chunk split into slots of 1, 1, 2, ...,
 * 2^(L-1) fine chunks, the last into 2^(L-1), ..., 2, 1, 1; a tree's
 * chunks end at the slot boundary nearest its rounded share.  Where every
 * stream of a NIC moves at once, max-min sharing lands their last chunks
 * together and what is forwarded after the network is done is a wave of
 * last chunks; graded, that wave is 2^L times smaller for 2 L more ops a
 * transfer, and the first forwards start as soon. */
#define CCS_SYNTH_GRADE 3
void ccs_synth_chunk(struct ccs_synth *s, const double *caps, uint32_t nres, double bytes, int K, int C);
/* Slot u of a shard (ccs_synth_chunk): its first chunk *off and *cnt
 * chunks (s->K a shard). */
void ccs_synth_slot(const struct ccs_synth *s, int u, int32_t *off, int32_t *cnt);

/* The lowered schedule (synth_plan.c): per rank its thread blocks, each a
 * list of steps, as MSCCL writes them. */
enum { CCS_SYNTH_SEND, CCS_SYNTH_RECV, CCS_SYNTH_RRC };
struct ccs_synth_step {
	uint8_t type;
	uint8_t buf;                /* 'i' or 'o': where the chunks are */
	int32_t off, cnt;           /* chunks [off, off + cnt) */
	int32_t dep_tb, dep_step;   /* a step of another block of the rank to wait for (-1: none) */
	double key;                 /* its place in its block (synth_plan.c): when its chunk is expected ready */
	uint64_t tie;
};
struct ccs_synth_tb {
	int32_t send, recv;         /* peers (-1 none): a block sends to one or receives from one */
	int32_t chan;
	uint32_t n;
	size_t cap;
	struct ccs_synth_step *st;
};
struct ccs_synth_plan {
	int n, coll, C;
	int nic_mod;                /* across groups channel c leaves by NIC c mod k, k at most this (1: no group crossed) */
	long nchunks;               /* per loop: n K */
	long i_chunks, o_chunks, s_chunks;
	uint32_t *tb0;              /* rank g's blocks are tb[tb0[g] .. tb0[g + 1]) */
	uint32_t ntb;
	struct ccs_synth_tb *tb;
};

int  ccs_synth_plan_build(const struct ccs_synth *s, struct ccs_synth_plan *p);

/* What a plan asks of MSCCL's runtime, the most over its ranks: thread
 * blocks, steps in a block, chunks in a step, channels, blocks on one
 * channel in one direction, the highest block a step waits on.  The
 * runtime's limits (Azure/msccl-executor-nccl: src/include/msccl/
 * msccl_struct.h at 206e0c49, src/include/device.h at 8959f0e5, the checks
 * of src/misc/msccl/msccl_parser.cc at 3b40a2a8): MSCCL_MAX_NUM_STEPS 64
 * steps a block, MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL 32 blocks sending
 * (and 32 receiving) on a channel, MAXCHANNELS 32 channels, so 32 x 32 =
 * 1024 blocks a rank, a step's count below MSCCL_MAX_COUNT 72, and a
 * dependency's block in an int8_t (dependentBid: at most 127). */
#define CCS_SYNTH_MSCCL_STEPS 64
#define CCS_SYNTH_MSCCL_PER_CHAN 32
#define CCS_SYNTH_MSCCL_CHANS 32
#define CCS_SYNTH_MSCCL_TBS (CCS_SYNTH_MSCCL_PER_CHAN * CCS_SYNTH_MSCCL_CHANS)
#define CCS_SYNTH_MSCCL_CNT 71
#define CCS_SYNTH_MSCCL_DEP_TB 127
struct ccs_synth_fit {
	uint32_t tbs, steps, cnt, chans, per_chan, dep_tb;
};
/* Packing s lowered again, the lowerings tried by ccs_synth_make ranked
 * by whether MSCCL's runtime holds them, then by time: s keeps the best
 * (its cin and spread), *time_s its simulated time at bytes and *fit
 * whether the runtime holds it.  For the MSCCL export of a schedule whose
 * fastest lowering the runtime refuses. */
int ccs_synth_lower_fit(struct ccs_synth *s, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K, int C,
                        double *time_s, int *fit, char *err, size_t errn);
/* *f of plan p as ccs_synth_xml writes it (a block of more than 64 steps
 * in pieces of at most 64, synth_export.c); zero for an empty plan;
 * CCS_ENOMEM. */
int ccs_synth_fit_of(const struct ccs_synth_plan *p, struct ccs_synth_fit *f);
/* 0 when f is within the runtime's limits, else 1 with the first it passes
 * in why ("64 steps in a block (MSCCL's MSCCL_MAX_NUM_STEPS)"). */
int ccs_synth_fit_check(const struct ccs_synth_fit *f, char *why, size_t n);
void ccs_synth_plan_release(struct ccs_synth_plan *p);

/* The plan as text appended to o (o->oom set when memory ran out): an
 * MSCCL algorithm (XML); ccsim's schedule YAML for a run of bytes with the
 * ops msccl.c makes of that XML (each step's receive, reduce and copy,
 * send; reduce 0: no reduce and copy, for a GPU whose memory bandwidth is
 * not known), written independently of it so that the XML read back can
 * be checked against it; an MSCCL++ execution plan (JSON, synth_json.c) and
 * the schedule YAML of the ops mscclpp.c makes of it. */
struct ccs_text;
void ccs_synth_xml(const struct ccs_synth_plan *p, const char *name, struct ccs_text *o);
void ccs_synth_yaml(const struct ccs_synth_plan *p, const char *name, double bytes, int reduce, struct ccs_text *o);
/* The MSCCL++ plan into json and the YAML of its ops for a run of bytes
 * into yaml (either may be NULL).  CCS_EINPUT for AllReduce (its second
 * phase's root sends would wait on another block's reduction, which a plan
 * cannot say), CCS_ENOMEM. */
int  ccs_synth_json(const struct ccs_synth_plan *p, const char *name, double bytes, struct ccs_text *json,
                    struct ccs_text *yaml);

#endif
