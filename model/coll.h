/*
** model/coll.h: the vocabulary of collectives, as NCCL and nccl-tests name it.
**
** Sizes follow nccl-tests: `size` is max(send, recv) bytes of one rank, so
** for AllGather and ReduceScatter it is the whole gathered buffer, n x the
** per-rank count (ccs_coll_shape rounds a requested size as nccl-tests does).
**   algbw = size / time;  busbw = algbw x factor, with factor
**     AllReduce 2(n-1)/n;  AllGather, ReduceScatter, AllToAll (n-1)/n;
**     Broadcast, Reduce, SendRecv 1.
** busbw is the per-rank rate on the busiest link of an ideal ring, so it
** compares across n.  Units: bytes, seconds, bytes/second.
*/
#ifndef CCS_COLL_H
#define CCS_COLL_H

#include <stddef.h>
#include <stdint.h>

enum ccs_coll { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER,
                CCS_COLL_BROADCAST, CCS_COLL_REDUCE, CCS_COLL_ALLTOALL,
                CCS_COLL_SENDRECV, CCS_COLL_N };

/* NCCL's algorithms first (NCCL_ALGO names), then the MPI classics. */
enum ccs_algo { CCS_ALGO_RING, CCS_ALGO_TREE, CCS_ALGO_NVLS, CCS_ALGO_NVLS_TREE,
                CCS_ALGO_COLLNET_DIRECT, CCS_ALGO_COLLNET_CHAIN, CCS_ALGO_PAT,
                CCS_ALGO_RHD, CCS_ALGO_RD, CCS_ALGO_BRUCK, CCS_ALGO_DIRECT,
                CCS_ALGO_PAIRWISE, CCS_ALGO_HIER, CCS_ALGO_ONESHOT, CCS_ALGO_TWOSHOT,
                CCS_ALGO_N };
#define CCS_ALGO_NCCL_N CCS_ALGO_RHD   /* algorithms NCCL itself has */

enum ccs_proto { CCS_PROTO_LL, CCS_PROTO_LL128, CCS_PROTO_SIMPLE, CCS_PROTO_N };

enum ccs_redop { CCS_OP_SUM, CCS_OP_PROD, CCS_OP_MAX, CCS_OP_MIN, CCS_OP_AVG,
                 CCS_OP_MULSUM, CCS_OP_N };

struct ccs_dtype {
	const char *name;           /* nccl-tests spelling */
	int size;                   /* bytes per element */
};

extern const char *const ccs_coll_name[CCS_COLL_N];      /* AllReduce ... */
extern const char *const ccs_coll_cli[CCS_COLL_N];       /* allreduce ... */
extern const char *const ccs_proto_name[CCS_PROTO_N];    /* LL, LL128, Simple */
extern const char *const ccs_redop_name[CCS_OP_N];

/* What an algorithm is, one row each (adding one: a row here, its cost
 * term in model/cost_term.c's term_of[], its builder in sim/sched/build.c's
 * builders[]):
 *   name, alias    how it is written (parsers, NCCL_ALGO, reports)
 *   nccl           NCCL's own id for it (NCCL_ALGO_*: the tuner's mapping and
 *                  the row of NCCL's tables it takes), -1 for ccsim's own
 *                  (they take NCCL's ring rows)
 *   colls, only    the collectives its schedule implements, and what to say
 *                  of the others
 *   mem            how GPU memory bounds it: per byte it copies or reduces
 *                  (both engines), not at all (NVLink SHARP's switches
 *                  reduce), or its kernel's own figure (the closed form's
 *                  kernel time; the simulator times the kernel whole)
 *   nvls_channels  runs on NCCL's NVLS channels, not the ring's count */
enum ccs_algo_mem { CCS_ALGO_MEM_BYTES, CCS_ALGO_MEM_SWITCH, CCS_ALGO_MEM_KERNEL };
struct ccs_algo_desc {
	const char *name;
	const char *alias[4];       /* NULL-terminated */
	int nccl;
	unsigned colls;             /* bit per enum ccs_coll */
	const char *only;
	int mem;                    /* enum ccs_algo_mem */
	int nvls_channels;
};
extern const struct ccs_algo_desc ccs_algo_desc[CCS_ALGO_N];
/* The algorithm NCCL calls id (NCCL_ALGO_*), -1 none. */
int ccs_algo_of_nccl(int id);

/* Parsers, case-insensitive, accepting NCCL's and nccl-tests' spellings
 * (all_reduce, allreduce, AllReduce; collnetdirect, collnet_direct; f8e4m3,
 * fp8, ...).  Return the index, or -1. */
int ccs_coll_parse(const char *s);
int ccs_algo_parse(const char *s);
int ccs_proto_parse(const char *s);
int ccs_redop_parse(const char *s);
/* NCCL_ALGO / NCCL_PROTO's grammar (protos: 1 for NCCL_PROTO): sections
 * "coll:list" or "list" separated by ';', items by ','; a leading '^'
 * negates the list ("allreduce:tree;ring", "^LL128").  The mask of
 * 1 << CCS_ALGO_* (CCS_PROTO_*) it allows for coll, all_mask when no
 * section applies; -1 on an unknown name, copied into bad. */
long ccs_coll_env_mask(const char *s, int coll, int protos, unsigned all_mask, char *bad, size_t badn);
const struct ccs_dtype *ccs_dtype_parse(const char *s);
/* Names for messages: a comma-separated list of valid spellings. */
const char *ccs_dtype_list(void);

/* Whether the collective reduces (has a redop), has a root. */
int ccs_coll_reduces(int coll);
int ccs_coll_rooted(int coll);

/* nccl-tests busbw factor for n ranks. */
double ccs_busbw_factor(int coll, int n);

/* NCCL's double binary tree over G positions.  Tree 0 is an in-order
 * binary tree whose root is position 0 (one child) and whose edges mostly
 * join neighbours: the parent of k is k with its lowest set bit moved up
 * one place, or cleared when that leaves the range.  Tree 1 is the same
 * over mirrored positions (G even) or positions shifted by one (G odd), so
 * that a position inner in one tree is a leaf in the other.
 * ccs_btree_parent: parent position of k in tree 0, -1 at the root.
 * ccs_btree_place: the group at position k of tree t (0 or 1). */
int ccs_btree_parent(int k, int G);
int ccs_btree_place(int t, int k, int G);
/* Each group's edges in the two trees: deg[g] = d0 + (d1 << 16), for g
 * in [0, G) (overwritten). */
void ccs_btree_degrees(int G, int32_t *deg);

/* nccl-tests shape of a requested size: the element count column and the
 * bytes actually moved (size column), for n ranks and element size esz. */
void ccs_coll_shape(int coll, int n, uint64_t req_bytes, int esz, uint64_t *count, uint64_t *bytes);

/* Parse an nccl-tests size: 8, 64K, 1M, 8G (K/M/G powers of 1024), also
 * 16MiB / 1GB style units.  Returns 0, -1 (not a size) or -2 (above
 * CCS_SIZE_MAX). */
#define CCS_SIZE_MAX (1ull << 53)   /* 8 PiB: exact in a double, and in SQLite's integers */
int ccs_parse_nccl_size(const char *s, uint64_t *out);

#endif
