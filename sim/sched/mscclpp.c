/*
** sim/sched/mscclpp.c: an MSCCL++ execution plan (the JSON its DSL writes
** and its executor reads, microsoft/mscclpp src/core/executor/
** execution_plan.cc) as a schedule in the YAML of file.c (docs/simulator.md,
** "MSCCL++ execution plans").  JSON is YAML, so the plan arrives as a
** parsed tree and every error points into the JSON:
**
**   {"name", "collective", "gpus": [{"id", "input_chunks", ...,
**     "channels": [{"channel_type", "connected_to": [peer ...]}],
**     "remote_buffers": [{"rank", "type", ...}],
**     "threadblocks": [{"id", "ops": [...],
**        "channels": [{"channel_type", "channel_ids": [...]}],
**        "remote_buffer_refs": [{"access_channel_type", "remote_buffer_ids": [...]}]}]}]}
**
** A chunk is S over the larger of the first GPU's input_chunks and
** output_chunks (S: the run's -b, nccl-tests' size: AllGather's output,
** ReduceScatter's input).
** A thread block runs its ops in order.  An op's peers: a channel id
** indexes its thread block's channels of its type, which index the GPU's
** connections (`connected_to`); a buffer's "buffer_id" indexes the thread
** block's remote buffer refs, which index the GPU's remote buffers (their
** rank).  Ops become file.c ops:
**   signal, rlxsignal   an 8-byte flag to each channel's peer
**   wait, rlxwait       its arrival from each channel's peer
**   put                 a transfer of the destination chunks to their owner
**   pws, pwsf           put, then signal the op's channels
**   get                 a transfer from the source's owner to this GPU
**   copy, re            a local copy, a local reduction (memory-bound)
**   rre, res, rres      reads of remote sources, a reduction, writes of
**                       remote destinations, in that order
**   nop, flush          nothing (the thread block's order holds)
** A transfer one GPU starts is received by the other outside its thread
** blocks (one-sided: a put's receive waits for nothing, a get's send waits
** for the reader to reach the get); signals pair with waits by connection: the k-th
** connection from A to B with B's k-th connection to A, as file.c channel
** 1 + k (transfers use channel 0).  Packet ops (ppkt ...), NVLS switch ops
** (glres, gstore), pipelines, semaphores and barriers are refused at their
** position: not modelled yet.
*/
#include "build.h"

#include "../../model/coll.h"
#include "../../model/ytree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CT_MEMORY, CT_PORT, CT_N };
static const char *const ct_name[CT_N] = { "memory", "port" };

/* One GPU's connections and remote buffers, and its thread block's views. */
struct pgpu {
	long id;
	const struct ccs_ynode *conn[CT_N];   /* its connected_to lists (first of each type) */
	const struct ccs_ynode *rbuf;         /* its remote_buffers */
};

struct ptb {
	const struct ccs_ynode *ch[CT_N];     /* the thread block's channel_ids by type */
	const struct ccs_ynode *rb[CT_N];     /* its remote_buffer_ids by type */
};

/* Signals less waits per (signalling GPU, waiting GPU, connection), with
 * the first op that touched it, for a message at the JSON's position. */
struct pair {
	long a, b, k, n;
	const struct ccs_ynode *at;
};

struct pconv {
	struct ccs_ydoc *d;
	struct ccs_text o;
	long ngpus;
	double chunk;
	struct pgpu *g;
	struct pair *pr;
	size_t npr, cappr;
};

static int pair_count(struct pconv *v, long a, long b, long k, long d, const struct ccs_ynode *op)
{
	for (size_t i = 0; i < v->npr; i++)
		if (v->pr[i].a == a && v->pr[i].b == b && v->pr[i].k == k) {
			v->pr[i].n += d;
			return CCS_OK;
		}
	if (ccs_grow(&v->pr, &v->cappr, v->npr + 1, sizeof *v->pr))
		return CCS_ENOMEM;
	v->pr[v->npr++] = (struct pair){ a, b, k, d, op };
	return CCS_OK;
}

/* The message at y's position in the JSON: what, then a (may be "") */
static int at(struct pconv *v, const struct ccs_ynode *y, const char *what, const char *a)
{
	return ccs_diag_at(v->d->diag, y->mark, "%s%s", what, a);
}

/* m[key] where m is a mapping (NULL otherwise: a plan's nodes come from a
 * file, any of them may be a list or a scalar). */
static const struct ccs_ynode *mget(const struct ccs_ynode *m, const char *key)
{
	return m && m->kind == CCS_Y_MAP ? ccs_ytree_get(m, key) : NULL;
}

