/*
** sim/sched/sched.h: schedules, the simulator's intermediate representation.
**
** A schedule is a DAG of operations over the ranks of a communicator:
**   XFER   move `bytes` from rank src to rank dst (a flow over the route)
**   NVLS   a rank's multicast/reduce traffic through its scale-up ports
**   DELAY  wait (no traffic)
** Each op pays `delay_s` (hop latency, per-step synchronisation) after its
** last dependency completes, then starts; it completes when its flow has
** moved its bytes and at least `floor_s` after it started (work that
** overlaps the wire, a network proxy handling the op's chunks:
** max(wire, floor)).  ndeps(op) ops must complete before it; succ(op) lists
** the ops that wait for it (at most CCS_SCHED_MAXSUCC).
** Schedules are generated arithmetically where they can be (ring: op id =
** ((channel x steps) + step) x n + position), so that tens of millions of
** ops cost the engine one counter byte each.
**
** Ring (step granularity): in each of C channels the ranks form a ring in
** group order, entering and leaving each group at ranks close to the NIC
** the channel uses (channel c uses the group's (c mod k)-th usable NIC);
** op (c, s, i) sends position i's share of step s to position i+1 and
** depends on (c, s-1, i-1), the data it forwards, as a chunk travels the
** ring; ops sharing a port or NIC share it through the flow solver.
** NVLS (one scale-up domain): each rank moves S (p+1)/p bytes through its
** scale-up ports (S + S/p out to the switch, as much back), as the closed
** form says.
** This header is the IR and what works on any schedule (explicit DAGs,
** lane views, concatenation, renaming); the builders that lower each
** algorithm, a file or a plan into it are declared in build.h.
*/
#ifndef CCS_SCHED_H
#define CCS_SCHED_H

#include "../../model/cost.h"
#include "../time.h"

#define CCS_SCHED_MAXSUCC 64

/* nic_src for PXN: leave through the NIC of the GPU in src's scale-up
 * domain with dst's local index (dst's rail), reached over the scale-up
 * ports; src's own best NIC when there is no such GPU. */
#define CCS_NIC_PXN (UINT32_MAX - 1)

/* XFER src -> dst; NVLS through src's scale-up ports; DELAY waits only;
 * UP / DOWN between src's GPU and its NIC's switch (in-network reduction,
 * nic_src the NIC). */
enum { CCS_OP_XFER, CCS_OP_NVLS, CCS_OP_DELAY, CCS_OP_UP, CCS_OP_DOWN };

struct ccs_op {
	uint8_t kind;
	uint8_t sm;                 /* XFER moved by SM copy loops (DeepEP's kernels):
	                               it also crosses both ranks' copy ports */
	uint8_t by_dst;             /* XFER across groups: routed by its destination as D-mod-k does,
	                               whatever the fabric's routing (fabric.h CCS_FABRIC_WAY_DST): a
	                               merged transfer standing for many hashed flows takes a share of
	                               the paths as even as theirs (a2a_agg.h) */
	int32_t src, dst;
	uint32_t channel;
	uint32_t nic_src, nic_dst;  /* for XFER across groups; UINT32_MAX: best; nic_src CCS_NIC_PXN */
	double bytes;               /* on the wire */
	double delay_s;
	double floor_s;             /* completes no sooner after its start (0: none) */
};

struct ccs_sched;

/* A lane view of a schedule (ccs_sched_ops.lanes; sim/classes.h lumps
 * lanes by the fabric's symmetry): the ops are op(t, l) = id(t, l) for
 * t < T and l < L, lane l's t-th op.  Every op of a lane has the route of
 * op(0, l) (kind, src, dst, NICs, channel, sm); op(t, l) and op(t, l')
 * move the same bytes after the same delay, with the same floor, when key(l) == key(l') and
 * op(0, l), op(0, l') do.  Op(t, l) waits for exactly op(t - dt[j],
 * pred(j, l)) for each kind j < ndep with t >= dt[j] and pred(j, l) not
 * CCS_SCHED_NOLANE; dependencies with dt 0 (within a step) form no cycle.
 * A lane may be shorter (len, may be NULL: every lane has T): lane l has
 * the ops t < len(l) >= 1, and none of them waits for an op past its lane's
 * end (a concatenation's parts, ccs_sched_concat). */
#define CCS_SCHED_MAXDEPK 4
#define CCS_SCHED_NOLANE UINT32_MAX
struct ccs_sched_lanes {
	uint32_t L;
	uint64_t T;
	int ndep;                   /* at most CCS_SCHED_MAXDEPK */
	uint64_t dt[CCS_SCHED_MAXDEPK];
	uint64_t (*id)(const struct ccs_sched *s, uint64_t t, uint32_t l);
	uint32_t (*pred)(const struct ccs_sched *s, int j, uint32_t l);
	uint64_t (*key)(const struct ccs_sched *s, uint32_t l);
	uint64_t (*len)(const struct ccs_sched *s, uint32_t l);
};

/* A schedule kind's callbacks, one static const table per kind (SQLite's
 * io_methods): get fills every field of op id; succ writes the ops that
 * wait for id (at most CCS_SCHED_MAXSUCC) and returns how many; ndeps the
 * ops id waits for; release frees ctx and zeroes the schedule; mem (may be
 * NULL: mem_per_byte) whether op id is charged on the sender's memory;
 * lanes (may be NULL) its lane view. */
