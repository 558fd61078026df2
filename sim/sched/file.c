/*
** sim/sched/file.c: schedules written as YAML (docs/simulator.md):
**
**   name: my-ring
**   ranks: 4
**   ops:
**     - {name: s0, rank: 0, op: send, peer: 1, bytes: 1MiB}
**     - {name: r0, rank: 1, op: recv, peer: 0}
**     - {rank: 1, op: send, peer: 2, bytes: 1MiB, after: [r0]}
**
** send/recv pair up in order per (sender, receiver, channel); a recv
** completes when its send's bytes arrive, the send's latency after its last
** byte leaves (an arrival op between them, numbered after the file's ops and
** of no rank, so traces number only the file's steps); what waits on a
** send (its block's next step) goes on as its bytes leave, as a kernel
** writing into a connection's FIFO of NCCL_STEPS slots does, and one send's
** latency overlaps the next one's bytes.  Across groups a send longer than
** the transport's eager size first waits its rendezvous (model/transport.h),
** so a block's later send never lands before its earlier one (a message's
** rendezvous overlapping the one before's bytes is left out).  A send to
** another group on
** channel c leaves through the sender's (c mod k)-th best NIC and enters
** the receiver's (NCCL's channels spread over a GPU's NICs).  compute waits `time`; reduce and
** copy take `bytes` at the GPU's memory bandwidth (memory.reduce_traffic and
** memory.copy_traffic bytes of traffic per byte, model/params.c).  Every op may name the ops it waits for (`after`) and a
** `latency` (default: the model's hop latency for the route).  Checked
** before anything runs, each error at its position: unknown keys and
** values, ranks and peers out of range, duplicate or unknown names,
** unmatched sends and receives, dependency cycles.
*/
#include "build.h"

#include "../../model/coll.h"
#include "../../model/nccl_tables.h"
#include "../../model/xml.h"
#include "../../model/ytree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the loader keeps of each op until the schedule is built. */
struct fop {
	struct ccs_op op;
	struct ccs_mark mark;
	const char *name;
	int kind;
	int pair;                    /* send: its recv; recv: its send; else -1 */
	double rdv_s;                /* send: the transport's rendezvous before its bytes (model/transport.h) */
};

enum { K_SEND, K_RECV, K_COMPUTE, K_REDUCE, K_COPY };

/* A schedule file being read. */
struct ld {
	struct ccs_ydoc d;
	const struct ccs_comm *c;
	const struct ccs_ynode *ops;
	struct fop *fo;
	uint32_t nops;
	long nr;                    /* ranks it declares */
	int coll;                   /* collective: and size: (coll_bytes 0: not given) */
	double coll_bytes;
	struct ccs_dag *dag;
	char msg[512];
	char src[1100];             /* the source name of an MSCCL file's YAML */
	uint32_t *by_name, nnamed;  /* the named ops sorted by (name, position) */
	uint32_t *arr_of;           /* arrival op nops + k: the send it follows */
	uint32_t narr;
};

/* A send's peer, bytes and default latency (the model's hop for the route),
 * or a recv's peer. */
