/*
** sim/synth/synth_json.c: the lowered plan (synth.h) as an MSCCL++
** execution plan (JSON, as its DSL writes it and sim/sched/mscclpp.c reads
** it), and as the schedule YAML of the ops mscclpp.c makes of that plan,
** written from the same blocks, so that the plan read back can be checked.
**
** MSCCL++ transfers are one-sided: a put lands in the peer's buffer and a
** signal tells the block that uses it; that block waits first.  So each
** of the MSCCL plan's sends becomes, in its block: the waits for what it
** forwards (an out-tree: the chunk from its parent; an in-tree: each
** child's partial, reduced in turn), the put, then one signal to each
** block of the receiver that uses the chunk (its sends to its children,
** its send to its parent, or, where the chunk goes no further, a block
** that only waits: a leaf's, or the root's that reduces the last
** partials).  A signal and its wait share a connection of their own (the
** sending block to the waiting block), numbered in one order on both GPUs.
** AllReduce is not written: its second phase's root sends would wait for
** the first phase's reduction in another block, which a plan cannot say.
*/
#include "synth.h"

#include "../../model/coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { J_WAIT, J_RE, J_PUT, J_SIGNAL };
struct jop {
	uint8_t kind;
	int32_t conn;               /* WAIT, SIGNAL: the connection */
	int32_t peer, off, cnt;     /* PUT: where; RE, PUT: chunks */
	char buf;
};
struct jtb {
	int32_t gpu;
	uint32_t n;
	size_t cap;
	struct jop *op;
};
struct conn {
	int32_t a, b;               /* the signalling block and the waiting block (JSON blocks) */
	int32_t ga, gb;
};
struct jplan {
	const struct ccs_synth_plan *p;
	uint32_t ntb;
	struct jtb *tb;
	int32_t *of_xml;            /* XML block -> its JSON block (-1: none yet) */
	int32_t *root_tb;           /* per GPU: its block that reduces the last partials (-1 none) */
	uint32_t nconn;
	size_t conncap, tbcap;
	struct conn *conn;
	int32_t *hash;              /* open addressing over (a, b): a connection's index, -1 empty */
	uint32_t hcap;              /* a power of two, at least twice nconn */
	int32_t *conn_at;           /* per connection: its index among its GPU's (a's, then b's) */
	int32_t *conn_bt;
	int oom;
};

static int32_t new_tb(struct jplan *J, int g)
{
	if (ccs_grow(&J->tb, &J->tbcap, (size_t)J->ntb + 1, sizeof *J->tb)) {
		J->oom = 1;
		return -1;
	}
	memset(&J->tb[J->ntb], 0, sizeof J->tb[J->ntb]);
	J->tb[J->ntb].gpu = g;
	return (int32_t)J->ntb++;
}

static void add_op(struct jplan *J, int32_t tb, struct jop o)
{
	struct jtb *t = &J->tb[tb];
	if (ccs_grow(&t->op, &t->cap, (size_t)t->n + 1, sizeof *t->op)) {
		J->oom = 1;
		return;
	}
	t->op[t->n++] = o;
}

static uint32_t conn_slot(const struct jplan *J, int32_t a, int32_t b)
{
	uint64_t k = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(k >> 32) & (J->hcap - 1);
	while (J->hash[i] >= 0 && (J->conn[J->hash[i]].a != a || J->conn[J->hash[i]].b != b))
		i = (i + 1) & (J->hcap - 1);
	return i;
}

/* Room for one more connection: the array and the table (rehashed). */
static int conn_room(struct jplan *J)
{
	if (ccs_grow(&J->conn, &J->conncap, (size_t)J->nconn + 1, sizeof *J->conn))
		return CCS_ENOMEM;
	if (2 * (J->nconn + 1) > J->hcap) {
		uint32_t hc = J->hcap ? J->hcap * 2 : 128;
		int32_t *h = ccs_malloc((size_t)hc * sizeof *h);
		if (!h)
			return CCS_ENOMEM;
		ccs_free(J->hash);
		J->hash = h;
		J->hcap = hc;
		for (uint32_t i = 0; i < hc; i++)
			h[i] = -1;
		for (uint32_t c = 0; c < J->nconn; c++)
			h[conn_slot(J, J->conn[c].a, J->conn[c].b)] = (int32_t)c;
	}
	return CCS_OK;
}