/* m's whole number key, which must be there, in [lo, hi]. */
static int need_long(struct pconv *v, const struct ccs_ynode *m, const char *key, long lo, long hi, const char *what,
                     long *out)
{
	*out = lo;
	CCS_TRY(ccs_ytree_kind(v->d, m, CCS_Y_MAP, what));
	CCS_TRY(ccs_ytree_need(v->d, m, key, what));
	return ccs_ytree_long(v->d, m, key, lo, hi, out, NULL);
}

/* y[i] of a list of whole numbers in [lo, hi]. */
static int item(struct pconv *v, const struct ccs_ynode *list, long i, long lo, long hi, const struct ccs_ynode *where,
                long *out)
{
	if (!list || list->kind != CCS_Y_SEQ || i < 0 || i >= (long)list->n)
		return at(v, where, "a channel or buffer index past its list", "");
	const struct ccs_ynode *y = list->v[i];
	char *end;
	long x = y->kind == CCS_Y_SCALAR ? strtol(y->str, &end, 10) : 0;
	if (y->kind != CCS_Y_SCALAR || end == y->str || *end || x < lo || x > hi)
		return at(v, y, "not a whole number in range here: ", y->kind == CCS_Y_SCALAR ? y->str : "(a list or map)");
	*out = x;
	return CCS_OK;
}

static int ctype(struct pconv *v, const struct ccs_ynode *m, const char *key, int *out)
{
	const struct ccs_ynode *y = mget(m, key);
	*out = -1;
	if (!y)
		return CCS_OK;
	if (y->kind == CCS_Y_SCALAR)
		for (int t = 0; t < CT_N; t++)
			if (!strcmp(y->str, ct_name[t]))
				*out = t;
	if (*out < 0 && !(y->kind == CCS_Y_SCALAR && !strcmp(y->str, "none")))
		return at(v, y, "a channel type not modelled (memory and port channels are; NVLS switch channels not yet): ",
		          y->kind == CCS_Y_SCALAR ? y->str : "?");
	return CCS_OK;
}

/* The GPU-level lists of gpu node gy into g. */
static int gpu_lists(struct pconv *v, const struct ccs_ynode *gy, struct pgpu *g)
{
	CCS_TRY(need_long(v, gy, "id", 0, v->ngpus - 1, "a gpu", &g->id));
	const struct ccs_ynode *ch = mget(gy, "channels");
	for (uint32_t i = 0; ch && ch->kind == CCS_Y_SEQ && i < ch->n; i++) {
		int t;
		CCS_TRY(ctype(v, ch->v[i], "channel_type", &t));
		if (t >= 0 && !g->conn[t])
			g->conn[t] = mget(ch->v[i], "connected_to");
	}
	g->rbuf = mget(gy, "remote_buffers");
	return CCS_OK;
}

static int tb_lists(struct pconv *v, const struct ccs_ynode *ty, struct ptb *tb)
{
	memset(tb, 0, sizeof *tb);
	const struct ccs_ynode *ch = mget(ty, "channels"), *rb = mget(ty, "remote_buffer_refs");
	for (uint32_t i = 0; ch && ch->kind == CCS_Y_SEQ && i < ch->n; i++) {
		int t;
		CCS_TRY(ctype(v, ch->v[i], "channel_type", &t));
		if (t >= 0)
			tb->ch[t] = mget(ch->v[i], "channel_ids");
	}
	for (uint32_t i = 0; rb && rb->kind == CCS_Y_SEQ && i < rb->n; i++) {
		int t;
		CCS_TRY(ctype(v, rb->v[i], "access_channel_type", &t));
		if (t >= 0)
			tb->rb[t] = mget(rb->v[i], "remote_buffer_ids");
	}
	return CCS_OK;
}

/* Channel id k of thread block tb (type t) on gpu g: its peer and which
 * of g's connections to that peer it is (the pairing channel). */
static int chan_peer(struct pconv *v, const struct pgpu *g, const struct ptb *tb, int t, long k,
                     const struct ccs_ynode *where, long *peer, long *nth)
{
	long c;
	if (!tb->ch[t] || tb->ch[t]->kind != CCS_Y_SEQ || k >= (long)tb->ch[t]->n) {
		char msg[160];
		snprintf(msg, sizeof msg, "channel id %ld: its thread block has %u %s channel%s", k,
		         tb->ch[t] && tb->ch[t]->kind == CCS_Y_SEQ ? tb->ch[t]->n : 0, ct_name[t],
		         tb->ch[t] && tb->ch[t]->kind == CCS_Y_SEQ && tb->ch[t]->n == 1 ? "" : "s");
		return at(v, where, msg, "");
	}
	CCS_TRY(item(v, tb->ch[t], k, 0, 1 << 20, where, &c));
	CCS_TRY(item(v, g->conn[t], c, 0, v->ngpus - 1, where, peer));
	*nth = 0;
	for (long j = 0; j < c; j++) {
		long p;
		CCS_TRY(item(v, g->conn[t], j, 0, v->ngpus - 1, where, &p));
		*nth += p == *peer;
	}
	return CCS_OK;
}