static int op_transfer(struct ld *L, const struct ccs_ynode *m, struct fop *o, int kind, long rank)
{
	int rc;
	long peer = -1;
	const char *what = kind == K_SEND ? "a send" : "a recv";
	if ((rc = ccs_ytree_need(&L->d, m, "peer", what)) || (kind == K_SEND && (rc = ccs_ytree_need(&L->d, m, "bytes", what))))
		return rc;
	if ((rc = ccs_ytree_long(&L->d, m, "peer", 0, 1000000, &peer, NULL)))
		return rc;
	if (peer >= L->nr || peer == rank) {
		snprintf(L->msg, sizeof L->msg, peer == rank ? "peer %ld is the op's own rank" : "unknown peer %ld in a %ld-rank schedule",
		         peer, L->nr);
		rc = ccs_ytree_error(&L->d, ccs_ytree_get(m, "peer"), L->msg);
		return rc;
	}
	if (kind == K_SEND) {
		o->op.dst = (int32_t)peer;
		if ((rc = ccs_ytree_qty(&L->d, m, "bytes", CCS_QTY_SIZE, &o->op.bytes)))
			return rc;
		/* default latency: the model's hop for the route */
		int same = L->c && rank < L->c->n && peer < L->c->n && L->c->rank_group[rank] == L->c->rank_group[peer];
		o->op.delay_s = !L->c ? 0
		              : ccs_nccl_latency(&L->c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, same, !same) -
		                ccs_nccl_latency(&L->c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0);
		/* a rendezvous (the receiver learns of the message and asks for
		 * it) comes before the bytes */
		o->rdv_s = L->c && !same ? ccs_transport_rdv(ccs_comm_tr(L->c), o->op.bytes) : 0;
		/* across groups, channel c leaves through the sender's (c mod k)-th
		 * best NIC and enters the receiver's, as NCCL spreads its channels
		 * over a GPU's NICs */
		int ka = L->c && !same && rank < L->c->n && peer < L->c->n ? ccs_comm_best_nics(L->c, (int)rank) : 0;
		int kb = ka ? ccs_comm_best_nics(L->c, (int)peer) : 0;
		if (ka > 0 && kb > 0) {
			o->op.nic_src = ccs_comm_nic(L->c, (int)rank, (int)(o->op.channel % (uint32_t)ka));
			o->op.nic_dst = ccs_comm_nic(L->c, (int)peer, (int)(o->op.channel % (uint32_t)kb));
		}
	} else {
		o->op.src = (int32_t)peer;     /* resolved below */
		o->op.dst = (int32_t)rank;
	}
	return CCS_OK;
}

/* A compute op's time, or a reduce's or copy's time through GPU memory. */
static int op_local(struct ld *L, const struct ccs_ynode *m, struct fop *o, int kind)
{
	int rc;
	if (kind == K_COMPUTE) {
		if ((rc = ccs_ytree_need(&L->d, m, "time", "a compute op")) ||
		    (rc = ccs_ytree_qty(&L->d, m, "time", CCS_QTY_TIME, &o->op.delay_s)))
			return rc;
	} else {
		double b = 0;
		if ((rc = ccs_ytree_need(&L->d, m, "bytes", "a reduce or copy")) || (rc = ccs_ytree_qty(&L->d, m, "bytes", CCS_QTY_SIZE, &b)))
			return rc;
		if (!L->c || L->c->mem_bw <= 0) {
			rc = ccs_ytree_error(&L->d, m, "reduce and copy need the GPU's memory_bandwidth in the topology");
			return rc;
		}
		o->op.delay_s = b * ccs_cost_mem_per_byte(L->c, kind == K_REDUCE) / L->c->mem_bw;
	}
	return CCS_OK;
}

/* Op i of the file, checked where it stands. */
static int read_op(struct ld *L, uint32_t i)
{
	static const char *const op_keys[] = { "name", "rank", "op", "peer", "bytes", "channel", "after",
	                                       "latency", "time" };
	static const char *const kinds[] = { "send", "recv", "compute", "reduce", "copy" };
	int rc;
	const struct ccs_ynode *m = L->ops->v[i];
	struct fop *o = &L->fo[i];
	if ((rc = ccs_ytree_kind(&L->d, m, CCS_Y_MAP, "an op")) || (rc = ccs_ytree_keys(&L->d, m, op_keys, 9, "an op")) ||
	    (rc = ccs_ytree_need(&L->d, m, "rank", "an op")) || (rc = ccs_ytree_need(&L->d, m, "op", "an op")))
		return rc;
	o->mark = m->mark;
	o->pair = -1;
	long rank = 0, ch = 0;
	const char *kind_s = NULL;
	if ((rc = ccs_ytree_long(&L->d, m, "rank", 0, 1000000, &rank, NULL)) || (rc = ccs_ytree_str(&L->d, m, "op", &kind_s)) ||
	    (rc = ccs_ytree_long(&L->d, m, "channel", 0, 65535, &ch, NULL)) || (rc = ccs_ytree_str(&L->d, m, "name", &o->name)))
		return rc;
	if (rank >= L->nr) {
		snprintf(L->msg, sizeof L->msg, "rank %ld is not in a %ld-rank schedule", rank, L->nr);
		rc = ccs_ytree_error(&L->d, ccs_ytree_get(m, "rank"), L->msg);
		return rc;
	}
	int kind = -1;
	for (int k = 0; k < 5; k++)
		if (!strcmp(kind_s, kinds[k]))
			kind = k;
	if (kind < 0) {
		snprintf(L->msg, sizeof L->msg, "unknown op '%s'; one of: send, recv, compute, reduce, copy", kind_s);
		rc = ccs_ytree_error(&L->d, ccs_ytree_get(m, "op"), L->msg);
		return rc;
	}
	o->op.src = o->op.dst = (int32_t)rank;
	o->op.channel = (uint32_t)ch;
	o->op.nic_src = o->op.nic_dst = UINT32_MAX;
	o->op.kind = kind == K_SEND ? CCS_OP_XFER : CCS_OP_DELAY;
	if ((rc = kind == K_SEND || kind == K_RECV ? op_transfer(L, m, o, kind, rank) : op_local(L, m, o, kind)))
		return rc;
	if (kind == K_RECV && ccs_ytree_get(m, "latency"))
		return ccs_ytree_error(&L->d, ccs_ytree_get(m, "latency"),
		                       "a recv completes when its send's bytes arrive: give 'latency' on the send");
	if (ccs_ytree_get(m, "latency") && (rc = ccs_ytree_qty(&L->d, m, "latency", CCS_QTY_TIME, &o->op.delay_s)))
		return rc;
	o->kind = kind;
	return CCS_OK;
}