/* The connection from block a to block b (made on first use). */
static int32_t conn_of(struct jplan *J, int32_t a, int32_t b)
{
	if (J->hcap) {
		uint32_t i = conn_slot(J, a, b);
		if (J->hash[i] >= 0)
			return J->hash[i];
	}
	if (conn_room(J)) {
		J->oom = 1;
		return 0;
	}
	J->conn[J->nconn] = (struct conn){ a, b, J->tb[a].gpu, J->tb[b].gpu };
	J->hash[conn_slot(J, a, b)] = (int32_t)J->nconn;
	return (int32_t)J->nconn++;
}

/* XML block i's step k's sender (global XML block and step): the peer's
 * block that sends to this receiving block on its channel, same index. */
static uint32_t sender_block(const struct ccs_synth_plan *p, int g, uint32_t i)
{
	const struct ccs_synth_tb *t = &p->tb[i];
	int peer = t->recv;
	for (uint32_t j = p->tb0[peer]; j < p->tb0[peer + 1]; j++)
		if (p->tb[j].send == g && p->tb[j].chan == t->chan)
			return j;
	return UINT32_MAX;
}

/* The receiving block at peer v for XML send block i (same channel). */
static uint32_t receiver_block(const struct ccs_synth_plan *p, int g, uint32_t i)
{
	const struct ccs_synth_tb *t = &p->tb[i];
	int v = t->send;
	for (uint32_t j = p->tb0[v]; j < p->tb0[v + 1]; j++)
		if (p->tb[j].recv == g && p->tb[j].chan == t->chan)
			return j;
	return UINT32_MAX;
}

/* Steps that depend on a step: per XML block a list per step of (block,
 * step) pairs, built once. */
struct deps {
	uint32_t *start;            /* per global step index */
	uint32_t *blk, *stp;
	uint32_t *base;             /* per XML block: its first global step */
};

static int deps_build(const struct ccs_synth_plan *p, struct deps *D)
{
	uint32_t ns = 0;
	D->base = ccs_malloc(((size_t)p->ntb + 1) * sizeof *D->base);
	if (!D->base)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < p->ntb; i++) {
		D->base[i] = ns;
		ns += p->tb[i].n;
	}
	D->base[p->ntb] = ns;
	D->start = ccs_calloc((size_t)ns + 2, sizeof *D->start);
	D->blk = ccs_malloc(((size_t)ns + 1) * sizeof *D->blk);
	D->stp = ccs_malloc(((size_t)ns + 1) * sizeof *D->stp);
	if (!D->start || !D->blk || !D->stp)
		return CCS_ENOMEM;
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
			for (uint32_t k = 0; k < p->tb[i].n; k++)
				if (p->tb[i].st[k].dep_tb >= 0)
					D->start[D->base[p->tb0[g] + (uint32_t)p->tb[i].st[k].dep_tb] + (uint32_t)p->tb[i].st[k].dep_step + 1]++;
	for (uint32_t s = 0; s < ns; s++)
		D->start[s + 1] += D->start[s];
	uint32_t *fill = ccs_malloc(((size_t)ns + 1) * sizeof *fill);
	if (!fill)
		return CCS_ENOMEM;
	memcpy(fill, D->start, (size_t)ns * sizeof *fill);
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
			for (uint32_t k = 0; k < p->tb[i].n; k++)
				if (p->tb[i].st[k].dep_tb >= 0) {
					uint32_t d = D->base[p->tb0[g] + (uint32_t)p->tb[i].st[k].dep_tb] + (uint32_t)p->tb[i].st[k].dep_step;
					D->blk[fill[d]] = i;
					D->stp[fill[d]++] = k;
				}
	ccs_free(fill);
	return CCS_OK;
}

static void deps_release(struct deps *D)
{
	ccs_free(D->start);
	ccs_free(D->blk);
	ccs_free(D->stp);
	ccs_free(D->base);
}

/* The JSON block of XML block i (its own for a sender; a receiver's only
 * for the chunks that go no further: made on first use). */