/* A buffer entry's owner (-1: this GPU's own buffer) and bytes. */
static int buf_of(struct pconv *v, const struct pgpu *g, const struct ptb *tb, int t, const struct ccs_ynode *b,
                  long *owner, double *bytes)
{
	long size;
	CCS_TRY(need_long(v, b, "size", 0, 1L << 30, "a buffer", &size));
	*bytes = (double)size * v->chunk;
	*owner = -1;
	const struct ccs_ynode *id = mget(b, "buffer_id");
	if (!id)
		return CCS_OK;
	if (t < 0)
		return at(v, b, "buffer_id: a remote buffer needs the op's channel_type", "");
	long bid, rbi;
	CCS_TRY(need_long(v, b, "buffer_id", 0, 1 << 20, "a buffer", &bid));
	CCS_TRY(item(v, tb->rb[t], bid, 0, 1 << 20, b, &rbi));
	if (!g->rbuf || g->rbuf->kind != CCS_Y_SEQ || rbi >= (long)g->rbuf->n)
		return at(v, b, "buffer_id: past the gpu's remote_buffers", "");
	CCS_TRY(need_long(v, g->rbuf->v[rbi], "rank", 0, v->ngpus - 1, "a remote buffer", owner));
	return CCS_OK;
}

/* Emitting: an op of the thread block, after *prev (its name then becomes
 * *prev), or one the other side runs outside its thread blocks. */
static void emit(struct pconv *v, char *prev, const char *name, long rank, const char *rest)
{
	ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, %s%s%s%s}\n", name, rank, rest, prev[0] ? ", after: [" : "", prev,
	                prev[0] ? "]" : "");
	snprintf(prev, 96, "%s", name);
}

struct opctx {
	struct pconv *v;
	const struct pgpu *g;
	const struct ptb *tb;
	const struct ccs_ynode *op;
	int t;                      /* its channel type, -1 none */
	char base[64];
	int part;
	char *prev;
};

static void part_name(struct opctx *x, char *out, size_t n)
{
	snprintf(out, n, "%s_%d", x->base, x->part++);
}

/* The largest of the op's own buffers in list key (what a local copy or
 * reduction moves). */
static int local_bytes(struct opctx *x, const char *key, double *out)
{
	const struct ccs_ynode *l = mget(x->op, key);
	for (uint32_t i = 0; l && l->kind == CCS_Y_SEQ && i < l->n; i++) {
		long owner;
		double b;
		CCS_TRY(buf_of(x->v, x->g, x->tb, x->t, l->v[i], &owner, &b));
		if ((owner < 0 || owner == x->g->id) && b > *out)
			*out = b;
	}
	return CCS_OK;
}

/* Transfers of the op's buffers in list key that live on other GPUs:
 * incoming (sources: the owner sends, this GPU receives in order) or
 * outgoing (destinations: this GPU sends in order, the owner receives). */
static int remote_parts(struct opctx *x, const char *key, int out)
{
	const struct ccs_ynode *l = mget(x->op, key);
	for (uint32_t i = 0; l && l->kind == CCS_Y_SEQ && i < l->n; i++) {
		long owner;
		double b;
		CCS_TRY(buf_of(x->v, x->g, x->tb, x->t, l->v[i], &owner, &b));
		if (owner < 0 || owner == x->g->id)
			continue;
		char me[80], other[96], rest[160], none[96] = "";
		part_name(x, me, sizeof me);
		snprintf(other, sizeof other, "%s_peer", me);
		long src = out ? x->g->id : owner, dst = out ? owner : x->g->id;
		snprintf(rest, sizeof rest, "op: send, peer: %ld, channel: 0, bytes: %.0fB", dst, b);
		/* a read starts when the reader reaches it: the owner's send waits
		 * for the reader's op before this one */
		char from[96];
		snprintf(from, sizeof from, "%s", x->prev);
		if (out)
			emit(x->v, x->prev, me, src, rest);
		else
			emit(x->v, from, other, src, rest);
		snprintf(rest, sizeof rest, "op: recv, peer: %ld, channel: 0", src);
		if (out)
			emit(x->v, none, other, dst, rest);
		else
			emit(x->v, x->prev, me, dst, rest);
	}
	return CCS_OK;
}