/* The ops with names, sorted by (name, position): names are looked up by
 * bisection and duplicates sit side by side (qsort's comparator reads the
 * file's ops through this, one load at a time). */
static const struct fop *sort_fo;

static int by_name(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = strcmp(sort_fo[i].name, sort_fo[j].name);
	return c ? c : (i > j) - (i < j);
}

/* Op names are unique: of the names given twice, the one whose second use
 * comes first is reported there, with the line of its first. */
static int unique_names(struct ld *L)
{
	uint32_t n = 0;
	L->by_name = ccs_malloc(((size_t)L->nops + 1) * sizeof *L->by_name);
	if (!L->by_name)
		return CCS_ENOMEM;
	for (uint32_t i = 0; i < L->nops; i++)
		if (L->fo[i].name)
			L->by_name[n++] = i;
	L->nnamed = n;
	sort_fo = L->fo;
	qsort(L->by_name, n, sizeof *L->by_name, by_name);
	uint32_t bad = UINT32_MAX, first = 0;
	for (uint32_t k = 1; k < n; k++) {
		uint32_t i = L->by_name[k], j = L->by_name[k - 1];
		if (!strcmp(L->fo[i].name, L->fo[j].name) && (k < 2 || strcmp(L->fo[L->by_name[k - 2]].name, L->fo[j].name)) &&
		    i < bad) {
			bad = i;
			first = j;
		}
	}
	if (bad == UINT32_MAX)
		return CCS_OK;
	snprintf(L->msg, sizeof L->msg, "duplicate op name '%s' (first at line %d)", L->fo[bad].name, L->fo[first].mark.line);
	return ccs_ytree_error(&L->d, ccs_ytree_get(L->ops->v[bad], "name"), L->msg);
}