static int32_t jblock(struct jplan *J, int g, uint32_t i)
{
	if (J->of_xml[i] < 0)
		J->of_xml[i] = new_tb(J, g);
	return J->of_xml[i];
}

static int32_t jroot(struct jplan *J, int g)
{
	if (J->root_tb[g] < 0)
		J->root_tb[g] = new_tb(J, g);
	return J->root_tb[g];
}

/* A chunk the root reduces last, kept until its block is written in order. */
struct rchain {
	double key;
	uint32_t tie, blk, stp;     /* the chain's last reduction (global XML block) */
};

struct jctx {
	struct jplan *J;
	struct deps D;
	struct rchain *rc;
	uint32_t nrc;
	size_t rccap;
};

/* Waits (and reductions) of an RRC chain ending at (blk, stp) of GPU g,
 * into JSON block jb, first reduction first. */
static void chain_waits(struct jctx *X, int g, uint32_t blk, uint32_t stp, int32_t jb)
{
	const struct ccs_synth_plan *p = X->J->p;
	const struct ccs_synth_step *st = &p->tb[blk].st[stp];
	if (st->dep_tb >= 0 && p->tb[p->tb0[g] + (uint32_t)st->dep_tb].st[st->dep_step].type == CCS_SYNTH_RRC)
		chain_waits(X, g, p->tb0[g] + (uint32_t)st->dep_tb, (uint32_t)st->dep_step, jb);
	uint32_t sb = sender_block(p, g, blk);
	int32_t c = conn_of(X->J, jblock(X->J, p->tb[blk].recv, sb), jb);
	add_op(X->J, jb, (struct jop){ J_WAIT, c, -1, 0, 0, 0 });
	add_op(X->J, jb, (struct jop){ J_RE, -1, -1, st->off, st->cnt, st->buf });
}

/* The blocks of GPU v that use the chunk of receiving step (rb, k): the
 * sends that forward it (out-trees), the send its reductions lead to
 * (in-trees), else a block that only waits.  Signals from JSON block jb
 * (a connection each) appended to jb; the waiting-only blocks' waits too. */
static void signal_users(struct jctx *X, int v, uint32_t rb, uint32_t k, int32_t jb)
{
	struct jplan *J = X->J;
	const struct ccs_synth_plan *p = J->p;
	uint32_t blk = rb, stp = k;
	int any = 0;
	for (;;) {
		uint32_t s = X->D.base[blk] + stp, next = UINT32_MAX;
		for (uint32_t d = X->D.start[s]; d < X->D.start[s + 1]; d++) {
			const struct ccs_synth_step *ds = &p->tb[X->D.blk[d]].st[X->D.stp[d]];
			if (ds->type == CCS_SYNTH_SEND) {
				add_op(J, jb, (struct jop){ J_SIGNAL, conn_of(J, jb, jblock(J, v, X->D.blk[d])), -1, 0, 0, 0 });
				any = 1;
			} else
				next = d;
		}
		if (any || next == UINT32_MAX)
			break;
		blk = X->D.blk[next];
		stp = X->D.stp[next];
	}
	if (any)
		return;
	const struct ccs_synth_step *st = &p->tb[blk].st[stp];
	if (st->type == CCS_SYNTH_RECV) {
		int32_t drain = jblock(J, v, rb);
		int32_t c = conn_of(J, jb, drain);
		add_op(J, jb, (struct jop){ J_SIGNAL, c, -1, 0, 0, 0 });
		add_op(J, drain, (struct jop){ J_WAIT, c, -1, 0, 0, 0 });
		return;
	}
	/* an in-tree's root: its last reductions, in one block, in order */
	int32_t root = jroot(J, v);
	int32_t c = conn_of(J, jb, root);
	add_op(J, jb, (struct jop){ J_SIGNAL, c, -1, 0, 0, 0 });
	if (rb == blk && k == stp) {
		if (ccs_grow(&X->rc, &X->rccap, (size_t)X->nrc + 1, sizeof *X->rc)) {
			J->oom = 1;
			return;
		}
		X->rc[X->nrc++] = (struct rchain){ st->key, st->tie, blk, stp };
	}
}