/* Signals (dir 1) or waits (dir 0) on each of the op's channels. */
static int flags(struct opctx *x, int dir)
{
	const struct ccs_ynode *ids = mget(x->op, "channel_ids");
	if (x->t < 0)
		return at(x->v, x->op, dir ? "a signal" : "a wait", " needs channel_type memory or port");
	for (uint32_t i = 0; ids && ids->kind == CCS_Y_SEQ && i < ids->n; i++) {
		long c, peer = 0, nth = 0;
		CCS_TRY(item(x->v, ids, (long)i, 0, 1 << 20, ids->v[i], &c));
		CCS_TRY(chan_peer(x->v, x->g, x->tb, x->t, c, ids->v[i], &peer, &nth));
		char me[96], rest[160];
		part_name(x, me, sizeof me);
		if (dir)
			snprintf(rest, sizeof rest, "op: send, peer: %ld, channel: %ld, bytes: 8B", peer, 1 + nth);
		else
			snprintf(rest, sizeof rest, "op: recv, peer: %ld, channel: %ld", peer, 1 + nth);
		CCS_TRY(pair_count(x->v, dir ? x->g->id : peer, dir ? peer : x->g->id, nth, dir ? 1 : -1, x->op));
		emit(x->v, x->prev, me, x->g->id, rest);
	}
	return CCS_OK;
}

/* What each op name does: remote reads, a local op, remote writes, flags. */
static const struct {
	const char *name;
	int read, local, write, sig, wait;   /* local: 0 none, 1 copy, 2 reduce */
} ops[] = {
	{ "nop", 0, 0, 0, 0, 0 },  { "flush", 0, 0, 0, 0, 0 },   { "signal", 0, 0, 0, 1, 0 }, { "rlxsignal", 0, 0, 0, 1, 0 },
	{ "wait", 0, 0, 0, 0, 1 }, { "rlxwait", 0, 0, 0, 0, 1 }, { "put", 0, 0, 1, 0, 0 },    { "pws", 0, 0, 1, 1, 0 },
	{ "pwsf", 0, 0, 1, 1, 0 }, { "get", 1, 0, 0, 0, 0 },     { "copy", 0, 1, 0, 0, 0 },   { "re", 0, 2, 0, 0, 0 },
	{ "rre", 1, 2, 0, 0, 0 },  { "res", 0, 2, 1, 0, 0 },     { "rres", 1, 2, 1, 0, 0 },
};