/* The op named s, or -1. */
static int find_name(const struct ld *L, const char *s)
{
	uint32_t lo = 0, hi = L->nnamed;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(L->fo[L->by_name[mid]].name, s);
		if (c == 0) {
			/* the first of equal names (there are none after unique_names) */
			return (int)L->by_name[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* (sender, receiver, channel) of two ops compared. */
static int cmp_triple(const struct fop *x, const struct fop *y)
{
	if (x->op.src != y->op.src)
		return x->op.src < y->op.src ? -1 : 1;
	if (x->op.dst != y->op.dst)
		return x->op.dst < y->op.dst ? -1 : 1;
	if (x->op.channel != y->op.channel)
		return x->op.channel < y->op.channel ? -1 : 1;
	return 0;
}

/* Sends (or receives) sorted by (sender, receiver, channel, position). */
static int by_triple(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = cmp_triple(&sort_fo[i], &sort_fo[j]);
	return c ? c : (i > j) - (i < j);
}

/* Sends and receives pair in order per (sender, receiver, channel): the
 * k-th send of a triple with its k-th recv.  Of those left over, the
 * first send in the file is reported, else the first recv. */
static int pair_ops(struct ld *L)
{
	uint32_t *sd = ccs_malloc(((size_t)L->nops + 1) * sizeof *sd), *rv = ccs_malloc(((size_t)L->nops + 1) * sizeof *rv);
	uint32_t ns = 0, nr = 0, bad_s = UINT32_MAX, bad_r = UINT32_MAX;
	if (!sd || !rv) {
		ccs_free(sd);
		ccs_free(rv);
		return CCS_ENOMEM;
	}
	for (uint32_t i = 0; i < L->nops; i++) {
		if (L->fo[i].kind == K_SEND)
			sd[ns++] = i;
		else if (L->fo[i].kind == K_RECV)
			rv[nr++] = i;
	}
	sort_fo = L->fo;
	qsort(sd, ns, sizeof *sd, by_triple);
	qsort(rv, nr, sizeof *rv, by_triple);
	uint32_t a = 0, b = 0;
	while (a < ns || b < nr) {
		int c = a == ns ? 1 : b == nr ? -1 : cmp_triple(&L->fo[sd[a]], &L->fo[rv[b]]);
		if (c == 0) {
			L->fo[sd[a]].pair = (int)rv[b];
			L->fo[rv[b]].pair = (int)sd[a];
			a++, b++;
		} else if (c < 0) {
			bad_s = sd[a] < bad_s ? sd[a] : bad_s;
			a++;
		} else {
			bad_r = rv[b] < bad_r ? rv[b] : bad_r;
			b++;
		}
	}
	ccs_free(sd);
	ccs_free(rv);
	if (bad_s != UINT32_MAX) {
		const struct fop *o = &L->fo[bad_s];
		snprintf(L->msg, sizeof L->msg, "send from rank %d to rank %d on channel %u has no matching recv", o->op.src,
		         o->op.dst, o->op.channel);
		return ccs_ytree_error(&L->d, L->ops->v[bad_s], L->msg);
	}
	if (bad_r != UINT32_MAX) {
		const struct fop *o = &L->fo[bad_r];
		snprintf(L->msg, sizeof L->msg, "recv on rank %d from rank %d on channel %u has no matching send", o->op.dst,
		         o->op.src, o->op.channel);
		return ccs_ytree_error(&L->d, L->ops->v[bad_r], L->msg);
	}
	return CCS_OK;
}

/* The ops, numbered as in the file, then one arrival op per send (a delay
 * of the send's latency, on the receiver); edges: send -> its arrival ->
 * its recv, each `after` -> the op. */
static int make_dag(struct ld *L)
{
	int rc = CCS_OK;
	L->arr_of = ccs_malloc(((size_t)L->nops + 1) * sizeof *L->arr_of);
	if (!L->arr_of)
		return CCS_ENOMEM;
	L->narr = 0;
	for (uint32_t i = 0; i < L->nops; i++) {
		uint32_t id;
		if (L->fo[i].kind == K_RECV) {
			L->fo[i].op.delay_s = 0;
			L->fo[i].op.src = L->fo[i].op.dst;   /* the op is the receiver's */
		}
		struct ccs_op op = L->fo[i].op;
		if (L->fo[i].kind == K_SEND)
			op.delay_s = L->fo[i].rdv_s;         /* its rendezvous; its latency is its arrival's */
		if ((rc = ccs_dag_op(L->dag, &op, &id)))
			return rc;
	}
	for (uint32_t i = 0; i < L->nops; i++) {
		if (L->fo[i].kind != K_SEND)
			continue;
		struct ccs_op a = { 0 };
		a.kind = CCS_OP_DELAY;
		a.src = -1;                          /* of no rank: not a step of the file's */
		a.dst = L->fo[i].op.dst;             /* (a trace draws its latency on the receiver) */
		a.channel = L->fo[i].op.channel;
		a.nic_src = a.nic_dst = UINT32_MAX;
		a.delay_s = L->fo[i].op.delay_s;
		uint32_t id;
		if ((rc = ccs_dag_op(L->dag, &a, &id)) || (rc = ccs_dag_edge(L->dag, i, id)) ||
		    (rc = ccs_dag_edge(L->dag, id, (uint32_t)L->fo[i].pair)))
			return rc;
		L->arr_of[L->narr++] = i;
	}
	for (uint32_t i = 0; i < L->nops; i++) {
		const struct ccs_ynode *after = ccs_ytree_get(L->ops->v[i], "after");
		if (!after)
			continue;
		if ((rc = ccs_ytree_kind(&L->d, after, CCS_Y_SEQ, "after")))
			return rc;
		for (uint32_t a = 0; a < after->n; a++) {
			if ((rc = ccs_ytree_kind(&L->d, after->v[a], CCS_Y_SCALAR, "an op name")))
				return rc;
			int found = find_name(L, after->v[a]->str);
			if (found < 0) {
				snprintf(L->msg, sizeof L->msg, "unknown op '%s' in 'after'", after->v[a]->str);
				rc = ccs_ytree_error(&L->d, after->v[a], L->msg);
				return rc;
			}
			if ((rc = ccs_dag_edge(L->dag, (uint32_t)found, i)))
				return rc;
		}
	}
	return rc;
}

/* Successor lists, limits and cycles; s runs the dag on success. */
static int install(struct ld *L, struct ccs_sched *s)
{
	int rc = CCS_OK;
	/* successor lists, limits, cycles */
	uint32_t bad = 0;
	int cycle = 0;
	rc = ccs_dag_install(L->dag, s, &bad, &cycle);
	if (rc == CCS_EINPUT && bad >= L->nops)
		bad = bad - L->nops < L->narr ? L->arr_of[bad - L->nops] : 0;   /* an arrival: its send */
	if (rc == CCS_EINPUT) {
		if (cycle)
			snprintf(L->msg, sizeof L->msg, "op %s%s%s is in a dependency cycle", L->fo[bad].name ? "'" : "",
			         L->fo[bad].name ? L->fo[bad].name : "here", L->fo[bad].name ? "'" : "");
		else
			snprintf(L->msg, sizeof L->msg, "an op may release at most %d ops and wait for at most 255",
			         CCS_SCHED_MAXSUCC);
		rc = ccs_ytree_error(&L->d, L->ops->v[bad], L->msg);
		return rc;
	}
	if (rc)
		return rc;
	s->coll = L->coll;
	s->coll_bytes = L->coll_bytes;
	return rc;
}

/* The file's tree: its YAML, or its MSCCL XML as YAML (msccl.c), named so
 * that a message about the YAML is not taken for one about the XML's lines. */
static int load_root(struct ld *L, const char *path, const char *text, size_t tlen, double bytes, struct ccs_diag *diag,
                     struct ccs_ynode **root)
{
	memset(&L->d, 0, sizeof L->d);
	ccs_arena_init(&L->d.own);
	L->d.a = &L->d.own;
	L->d.diag = diag;
	L->d.kind = "schedule";
	L->d.max_file = CCS_SCHED_MAX_FILE;
	char *buf;
	size_t len;
	if (text) {
		/* a copy, as the file's text would be: the readers may change it */
		if (!(buf = ccs_malloc(tlen + 1)))
			return CCS_ENOMEM;
		memcpy(buf, text, tlen);
		buf[tlen] = 0;
		len = tlen;
	} else
		CCS_TRY(ccs_ytree_read_file(&L->d, path, NULL, &buf, &len));
	const char *name = path;
	if (ccs_xml_is(buf, len)) {
		char *yaml;
		int rc = ccs_sched_msccl_yaml(path, buf, len, bytes, &yaml, diag);
		ccs_free(buf);
		if (rc)
			return rc;
		buf = yaml;
		len = strlen(yaml);
		snprintf(L->src, sizeof L->src, "%s (as schedule YAML)", path);
		name = L->src;
	}
	int src, rc = ccs_ytree_add_src(&L->d, name, &src);
	if (!rc) {
		L->d.cur = src;
		L->d.kind = "schedule";
		rc = ccs_ytree_parse(&L->d, buf, len, root);
	}
	ccs_free(buf);
	/* an MSCCL++ plan (JSON) read as YAML: its ops as schedule YAML
	 * (mscclpp.c), parsed as a second source so messages about the YAML are
	 * not taken for ones about the JSON's lines */
	if (!rc && ccs_sched_mscclpp_is(*root)) {
		char *yaml;
		if ((rc = ccs_sched_mscclpp_yaml(&L->d, path, *root, bytes, &yaml)))
			return rc;
		snprintf(L->src, sizeof L->src, "%s (as schedule YAML)", path);
		if (!(rc = ccs_ytree_add_src(&L->d, L->src, &src))) {
			L->d.cur = src;
			rc = ccs_ytree_parse(&L->d, yaml, strlen(yaml), root);
		}
		ccs_free(yaml);
	}
	return rc;
}

/* `collective:` and `size:` (both or neither): what the schedule
 * implements and its nccl-tests size, kept in L for install. */
static int read_coll(struct ld *L, const struct ccs_ynode *root)
{
	const struct ccs_ynode *cy = ccs_ytree_get(root, "collective"), *sy = ccs_ytree_get(root, "size");
	if (!cy && !sy)
		return CCS_OK;
	if (!cy || !sy)
		return ccs_diag_at(L->d.diag, (cy ? cy : sy)->mark,
		                   "'collective' and 'size' go together (the size nccl-tests prints, for algbw and busbw)");
	CCS_TRY(ccs_ytree_kind(&L->d, cy, CCS_Y_SCALAR, "collective"));
	int coll = ccs_coll_parse(cy->str);
	if (coll < 0)
		return ccs_diag_at(L->d.diag, cy->mark, "unknown collective '%s'", cy->str);
	double b = 0;
	CCS_TRY(ccs_ytree_qty(&L->d, root, "size", CCS_QTY_SIZE, &b));
	if (!(b > 0))
		return ccs_diag_at(L->d.diag, sy->mark, "'size' must be above 0");
	L->coll = coll;
	L->coll_bytes = b;
	return CCS_OK;
}

static int load(const char *path, const char *text, size_t tlen, const struct ccs_comm *c, double bytes, struct ccs_sched *s,
                int *ranks, struct ccs_diag *diag)
{
	static const char *const top_keys[] = { "name", "description", "ranks", "ops", "collective", "size" };
	struct ld ld, *L = &ld;
	memset(L, 0, sizeof *L);
	L->c = c;
	memset(s, 0, sizeof *s);
	struct ccs_ynode *root = NULL;
	int rc = load_root(L, path, text, tlen, bytes, diag, &root);
	if (rc)
		goto out;
	if ((rc = ccs_ytree_keys(&L->d, root, top_keys, 6, "the schedule")) ||
	    (rc = ccs_ytree_need(&L->d, root, "ranks", "the schedule")) ||
	    (rc = ccs_ytree_need(&L->d, root, "ops", "the schedule")) ||
	    (rc = ccs_ytree_long(&L->d, root, "ranks", 1, 1000000, &L->nr, NULL)))
		goto out;
	*ranks = (int)L->nr;
	L->ops = ccs_ytree_get(root, "ops");
	if ((rc = ccs_ytree_kind(&L->d, L->ops, CCS_Y_SEQ, "ops")))
		goto out;
	rc = CCS_ENOMEM;
	L->nops = L->ops->n;
	L->fo = ccs_calloc((size_t)L->nops + 1, sizeof *L->fo);
	if (!L->fo || ccs_dag_new(&L->dag))
		goto out;
	rc = CCS_OK;
	for (uint32_t i = 0; i < L->nops && !rc; i++)
		rc = read_op(L, i);
	if (!rc && !(rc = unique_names(L)) && !(rc = pair_ops(L)) && !(rc = make_dag(L)) && !(rc = read_coll(L, root)) &&
	    !(rc = install(L, s)))
		L->dag = NULL;
out:
	if (rc == CCS_ENOMEM && !diag->set)
		ccs_diag_msg(diag, "%s: out of memory", path);
	ccs_dag_free(L->dag);
	ccs_free(L->by_name);
	ccs_free(L->arr_of);
	ccs_free(L->fo);
	ccs_ytree_release(&L->d);
	return rc;
}

int ccs_sched_file_load(const char *path, const struct ccs_comm *c, double bytes, struct ccs_sched *s, int *ranks,
                        struct ccs_diag *diag)
{
	return load(path, NULL, 0, c, bytes, s, ranks, diag);
}

int ccs_sched_text_load(const char *name, const char *text, size_t len, const struct ccs_comm *c, double bytes,
                        struct ccs_sched *s, int *ranks, struct ccs_diag *diag)
{
	return load(name, text, len, c, bytes, s, ranks, diag);
}
