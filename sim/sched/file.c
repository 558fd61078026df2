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
** completes when its send's bytes arrive.  compute waits `time`; reduce and
** copy take `bytes` at the GPU's memory bandwidth (2.5 and 2 bytes of
** traffic per byte).  Every op may name the ops it waits for (`after`) and a
** `latency` (default: the model's hop latency for the route).  Checked
** before anything runs, each error at its position: unknown keys and
** values, ranks and peers out of range, duplicate or unknown names,
** unmatched sends and receives, dependency cycles.
*/
#include "sched.h"

#include "../../model/nccl_tables.h"
#include "../../model/ytree.h"

#include <stdio.h>
#include <string.h>

/* What the loader keeps of each op until the schedule is built. */
struct fop {
	struct ccs_op op;
	struct ccs_mark mark;
	const char *name;
	int kind;
	int pair;                    /* send: its recv; recv: its send; else -1 */
};

enum { K_SEND, K_RECV, K_COMPUTE, K_REDUCE, K_COPY };

int ccs_sched_load(const char *path, const struct ccs_comm *c, struct ccs_sched *s, int *ranks,
                   struct ccs_diag *diag)
{
	static const char *const top_keys[] = { "name", "description", "ranks", "ops" };
	static const char *const op_keys[] = { "name", "rank", "op", "peer", "bytes", "channel", "after",
	                                       "latency", "time" };
	static const char *const kinds[] = { "send", "recv", "compute", "reduce", "copy" };
	struct ccs_ydoc d;
	struct ccs_ynode *root = NULL;
	struct fop *fo = NULL;
	struct ccs_dag *dag = NULL;
	char msg[512];
	memset(s, 0, sizeof *s);
	int rc = ccs_ytree_load(&d, path, diag, &root);
	if (rc)
		goto out;
	if ((rc = ccs_ytree_keys(&d, root, top_keys, 4, "the schedule")) || (rc = ccs_ytree_need(&d, root, "ranks", "the schedule")) ||
	    (rc = ccs_ytree_need(&d, root, "ops", "the schedule")))
		goto out;
	long nr = 0;
	if ((rc = ccs_ytree_long(&d, root, "ranks", 1, 1000000, &nr, NULL)))
		goto out;
	*ranks = (int)nr;
	const struct ccs_ynode *ops = ccs_ytree_get(root, "ops");
	if ((rc = ccs_ytree_kind(&d, ops, CCS_Y_SEQ, "ops")))
		goto out;
	rc = CCS_ENOMEM;
	uint32_t nops = ops->n;
	fo = ccs_calloc((size_t)nops + 1, sizeof *fo);
	if (!fo || ccs_dag_new(&dag))
		goto out;

	/* each op */
	for (uint32_t i = 0; i < ops->n; i++) {
		const struct ccs_ynode *m = ops->v[i];
		struct fop *o = &fo[i];
		if ((rc = ccs_ytree_kind(&d, m, CCS_Y_MAP, "an op")) || (rc = ccs_ytree_keys(&d, m, op_keys, 9, "an op")) ||
		    (rc = ccs_ytree_need(&d, m, "rank", "an op")) || (rc = ccs_ytree_need(&d, m, "op", "an op")))
			goto out;
		o->mark = m->mark;
		o->pair = -1;
		long rank = 0, peer = -1, ch = 0;
		const char *kind_s = NULL;
		if ((rc = ccs_ytree_long(&d, m, "rank", 0, 1000000, &rank, NULL)) || (rc = ccs_ytree_str(&d, m, "op", &kind_s)) ||
		    (rc = ccs_ytree_long(&d, m, "channel", 0, 63, &ch, NULL)) || (rc = ccs_ytree_str(&d, m, "name", &o->name)))
			goto out;
		if (rank >= nr) {
			snprintf(msg, sizeof msg, "rank %ld is not in a %ld-rank schedule", rank, nr);
			rc = ccs_ytree_error(&d, ccs_ytree_get(m, "rank"), msg);
			goto out;
		}
		int kind = -1;
		for (int k = 0; k < 5; k++)
			if (!strcmp(kind_s, kinds[k]))
				kind = k;
		if (kind < 0) {
			snprintf(msg, sizeof msg, "unknown op '%s'; one of: send, recv, compute, reduce, copy", kind_s);
			rc = ccs_ytree_error(&d, ccs_ytree_get(m, "op"), msg);
			goto out;
		}
		o->op.src = o->op.dst = (int32_t)rank;
		o->op.channel = (uint32_t)ch;
		o->op.nic_src = o->op.nic_dst = UINT32_MAX;
		o->op.kind = kind == K_SEND ? CCS_OP_XFER : CCS_OP_DELAY;
		if (kind == K_SEND || kind == K_RECV) {
			const char *what = kind == K_SEND ? "a send" : "a recv";
			if ((rc = ccs_ytree_need(&d, m, "peer", what)) || (kind == K_SEND && (rc = ccs_ytree_need(&d, m, "bytes", what))))
				goto out;
			if ((rc = ccs_ytree_long(&d, m, "peer", 0, 1000000, &peer, NULL)))
				goto out;
			if (peer >= nr || peer == rank) {
				snprintf(msg, sizeof msg, peer == rank ? "peer %ld is the op's own rank" : "unknown peer %ld in a %ld-rank schedule",
				         peer, nr);
				rc = ccs_ytree_error(&d, ccs_ytree_get(m, "peer"), msg);
				goto out;
			}
			if (kind == K_SEND) {
				o->op.dst = (int32_t)peer;
				if ((rc = ccs_ytree_qty(&d, m, "bytes", CCS_QTY_SIZE, &o->op.bytes)))
					goto out;
				/* default latency: the model's hop for the route */
				int same = c && rank < c->n && peer < c->n && c->rank_group[rank] == c->rank_group[peer];
				o->op.delay_s = !c ? 0
				              : ccs_nccl_latency(c, CCS_ALGO_RING, CCS_PROTO_SIMPLE, same, !same) -
				                ccs_nccl_latency(c, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0);
			} else {
				o->op.src = (int32_t)peer;     /* resolved below */
				o->op.dst = (int32_t)rank;
			}
		} else if (kind == K_COMPUTE) {
			if ((rc = ccs_ytree_need(&d, m, "time", "a compute op")) ||
			    (rc = ccs_ytree_qty(&d, m, "time", CCS_QTY_TIME, &o->op.delay_s)))
				goto out;
		} else {
			double b = 0;
			if ((rc = ccs_ytree_need(&d, m, "bytes", "a reduce or copy")) || (rc = ccs_ytree_qty(&d, m, "bytes", CCS_QTY_SIZE, &b)))
				goto out;
			if (!c || c->mem_bw <= 0) {
				rc = ccs_ytree_error(&d, m, "reduce and copy need the GPU's memory_bandwidth in the topology");
				goto out;
			}
			o->op.delay_s = b * (kind == K_REDUCE ? 2.5 : 2.0) / c->mem_bw;
		}
		if (ccs_ytree_get(m, "latency") && (rc = ccs_ytree_qty(&d, m, "latency", CCS_QTY_TIME, &o->op.delay_s)))
			goto out;
		o->kind = kind;
	}

	/* names unique */
	for (uint32_t i = 0; i < nops; i++) {
		if (!fo[i].name)
			continue;
		for (uint32_t j = 0; j < i; j++)
			if (fo[j].name && !strcmp(fo[i].name, fo[j].name)) {
				snprintf(msg, sizeof msg, "duplicate op name '%s' (first at line %d)", fo[i].name,
				         fo[j].mark.line);
				rc = ccs_ytree_error(&d, ccs_ytree_get(ops->v[i], "name"), msg);
				goto out;
			}
	}
	/* pair sends and receives in order per (sender, receiver, channel) */
	for (uint32_t i = 0; i < nops; i++) {
		struct fop *o = &fo[i];
		if (o->kind != K_SEND || o->pair >= 0)
			continue;
		/* the k-th send of this triple pairs with the k-th recv */
		uint32_t k = 0;
		for (uint32_t j = 0; j < i; j++)
			k += fo[j].kind == K_SEND && fo[j].op.src == o->op.src && fo[j].op.dst == o->op.dst &&
			     fo[j].op.channel == o->op.channel;
		uint32_t seen = 0;
		for (uint32_t j = 0; j < nops; j++) {
			struct fop *r = &fo[j];
			if (r->kind != K_RECV || r->op.src != o->op.src || r->op.dst != o->op.dst || r->op.channel != o->op.channel)
				continue;
			if (seen++ == k) {
				o->pair = (int)j;
				r->pair = (int)i;
				break;
			}
		}
		if (o->pair < 0) {
			snprintf(msg, sizeof msg, "send from rank %d to rank %d on channel %u has no matching recv",
			         o->op.src, o->op.dst, o->op.channel);
			rc = ccs_ytree_error(&d, ops->v[i], msg);
			goto out;
		}
	}
	for (uint32_t i = 0; i < nops; i++)
		if (fo[i].kind == K_RECV && fo[i].pair < 0) {
			snprintf(msg, sizeof msg, "recv on rank %d from rank %d on channel %u has no matching send",
			         fo[i].op.dst, fo[i].op.src, fo[i].op.channel);
			rc = ccs_ytree_error(&d, ops->v[i], msg);
			goto out;
		}
	/* the ops, numbered as in the file; edges: send -> its recv; each
	 * `after` -> op */
	for (uint32_t i = 0; i < nops; i++) {
		uint32_t id;
		if (fo[i].kind == K_RECV) {
			fo[i].op.delay_s = 0;
			fo[i].op.src = fo[i].op.dst;   /* the op is the receiver's */
		}
		if ((rc = ccs_dag_op(dag, &fo[i].op, &id)))
			goto out;
	}
	for (uint32_t i = 0; i < nops; i++) {
		if (fo[i].kind == K_RECV && (rc = ccs_dag_edge(dag, (uint32_t)fo[i].pair, i)))
			goto out;
		const struct ccs_ynode *after = ccs_ytree_get(ops->v[i], "after");
		if (!after)
			continue;
		if ((rc = ccs_ytree_kind(&d, after, CCS_Y_SEQ, "after")))
			goto out;
		for (uint32_t a = 0; a < after->n; a++) {
			if ((rc = ccs_ytree_kind(&d, after->v[a], CCS_Y_SCALAR, "an op name")))
				goto out;
			int found = -1;
			for (uint32_t j = 0; j < nops && found < 0; j++)
				if (fo[j].name && !strcmp(fo[j].name, after->v[a]->str))
					found = (int)j;
			if (found < 0) {
				snprintf(msg, sizeof msg, "unknown op '%s' in 'after'", after->v[a]->str);
				rc = ccs_ytree_error(&d, after->v[a], msg);
				goto out;
			}
			if ((rc = ccs_dag_edge(dag, (uint32_t)found, i)))
				goto out;
		}
	}
	/* successor lists, limits, cycles */
	uint32_t bad = 0;
	int cycle = 0;
	rc = ccs_dag_install(dag, s, &bad, &cycle);
	if (rc == CCS_EINPUT) {
		if (cycle)
			snprintf(msg, sizeof msg, "op %s%s%s is in a dependency cycle", fo[bad].name ? "'" : "",
			         fo[bad].name ? fo[bad].name : "here", fo[bad].name ? "'" : "");
		else
			snprintf(msg, sizeof msg, "an op may release at most %d ops and wait for at most 255",
			         CCS_SCHED_MAXSUCC);
		rc = ccs_ytree_error(&d, ops->v[bad], msg);
		goto out;
	}
	if (rc)
		goto out;
	dag = NULL;
	rc = CCS_OK;
out:
	if (rc == CCS_ENOMEM && !diag->set)
		ccs_diag_msg(diag, "%s: out of memory", path);
	ccs_dag_free(dag);
	ccs_free(fo);
	ccs_ytree_release(&d);
	return rc;
}
