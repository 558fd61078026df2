/*
** sim/sched/build.h: the builders, each lowering an algorithm, a schedule
** file or a plan into the schedule IR (sched.h), and the dispatcher that
** picks one for (collective, algorithm, protocol) from its table
** (build.c).
*/
#ifndef CCS_SCHED_BUILD_H
#define CCS_SCHED_BUILD_H

#include "sched.h"

/* Lower (coll, algo, proto) of `bytes` on communicator c with C channels
 * (0: NCCL's count) into s.  Returns CCS_EINPUT with why set when the
 * algorithm has no schedule (yet) for the collective. */
int ccs_sched_build(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes,
                    struct ccs_sched *s, const char **why);
/* As ccs_sched_build with flags: CCS_SCHED_STEP runs the ring at step
 * granularity (each step's share in one transfer per hop, store and
 * forward) instead of NCCL's chunks (the default: each step in NCCL's
 * chunks, at most 16, pipelined hop to hop); CCS_SCHED_NO_PXN sends
 * AllToAll traffic for another rail through the sender's own NIC instead of
 * through the peer on that rail (NCCL's PXN, on by default as in NCCL).
 * The root of Broadcast and Reduce rides in the bits from
 * CCS_SCHED_ROOT_SHIFT up (flags | root << CCS_SCHED_ROOT_SHIFT; 0 when
 * absent).  CCS_SCHED_AGGREGATE asks for the declared approximation
 * `--fidelity aggregate` where a builder has one (AllToAll: a2a_agg.h) and
 * is ignored elsewhere (exact there). */
enum { CCS_SCHED_STEP = 1, CCS_SCHED_NO_PXN = 2, CCS_SCHED_AGGREGATE = 4, CCS_SCHED_ROOT_SHIFT = 8 };
int ccs_sched_build_flags(const struct ccs_comm *c, int coll, int algo, int proto, int channels, uint64_t bytes,
                          int flags, struct ccs_sched *s, const char **why);
/* The schedule of (*algo, *proto), or, when that pair has none (NVLS
 * AllGather ...), of NCCL's next choice among amask and pmask that has
 * one (each pair without one is struck and NCCL's model asked again);
 * *algo and *proto become what was built.  CCS_EINPUT with why of the
 * first pair when none has a schedule. */
int ccs_sched_build_next(const struct ccs_comm *c, int coll, uint64_t bytes, unsigned amask, unsigned pmask,
                         int *algo, int *proto, struct ccs_sched *s, const char **why);


/* Load a schedule written as YAML (sim/sched/file.c, docs/simulator.md),
 * or an MSCCL algorithm's XML moving bytes (msccl.c), for communicator c
 * (hop latencies, memory bandwidth); *ranks gets the
 * ranks it declares.  CCS_EINPUT with "file:line:col: why" in diag on any
 * error, before anything runs. */
struct ccs_diag;
/* The largest schedule file read: a synthesized schedule of the most ops
 * ccsim synth writes (2^20, sim/synth/synth.h) is about 100 MB of YAML
 * (about 97 bytes an op, measured on 128 aws-p5en ranks). */
#define CCS_SCHED_MAX_FILE ((size_t)256 << 20)
int ccs_sched_file_load(const char *path, const struct ccs_comm *c, double bytes, struct ccs_sched *s, int *ranks,
                        struct ccs_diag *diag);
/* The same for a file's text held in memory (YAML, MSCCL XML or an
 * MSCCL++ plan), its messages naming it `name`. */
int ccs_sched_text_load(const char *name, const char *text, size_t len, const struct ccs_comm *c, double bytes,
                        struct ccs_sched *s, int *ranks, struct ccs_diag *diag);
/* An MSCCL algorithm's XML (sim/sched/msccl.c) as schedule YAML for a run
 * of bytes (its chunks: bytes / nchunksperloop); ccs_sched_file_load takes a
 * path to one as it takes YAML.  *yaml is the caller's to ccs_free. */
int ccs_sched_msccl_yaml(const char *name, const char *text, size_t len, double bytes, char **yaml,
                         struct ccs_diag *d);
/* An MSCCL++ execution plan (JSON, parsed as YAML into root with d; the
 * caller checked ccs_sched_mscclpp_is) as schedule YAML for a run of bytes
 * (sim/sched/mscclpp.c); errors at the JSON's positions.  *yaml is the
 * caller's to ccs_free. */