static int one_op(struct opctx *x)
{
	const char *nm = NULL;
	CCS_TRY(ccs_ytree_kind(x->v->d, x->op, CCS_Y_MAP, "an op"));
	CCS_TRY(ccs_ytree_need(x->v->d, x->op, "name", "an op"));
	CCS_TRY(ccs_ytree_str(x->v->d, x->op, "name", &nm));
	int k = -1;
	for (int i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
		if (!strcmp(ops[i].name, nm))
			k = i;
	if (k < 0)
		return at(x->v, x->op, "an op not modelled yet (packet ops, NVLS switch ops, pipelines, semaphores and "
		                       "barriers are not; put, get, signal, wait, copy and the reductions are): ", nm);
	CCS_TRY(ctype(x->v, x->op, "channel_type", &x->t));
	if (ops[k].read)
		CCS_TRY(remote_parts(x, "src_buff", 0));
	if (ops[k].local) {
		double b = 0;
		CCS_TRY(local_bytes(x, "src_buff", &b));
		CCS_TRY(local_bytes(x, "dst_buff", &b));
		if (b <= 0)
			b = x->v->chunk;
		char me[96], rest[96];
		part_name(x, me, sizeof me);
		snprintf(rest, sizeof rest, "op: %s, bytes: %.0fB", ops[k].local == 1 ? "copy" : "reduce", b);
		emit(x->v, x->prev, me, x->g->id, rest);
	}
	if (ops[k].write)
		CCS_TRY(remote_parts(x, "dst_buff", 1));
	if (ops[k].sig)
		CCS_TRY(flags(x, 1));
	if (ops[k].wait)
		CCS_TRY(flags(x, 0));
	return CCS_OK;
}

static int one_gpu(struct pconv *v, const struct ccs_ynode *gy, struct pgpu *g)
{
	const struct ccs_ynode *tbs = mget(gy, "threadblocks");
	if (!tbs || tbs->kind != CCS_Y_SEQ)
		return at(v, gy, "a gpu needs its list of threadblocks", "");
	for (uint32_t i = 0; i < tbs->n; i++) {
		struct ptb tb;
		long tid;
		CCS_TRY(need_long(v, tbs->v[i], "id", 0, 1 << 20, "a thread block", &tid));
		CCS_TRY(tb_lists(v, tbs->v[i], &tb));
		const struct ccs_ynode *l = mget(tbs->v[i], "ops");
		char prev[96] = "";
		for (uint32_t j = 0; l && l->kind == CCS_Y_SEQ && j < l->n; j++) {
			struct opctx x = { v, g, &tb, l->v[j], -1, "", 0, prev };
			snprintf(x.base, sizeof x.base, "g%ldt%ldo%u", g->id, tid, j);
			CCS_TRY(one_op(&x));
		}
	}
	return CCS_OK;
}

static int pconvert(struct pconv *v, const char *name, const struct ccs_ynode *root, double total)
{
	const struct ccs_ynode *gl = mget(root, "gpus");
	if (!gl || gl->kind != CCS_Y_SEQ || !gl->n)
		return at(v, root, "an MSCCL++ plan needs a list of gpus", "");
	v->ngpus = (long)gl->n;
	/* nccl-tests' size is the larger buffer (AllGather's output, ReduceScatter's
	 * input): a chunk is that over its chunks */
	long in, out;
	CCS_TRY(need_long(v, gl->v[0], "input_chunks", 1, 1L << 30, "a gpu", &in));
	CCS_TRY(need_long(v, gl->v[0], "output_chunks", 0, 1L << 30, "a gpu", &out));
	v->chunk = total / (double)(in > out ? in : out);
	if (v->chunk < 1)
		v->chunk = 1;
	v->g = ccs_calloc((size_t)v->ngpus, sizeof *v->g);
	if (!v->g)
		return CCS_ENOMEM;
	const char *pn = "mscclpp", *coll = NULL;
	const struct ccs_ynode *ny = mget(root, "name"), *cy = mget(root, "collective");
	if (ny && ny->kind == CCS_Y_SCALAR)
		pn = ny->str;
	if (cy && cy->kind == CCS_Y_SCALAR && ccs_coll_parse(cy->str) >= 0)
		coll = cy->str;
	ccs_text_printf(&v->o, "# from the MSCCL++ plan %s (%s), %.0f bytes a chunk\nname: %s\nranks: %ld\n", name, pn,
	                v->chunk, pn, v->ngpus);
	if (coll)
		ccs_text_printf(&v->o, "collective: %s\nsize: %.0fB\n", coll, total);
	ccs_text_printf(&v->o, "ops:\n");
	for (uint32_t i = 0; i < gl->n; i++)
		CCS_TRY(gpu_lists(v, gl->v[i], &v->g[i]));
	for (uint32_t i = 0; i < gl->n; i++)
		CCS_TRY(one_gpu(v, gl->v[i], &v->g[i]));
	for (size_t i = 0; i < v->npr; i++)
		if (v->pr[i].n) {
			const struct pair *q = &v->pr[i];
			char msg[200];
			snprintf(msg, sizeof msg, "gpu %ld signals gpu %ld on their connection %ld %ld time%s %s than gpu %ld waits for it",
			         q->a, q->b, q->k, q->n > 0 ? q->n : -q->n, q->n == 1 || q->n == -1 ? "" : "s",
			         q->n > 0 ? "more" : "fewer", q->b);
			return at(v, q->at, msg, "");
		}
	return v->o.oom ? CCS_ENOMEM : CCS_OK;
}

int ccs_sched_mscclpp_is(const struct ccs_ynode *root)
{
	const struct ccs_ynode *g = root && root->kind == CCS_Y_MAP ? mget(root, "gpus") : NULL;
	return g && g->kind == CCS_Y_SEQ && g->n && g->v[0]->kind == CCS_Y_MAP && mget(g->v[0], "threadblocks");
}

int ccs_sched_mscclpp_yaml(struct ccs_ydoc *d, const char *name, const struct ccs_ynode *root, double bytes, char **yaml)
{
	*yaml = NULL;
	struct pconv v;
	memset(&v, 0, sizeof v);
	v.d = d;
	int rc = pconvert(&v, name, root, bytes);
	ccs_free(v.g);
	ccs_free(v.pr);
	if (rc) {
		ccs_free(v.o.s);
		if (rc == CCS_ENOMEM && !d->diag->set)
			ccs_diag_msg(d->diag, "%s: out of memory", name);
		return rc;
	}
	*yaml = v.o.s;
	return CCS_OK;
}