/* Send block i of GPU u: per step its waits, put and signals. */
static void one_sender(struct jctx *X, int u, uint32_t i)
{
	struct jplan *J = X->J;
	const struct ccs_synth_plan *p = J->p;
	const struct ccs_synth_tb *t = &p->tb[i];
	int32_t jb = jblock(J, u, i);
	uint32_t rb = receiver_block(p, u, i);
	for (uint32_t k = 0; k < t->n && !J->oom; k++) {
		const struct ccs_synth_step *st = &t->st[k];
		if (st->dep_tb >= 0) {
			uint32_t d = p->tb0[u] + (uint32_t)st->dep_tb;
			if (p->tb[d].st[st->dep_step].type == CCS_SYNTH_RRC)
				chain_waits(X, u, d, (uint32_t)st->dep_step, jb);
			else {
				uint32_t sb = sender_block(p, u, d);
				add_op(J, jb, (struct jop){ J_WAIT, conn_of(J, jblock(J, p->tb[d].recv, sb), jb), -1, 0, 0, 0 });
			}
		}
		add_op(J, jb, (struct jop){ J_PUT, -1, t->send, st->off, st->cnt, st->buf });
		signal_users(X, t->send, rb, k, jb);
	}
}

static int by_chain(const void *a, const void *b)
{
	const struct rchain *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

/* Connections numbered per GPU: all of them in one order (by the GPU pair,
 * then as made), each GPU's the ones it is an end of, so that the k-th
 * between two GPUs is the k-th at both. */
static const struct conn *sort_conn;

static int by_pair(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct conn *x = &sort_conn[i], *y = &sort_conn[j];
	int xl = x->ga < x->gb ? x->ga : x->gb, yl = y->ga < y->gb ? y->ga : y->gb;
	int xh = x->ga < x->gb ? x->gb : x->ga, yh = y->ga < y->gb ? y->gb : y->ga;
	if (xl != yl)
		return xl < yl ? -1 : 1;
	if (xh != yh)
		return xh < yh ? -1 : 1;
	return (i > j) - (i < j);
}

static int number_conns(struct jplan *J)
{
	int n = J->p->n;
	J->conn_at = ccs_malloc(((size_t)J->nconn + 1) * sizeof *J->conn_at);
	J->conn_bt = ccs_malloc(((size_t)J->nconn + 1) * sizeof *J->conn_bt);
	int32_t *cnt = ccs_calloc((size_t)n + 1, sizeof *cnt);
	uint32_t *ord = ccs_malloc(((size_t)J->nconn + 1) * sizeof *ord);
	int rc = J->conn_at && J->conn_bt && cnt && ord ? CCS_OK : CCS_ENOMEM;
	if (!rc) {
		for (uint32_t c = 0; c < J->nconn; c++)
			ord[c] = c;
		sort_conn = J->conn;
		qsort(ord, J->nconn, sizeof *ord, by_pair);
		for (uint32_t k = 0; k < J->nconn; k++) {
			const struct conn *c = &J->conn[ord[k]];
			J->conn_at[ord[k]] = cnt[c->ga]++;
			J->conn_bt[ord[k]] = cnt[c->gb]++;
		}
	}
	ccs_free(cnt);
	ccs_free(ord);
	return rc;
}

static void jplan_release(struct jplan *J)
{
	for (uint32_t i = 0; i < J->ntb; i++)
		ccs_free(J->tb[i].op);
	ccs_free(J->tb);
	ccs_free(J->of_xml);
	ccs_free(J->root_tb);
	ccs_free(J->conn);
	ccs_free(J->hash);
	ccs_free(J->conn_at);
	ccs_free(J->conn_bt);
}

static int jplan_build(const struct ccs_synth_plan *p, struct jplan *J)
{
	memset(J, 0, sizeof *J);
	J->p = p;
	struct jctx X;
	memset(&X, 0, sizeof X);
	X.J = J;
	J->of_xml = ccs_malloc(((size_t)p->ntb + 1) * sizeof *J->of_xml);
	J->root_tb = ccs_malloc(((size_t)p->n + 1) * sizeof *J->root_tb);
	int rc = J->of_xml && J->root_tb ? deps_build(p, &X.D) : CCS_ENOMEM;
	if (!rc) {
		for (uint32_t i = 0; i < p->ntb; i++)
			J->of_xml[i] = -1;
		for (int g = 0; g < p->n; g++)
			J->root_tb[g] = -1;
		for (int g = 0; g < p->n; g++)
			for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
				if (p->tb[i].send >= 0)
					jblock(J, g, i);
		for (int g = 0; g < p->n && !J->oom; g++)
			for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1] && !J->oom; i++)
				if (p->tb[i].send >= 0)
					one_sender(&X, g, i);
		if (X.nrc)
			qsort(X.rc, X.nrc, sizeof *X.rc, by_chain);
		for (uint32_t i = 0; i < X.nrc && !J->oom; i++) {
			int g = 0;
			while (X.rc[i].blk >= p->tb0[g + 1])
				g++;
			chain_waits(&X, g, X.rc[i].blk, X.rc[i].stp, jroot(J, g));
		}
		rc = J->oom ? CCS_ENOMEM : number_conns(J);
	}
	deps_release(&X.D);
	ccs_free(X.rc);
	if (rc)
		jplan_release(J);
	return rc;
}