struct ccs_ydoc;
struct ccs_ynode;
int ccs_sched_mscclpp_is(const struct ccs_ynode *root);
int ccs_sched_mscclpp_yaml(struct ccs_ydoc *d, const char *name, const struct ccs_ynode *root, double bytes,
                           char **yaml);

/* Ring AllReduce, AllGather and ReduceScatter, and Broadcast and Reduce as
 * a chain along the ring (sim/sched/ring.c); flags as ccs_sched_build_flags. */
int ccs_sched_ring(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes, int flags,
                   struct ccs_sched *s, const char **why);

/* NVLS inside one scale-up domain, and NVLS-tree across domains
 * (sim/sched/nvls.c). */
int ccs_sched_nvls(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                   const char **why);
int ccs_sched_nvls_tree(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes,
                        struct ccs_sched *s, const char **why);

/* Tree AllReduce (sim/sched/tree.c): chains inside groups, NCCL's double
 * binary tree across them, chunk-pipelined reduce up and broadcast down. */
int ccs_sched_tree(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                   const char **why);

/* NVLS-tree's network part: one double binary tree per member index over
 * the groups' members of that index (each rail its own), S/p each,
 * chunk-pipelined; no chains inside groups (the NVLS part does that). */
int ccs_sched_tree_rails(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                         const char **why);

/* CollNet Direct AllReduce (sim/sched/collnet.c), and NVLS AllReduce
 * across domains with SHARP (algo CCS_ALGO_NVLS): NVLS-like intra op per
 * rank beside each rank's slice going up to the switches and coming back
 * reduced, per chunk, the switch waiting for every member of the rail. */
int ccs_sched_collnet(const struct ccs_comm *c, int algo, int proto, int channels, uint64_t bytes,
                      struct ccs_sched *s, const char **why);

/* CollNet Chain AllReduce (sim/sched/collnet.c): per channel a chain in
 * each group to the head, the heads' sums reduced in the switches, the
 * result back down the chains. */
int ccs_sched_collnet_chain(const struct ccs_comm *c, int proto, int channels, uint64_t bytes, struct ccs_sched *s,
                            const char **why);

/* AllToAll, NCCL's direct algorithm (sim/sched/a2a.c): every pair, 8 peers
 * in flight per rank; coll CCS_COLL_SENDRECV: nccl-tests' sendrecv, each
 * rank sending S to the next.  flags: CCS_SCHED_NO_PXN, and
 * CCS_SCHED_AGGREGATE (AllToAll's sends merged by destination leaf,
 * a2a_agg.h; the others ignore it). */
int ccs_sched_a2a(const struct ccs_comm *c, int coll, int proto, uint64_t bytes, int flags, struct ccs_sched *s,
                  const char **why);

/* Round-by-round schedules (sim/sched/steps.c): recursive doubling,
 * halving-doubling, Bruck, pairwise exchange and hierarchical AllReduce,
 * one peer per round. */
int ccs_sched_steps(const struct ccs_comm *c, int coll, int algo, int proto, uint64_t bytes, struct ccs_sched *s,
                    const char **why);

/* One-shot and two-shot AllReduce in one scale-up domain (sim/sched/shot.c):
 * barriers as DELAY ops, every peer's transfer of a phase at once. */
int ccs_sched_shot(const struct ccs_comm *c, int algo, int proto, uint64_t bytes, struct ccs_sched *s,
                   const char **why);

/* A KV-cache transfer (model/kv.h, sim/sched/kvcache.c): each pair's bytes per
 * layer, released layer by layer as prefill computes them. */
struct ccs_kv_cfg;
struct ccs_kv_plan;
int ccs_sched_kvcache(const struct ccs_comm *c, const struct ccs_kv_cfg *cfg, const struct ccs_kv_plan *p,
                      struct ccs_sched *s, const char **why);

/* An expert-parallel plan (model/moe.h, sim/sched/expert.c): its transfers,
 * forwards chunk-pipelined behind what they forward. */
struct ccs_moe_plan;
int ccs_sched_expert(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_sched *s, const char **why);
/* The same with flags: CCS_SCHED_AGGREGATE lowers the plan with its
 * transfers across groups merged by leaf pair (expert_agg.h), the others
 * are ignored. */
int ccs_sched_expert_flags(const struct ccs_comm *c, const struct ccs_moe_plan *p, int flags, struct ccs_sched *s,
                           const char **why);

#endif