struct ccs_sched_ops {
	void (*get)(const struct ccs_sched *s, uint64_t id, struct ccs_op *op);
	int (*succ)(const struct ccs_sched *s, uint64_t id, uint64_t *out);
	uint32_t (*ndeps)(const struct ccs_sched *s, uint64_t id);
	void (*release)(struct ccs_sched *s);
	double (*mem)(const struct ccs_sched *s, uint64_t id);
	/* may be NULL: fills *out when the schedule is made of lanes (above),
	 * else returns 0 */
	int (*lanes)(const struct ccs_sched *s, struct ccs_sched_lanes *out);
};

struct ccs_sched {
	uint64_t nops;
	void *ctx;
	const struct ccs_sched_ops *ops;   /* NULL: an empty schedule (zeroed) */
	/* the collective a schedule file says it implements (enum ccs_coll)
	 * and its size as nccl-tests counts it, for algbw and busbw; size 0:
	 * not said */
	int coll;
	double coll_bytes;
	/* GPU memory bytes per byte a transfer sends, charged on the sending
	 * GPU's memory where the fabric has it (a GPU slower than the others:
	 * a straggler); 0: not timed.  Set for NCCL's collectives as the closed
	 * form's memory bound counts it (ccs_cost_mem_per_byte).  Schedules
	 * made of parts (concat, a job's renamed ranks) say per op through
	 * ops->mem; their mem_per_byte is the largest of their parts' (the
	 * capacity is one per run: a copy collective beside a reducing one is
	 * charged as reducing) */
	double mem_per_byte;
	/* the most ops one op releases where that is above CCS_SCHED_MAXSUCC
	 * (a class schedule, sim/classes.h); 0: CCS_SCHED_MAXSUCC */
	uint32_t maxsucc;
};

static inline void ccs_sched_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	s->ops->get(s, id, op);
}

static inline int ccs_sched_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	return s->ops->succ(s, id, out);
}

static inline uint32_t ccs_sched_ndeps(const struct ccs_sched *s, uint64_t id)
{
	return s->ops->ndeps(s, id);
}

static inline double ccs_sched_mem(const struct ccs_sched *s, uint64_t id)
{
	return s->ops && s->ops->mem ? s->ops->mem(s, id) : s->mem_per_byte;
}

/* Free what s holds (nothing when it is empty) and zero it. */
static inline void ccs_sched_release(struct ccs_sched *s)
{
	if (s->ops && s->ops->release)
		s->ops->release(s);
}

/* Explicit schedules (sim/sched/dag.c): ops in an array, numbered as
 * added, and edges between them.  ccs_dag_install builds the successor
 * lists (in edge order) and checks that every op releases at most
 * CCS_SCHED_MAXSUCC ops and waits for at most 255 (else CCS_EINPUT, *bad
 * the first op over) and that no op is on or after a dependency cycle
 * (else CCS_EINPUT, *cycle 1, *bad the first such op); on success s runs
 * the dag and owns it, on failure it is still the caller's to free. */
struct ccs_dag;
int  ccs_dag_new(struct ccs_dag **out);
void ccs_dag_free(struct ccs_dag *d);
int  ccs_dag_op(struct ccs_dag *d, const struct ccs_op *op, uint32_t *id);
const struct ccs_op *ccs_dag_at(const struct ccs_dag *d, uint32_t id);
int  ccs_dag_edge(struct ccs_dag *d, uint32_t from, uint32_t to);
int  ccs_dag_install(struct ccs_dag *d, struct ccs_sched *s, uint32_t *bad, int *cycle);
/* For generated schedules, whose limits hold by construction: install *d
 * into s and clear *d (s owns it); else leave it the caller's with *why set
 * and return CCS_ENOMEM or CCS_EINTERNAL (a limit broken: a bug). */
int  ccs_dag_take(struct ccs_dag **d, struct ccs_sched *s, const char **why);

/* The lane view of a schedule whose nops ops wait for nothing and release
 * nothing: lane l is op l, its only one (T 1, no dependencies, one key; the
 * ops' kind, bytes, delay and route tell the lanes apart).  0 when nops
 * does not fit a lane index. */
int ccs_sched_lanes_single(uint64_t nops, struct ccs_sched_lanes *out);
/* Run the k schedules in parts as one, all starting at time 0 (op j of
 * part p becomes op offset(p) + j).  Takes the parts over (they are
 * released with out, or at once on CCS_ENOMEM). */
int ccs_sched_concat(struct ccs_sched *parts, int k, struct ccs_sched *out);
/* The part of a ccs_sched_concat schedule that op id comes from. */
int ccs_sched_part(const struct ccs_sched *s, uint64_t id);
/* An op_end hook (ctx: struct ccs_part_ends) that keeps the last
 * completion of each part of a ccs_sched_concat schedule in end_s[part]
 * (seconds; the caller zeroes one per part): several jobs' or groups'
 * own times in one run. */
struct ccs_part_ends {
	const struct ccs_sched *s;
	double *end_s;
};
void ccs_part_ends_op_end(void *ctx, uint64_t op, ccs_time t);
/* in with its ranks renamed: its rank r becomes map[r] (a job's or a
 * group's ranks on a world communicator; map outlives out).  Takes in over
 * (released with out, or at once on CCS_ENOMEM). */
int ccs_sched_remap(struct ccs_sched *in, const uint32_t *map, struct ccs_sched *out);

#endif