/* Per GPU: its connections' peers in order, and each connection's place
 * among those between its two GPUs. */
struct gconn {
	int32_t *start, *peer, *nth;   /* GPU g's connections: peer[start[g] + k]; nth per connection */
};

static int gconn_build(const struct jplan *J, struct gconn *G)
{
	int n = J->p->n;
	G->start = ccs_calloc((size_t)n + 2, sizeof *G->start);
	G->peer = ccs_malloc(((size_t)J->nconn * 2 + 1) * sizeof *G->peer);
	G->nth = ccs_malloc(((size_t)J->nconn + 1) * sizeof *G->nth);
	if (!G->start || !G->peer || !G->nth)
		return CCS_ENOMEM;
	for (uint32_t c = 0; c < J->nconn; c++) {
		G->start[J->conn[c].ga + 1]++;
		G->start[J->conn[c].gb + 1]++;
	}
	for (int g = 0; g < n; g++)
		G->start[g + 1] += G->start[g];
	for (uint32_t c = 0; c < J->nconn; c++) {
		G->peer[G->start[J->conn[c].ga] + J->conn_at[c]] = J->conn[c].gb;
		G->peer[G->start[J->conn[c].gb] + J->conn_bt[c]] = J->conn[c].ga;
	}
	for (uint32_t c = 0; c < J->nconn; c++) {
		int g = J->conn[c].ga, k = J->conn_at[c];
		G->nth[c] = 0;
		for (int j = 0; j < k; j++)
			G->nth[c] += G->peer[G->start[g] + j] == J->conn[c].gb;
	}
	return CCS_OK;
}

static void gconn_release(struct gconn *G)
{
	ccs_free(G->start);
	ccs_free(G->peer);
	ccs_free(G->nth);
}

/* A connection's index at GPU g (one of its ends). */
static int32_t at_gpu(const struct jplan *J, int32_t c, int g)
{
	return J->conn[c].ga == g ? J->conn_at[c] : J->conn_bt[c];
}

/* Index of x in list l[0..*n) (appended when absent). */
static int32_t slot_of(int32_t *l, int32_t *n, int32_t x)
{
	for (int32_t i = 0; i < *n; i++)
		if (l[i] == x)
			return i;
	l[*n] = x;
	return (*n)++;
}

static void json_block(const struct jplan *J, int g, const struct jtb *t, int32_t id, const int32_t *rbuf, int32_t nrb,
                       int32_t *tmp_c, int32_t *tmp_b, struct ccs_text *o)
{
	int32_t nc = 0, nb = 0;
	for (uint32_t k = 0; k < t->n; k++) {
		if (t->op[k].kind == J_WAIT || t->op[k].kind == J_SIGNAL)
			slot_of(tmp_c, &nc, at_gpu(J, t->op[k].conn, g));
		if (t->op[k].kind == J_PUT)
			for (int32_t r = 0; r < nrb; r++)
				if (rbuf[r] == t->op[k].peer)
					slot_of(tmp_b, &nb, r);
	}
	ccs_text_printf(o, "        {\"id\": %d, \"ops\": [\n", id);
	for (uint32_t k = 0; k < t->n; k++) {
		const struct jop *op = &t->op[k];
		const char *sep = k + 1 < t->n ? "," : "";
		if (op->kind == J_WAIT || op->kind == J_SIGNAL)
			ccs_text_printf(o, "          {\"name\": \"%s\", \"channel_ids\": [%d], \"channel_type\": \"memory\"}%s\n",
			                op->kind == J_WAIT ? "wait" : "signal", slot_of(tmp_c, &nc, at_gpu(J, op->conn, g)), sep);
		else if (op->kind == J_RE)
			ccs_text_printf(o, "          {\"name\": \"re\", \"src_buff\": [{\"type\": \"%c\", \"index\": %d, \"size\": %d}], "
			                   "\"dst_buff\": [{\"type\": \"%c\", \"index\": %d, \"size\": %d}]}%s\n",
			                op->buf, op->off, op->cnt, op->buf, op->off, op->cnt, sep);
		else {
			int32_t r = 0;
			while (rbuf[r] != op->peer)
				r++;
			ccs_text_printf(o, "          {\"name\": \"put\", \"src_buff\": [{\"type\": \"%c\", \"index\": %d, \"size\": %d}], "
			                   "\"dst_buff\": [{\"buffer_id\": %d, \"index\": %d, \"size\": %d}], \"channel_type\": \"memory\"}%s\n",
			                op->buf, op->off, op->cnt, slot_of(tmp_b, &nb, r), op->off, op->cnt, sep);
		}
	}
	ccs_text_printf(o, "        ], \"channels\": [{\"channel_type\": \"memory\", \"channel_ids\": [");
	for (int32_t i = 0; i < nc; i++)
		ccs_text_printf(o, "%s%d", i ? ", " : "", tmp_c[i]);
	ccs_text_printf(o, "]}], \"remote_buffer_refs\": [{\"access_channel_type\": \"memory\", \"remote_buffer_ids\": [");
	for (int32_t i = 0; i < nb; i++)
		ccs_text_printf(o, "%s%d", i ? ", " : "", tmp_b[i]);
	ccs_text_printf(o, "]}]}");
}

static const char *const json_coll[CCS_COLL_N] = {
	[CCS_COLL_ALLREDUCE] = "allreduce", [CCS_COLL_ALLGATHER] = "allgather",
	[CCS_COLL_REDUCESCATTER] = "reducescatter", [CCS_COLL_ALLTOALL] = "alltoall",
};

static void json_write(const struct jplan *J, const struct gconn *G, const char *name, struct ccs_text *o)
{
	const struct ccs_synth_plan *p = J->p;
	int32_t *rbuf = ccs_malloc(((size_t)p->n + 1) * sizeof *rbuf);
	int32_t *tc = ccs_malloc(((size_t)J->nconn * 2 + 1) * sizeof *tc), *tb = ccs_malloc(((size_t)p->n + 1) * sizeof *tb);
	if (!rbuf || !tc || !tb) {
		o->oom = 1;
		goto out;
	}
	ccs_text_printf(o, "{\n  \"name\": \"%s\",\n  \"collective\": \"%s\",\n  \"protocol\": \"Simple\",\n  \"inplace\": false,\n"
	                   "  \"gpus\": [\n", name, json_coll[p->coll]);
	for (int g = 0; g < p->n; g++) {
		int32_t nrb = 0;
		for (uint32_t i = 0; i < J->ntb; i++)
			for (uint32_t k = 0; J->tb[i].gpu == g && k < J->tb[i].n; k++)
				if (J->tb[i].op[k].kind == J_PUT)
					slot_of(rbuf, &nrb, J->tb[i].op[k].peer);
		ccs_text_printf(o, "    {\"id\": %d, \"input_chunks\": %ld, \"output_chunks\": %ld, \"scratch_chunks\": %ld,\n"
		                   "      \"threadblocks\": [\n", g, p->i_chunks, p->o_chunks, p->s_chunks);
		int32_t id = 0;
		for (uint32_t i = 0; i < J->ntb; i++)
			if (J->tb[i].gpu == g) {
				if (id)
					ccs_text_printf(o, ",\n");
				json_block(J, g, &J->tb[i], id++, rbuf, nrb, tc, tb, o);
			}
		ccs_text_printf(o, "\n      ],\n      \"channels\": [{\"channel_type\": \"memory\", \"connected_to\": [");
		for (int32_t k = G->start[g]; k < G->start[g + 1]; k++)
			ccs_text_printf(o, "%s%d", k > G->start[g] ? ", " : "", G->peer[k]);
		ccs_text_printf(o, "]}],\n      \"remote_buffers\": [");
		for (int32_t r = 0; r < nrb; r++)
			ccs_text_printf(o, "%s{\"rank\": %d, \"type\": \"o\", \"access_channel_types\": [\"memory\"]}", r ? ", " : "", rbuf[r]);
		ccs_text_printf(o, "]}%s\n", g + 1 < p->n ? "," : "");
	}
	ccs_text_printf(o, "  ]\n}\n");
out:
	ccs_free(rbuf);
	ccs_free(tc);
	ccs_free(tb);
}

/* The ops mscclpp.c makes of the plan, as schedule YAML. */
static void yaml_write(const struct jplan *J, const struct gconn *G, double bytes, struct ccs_text *o)
{
	const struct ccs_synth_plan *p = J->p;
	long most = p->i_chunks > p->o_chunks ? p->i_chunks : p->o_chunks;
	double chunk = bytes / (double)most;
	ccs_text_printf(o, "# synthesized %s as its MSCCL++ plan runs, %.0f bytes a chunk\nname: synth\nranks: %d\nops:\n",
	                json_coll[p->coll], chunk, p->n);
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = 0; i < J->ntb; i++) {
			const struct jtb *t = &J->tb[i];
			if (t->gpu != g)
				continue;
			char prev[48] = "";
			for (uint32_t k = 0; k < t->n; k++) {
				const struct jop *op = &t->op[k];
				char me[48], after[64];
				snprintf(me, sizeof me, "b%uo%u", i, k);
				snprintf(after, sizeof after, "%s%s%s", prev[0] ? ", after: [" : "", prev, prev[0] ? "]" : "");
				double b = rint(op->cnt * chunk);
				if (op->kind == J_WAIT || op->kind == J_SIGNAL) {
					const struct conn *c = &J->conn[op->conn];
					int peer = c->ga == g ? c->gb : c->ga;
					if (op->kind == J_SIGNAL)
						ccs_text_printf(o, "  - {name: %s, rank: %d, op: send, peer: %d, channel: %d, bytes: 8B%s}\n", me, g, peer,
						                1 + G->nth[op->conn], after);
					else
						ccs_text_printf(o, "  - {name: %s, rank: %d, op: recv, peer: %d, channel: %d%s}\n", me, g, peer,
						                1 + G->nth[op->conn], after);
				} else if (op->kind == J_RE)
					ccs_text_printf(o, "  - {name: %s, rank: %d, op: reduce, bytes: %.0fB%s}\n", me, g, b, after);
				else {
					ccs_text_printf(o, "  - {name: %s, rank: %d, op: send, peer: %d, channel: 0, bytes: %.0fB%s}\n", me, g,
					                op->peer, b, after);
					ccs_text_printf(o, "  - {name: %sr, rank: %d, op: recv, peer: %d, channel: 0}\n", me, op->peer, g);
				}
				snprintf(prev, sizeof prev, "%s", me);
			}
		}
}

int ccs_synth_json(const struct ccs_synth_plan *p, const char *name, double bytes, struct ccs_text *json,
                   struct ccs_text *yaml)
{
	if (p->coll == CCS_COLL_ALLREDUCE)
		return CCS_EINPUT;
	struct jplan J;
	struct gconn G;
	memset(&G, 0, sizeof G);
	int rc = jplan_build(p, &J);
	if (rc)
		return rc;
	if (!(rc = gconn_build(&J, &G))) {
		if (json)
			json_write(&J, &G, name, json);
		if (yaml)
			yaml_write(&J, &G, bytes, yaml);
	}
	gconn_release(&G);
	jplan_release(&J);
	return rc;
}
