/*
** sim/sched/msccl.c: an MSCCL algorithm (its XML, as msccl-tools writes it)
** as a schedule in the YAML of file.c (docs/simulator.md, "MSCCL
** algorithms"):
**
**   <algo name proto nchannels nchunksperloop ngpus coll inplace>
**     <gpu id i_chunks o_chunks s_chunks>
**       <tb id send recv chan>
**         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>
**
** A thread block sends to one peer and receives from one (-1: none) on
** channel chan; its steps run in order, and a step may also wait for step
** `deps` of thread block `depid` of the same GPU.  A step of cnt chunks,
** each S / nchunksperloop bytes of the S the run moves, becomes ops:
**   s     send                       r     recv
**   rrs   recv, reduce, send         rcs   recv, send (copied on the way)
**   rrc   recv, reduce, copy         rrcs  recv, reduce, copy, send
**   re    reduce                     cpy   copy
**   nop   nothing (a dependency point)
** Sends and receives pair in order per (sender, receiver, channel), as
** file.c pairs them; a pair that does not add up is refused here, at the
** thread block that is short, with the XML's positions.
*/
#include "build.h"

#include "../../model/xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mconv {
	const char *name;
	const struct ccs_xml *x;
	struct ccs_diag *d;
	struct ccs_text o;
	long ngpus, nch;
	long chunks[3];             /* the current <gpu>'s i_chunks, o_chunks, s_chunks; -1: not given */
	double chunk;               /* bytes per chunk */
	long *pairs;                /* per (src, dst, chan): sends - recvs */
	int *first_tb;              /* per (src, dst, chan): a thread block that sends there (its node) */
};

/* Integer attribute k of e in [lo, hi] (dflt when absent; lo - 1 dflt:
 * required). */
static int inum(struct mconv *v, const struct ccs_xml_node *e, const char *k, long lo, long hi, long dflt, long *out)
{
	const char *s = ccs_xml_attr(e, k);
	if (!s) {
		if (dflt < lo)
			return ccs_xml_at(v->d, v->name, e, "needs '%s'", k);
		*out = dflt;
		return CCS_OK;
	}
	char *end;
	long x = strtol(s, &end, 10);
	if (end == s || *end || x < lo || x > hi)
		return ccs_xml_at(v->d, v->name, e, "'%s' must be a whole number from %ld to %ld, got '%s'", k, lo, hi, s);
	*out = x;
	return CCS_OK;
}

/* Step types: which parts each has (recv, reduce, copy, send). */
static const struct {
	const char *t;
	int r, x, c, s;
} kinds[] = {
	{ "s", 0, 0, 0, 1 }, { "r", 1, 0, 0, 0 }, { "rrs", 1, 1, 0, 1 }, { "rcs", 1, 0, 0, 1 },
	{ "rrc", 1, 1, 1, 0 }, { "rrcs", 1, 1, 1, 1 }, { "re", 0, 1, 0, 0 }, { "cpy", 0, 0, 1, 0 },
	{ "nop", 0, 0, 0, 0 },
};

/* The last op of step s of thread block tb on gpu g, written as YAML. */
static void step_name(char *buf, size_t n, long g, long tb, long s)
{
	snprintf(buf, n, "g%ldt%lds%ld", g, tb, s);
}

/* A step's chunks [off, off + cnt) of buffer buf ('i', 'o' or 's') lie
 * inside the buffer its <gpu> declares (an offset past the end was
 * accepted before); an offset of -1 or an undeclared size is not checked. */
static int buf_range(struct mconv *v, const struct ccs_xml_node *st, const char *bk, const char *ok, long cnt)
{
	const char *b = ccs_xml_attr(st, bk);
	long off;
	CCS_TRY(inum(v, st, ok, -1, 1L << 30, -1, &off));
	if (!b || off < 0)
		return CCS_OK;
	int w = !strcmp(b, "i") ? 0 : !strcmp(b, "o") ? 1 : !strcmp(b, "s") ? 2 : -1;
	if (w < 0)
		return ccs_xml_at(v->d, v->name, st, "'%s' must be i, o or s (input, output, scratch), got '%s'", bk, b);
	static const char *const names[3] = { "i_chunks", "o_chunks", "s_chunks" };
	if (v->chunks[w] >= 0 && off + cnt > v->chunks[w])
		return ccs_xml_at(v->d, v->name, st, "%s %ld + cnt %ld runs past the %ld chunks of buffer '%s' (its gpu's %s)", ok,
		                  off, cnt, v->chunks[w], b, names[w]);
	return CCS_OK;
}

/* One step's ops; prev: the op it follows in its thread block ("" none). */
static int one_step(struct mconv *v, long g, long tb, long send, long recv, long chan, const struct ccs_xml_node *st,
                    long s, const char *prev)
{
	const char *type = ccs_xml_attr(st, "type");
	if (!type)
		return ccs_xml_at(v->d, v->name, st, "needs 'type'");
	int k = -1;
	for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
		if (!strcmp(kinds[i].t, type))
			k = i;
	if (k < 0)
		return ccs_xml_at(v->d, v->name, st, "unknown step type '%s'; one of: s, r, rrs, rcs, rrc, rrcs, re, cpy, nop", type);
	long cnt, depid, deps;
	CCS_TRY(inum(v, st, "cnt", 1, 1 << 20, 1, &cnt));
	CCS_TRY(buf_range(v, st, "srcbuf", "srcoff", cnt));
	CCS_TRY(buf_range(v, st, "dstbuf", "dstoff", cnt));
	CCS_TRY(inum(v, st, "depid", -1, 1 << 20, -1, &depid));
	CCS_TRY(inum(v, st, "deps", -1, 1 << 20, -1, &deps));
	if ((kinds[k].s && send < 0) || (kinds[k].r && recv < 0))
		return ccs_xml_at(v->d, v->name, st, "a '%s' step in a thread block with no %s peer", type, kinds[k].s && send < 0 ? "send" : "recv");
	char base[64], dep[64] = "", after[160];
	step_name(base, sizeof base, g, tb, s);
	if (depid >= 0 && deps >= 0)
		step_name(dep, sizeof dep, g, depid, deps);
	snprintf(after, sizeof after, "%s%s%s", prev, prev[0] && dep[0] ? ", " : "", dep);
	double bytes = cnt * v->chunk;
	/* the parts in order, each after the one before */
	const char *last = after;
	char names[4][80];
	int np = 0;
	if (kinds[k].r) {
		snprintf(names[np], sizeof names[np], "%s_r", base);
		ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, op: recv, peer: %ld, channel: %ld%s%s%s}\n", names[np], g, recv, chan,
		    last[0] ? ", after: [" : "", last, last[0] ? "]" : "");
		size_t p = (size_t)((recv * v->ngpus + g) * v->nch + chan);
		v->pairs[p]--;
		if (v->first_tb[p] < 0)
			v->first_tb[p] = (int)(st - v->x->n);
		last = names[np++];
	}
	if (kinds[k].x) {
		snprintf(names[np], sizeof names[np], "%s_x", base);
		ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, op: reduce, bytes: %.0fB%s%s%s}\n", names[np], g, bytes,
		    last[0] ? ", after: [" : "", last, last[0] ? "]" : "");
		last = names[np++];
	}
	if (kinds[k].c) {
		snprintf(names[np], sizeof names[np], "%s_c", base);
		ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, op: copy, bytes: %.0fB%s%s%s}\n", names[np], g, bytes,
		    last[0] ? ", after: [" : "", last, last[0] ? "]" : "");
		last = names[np++];
	}
	if (kinds[k].s) {
		snprintf(names[np], sizeof names[np], "%s_s", base);
		ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, op: send, peer: %ld, channel: %ld, bytes: %.0fB%s%s%s}\n", names[np], g,
		    send, chan, bytes, last[0] ? ", after: [" : "", last, last[0] ? "]" : "");
		size_t p = (size_t)((g * v->ngpus + send) * v->nch + chan);
		v->pairs[p]++;
		if (v->first_tb[p] < 0)
			v->first_tb[p] = (int)(st - v->x->n);
		last = names[np++];
	}
	/* the step's own name marks its end, for later steps and deps */
	ccs_text_printf(&v->o, "  - {name: %s, rank: %ld, op: compute, time: 0us%s%s%s}\n", base, g, last[0] ? ", after: [" : "",
	    last, last[0] ? "]" : "");
	return CCS_OK;
}

static int one_tb(struct mconv *v, long g, const struct ccs_xml_node *tbn)
{
	long id, send, recv, chan;
	CCS_TRY(inum(v, tbn, "id", 0, 1 << 20, -1, &id));
	CCS_TRY(inum(v, tbn, "send", -1, v->ngpus - 1, -1, &send));
	CCS_TRY(inum(v, tbn, "recv", -1, v->ngpus - 1, -1, &recv));
	CCS_TRY(inum(v, tbn, "chan", 0, v->nch - 1, 0, &chan));
	if (send == g || recv == g)
		return ccs_xml_at(v->d, v->name, tbn, "thread block %ld of gpu %ld sends to or receives from itself", id, g);
	char prev[64] = "";
	long expect = 0;
	for (int c = tbn->child; c >= 0; c = v->x->n[c].next) {
		const struct ccs_xml_node *st = &v->x->n[c];
		if (strcmp(st->name, "step"))
			continue;
		long s;
		CCS_TRY(inum(v, st, "s", 0, 1 << 20, expect, &s));
		if (s != expect)
			return ccs_xml_at(v->d, v->name, st, "step %ld where step %ld comes next", s, expect);
		CCS_TRY(one_step(v, g, id, send, recv, chan, st, s, prev));
		step_name(prev, sizeof prev, g, id, s);
		expect++;
	}
	return CCS_OK;
}

static int mconvert(struct mconv *v, double total)
{
	const struct ccs_xml_node *a = &v->x->n[0];
	if (strcmp(a->name, "algo"))
		return ccs_xml_at(v->d, v->name, a, "not an MSCCL algorithm: the root is <%s>, expected <algo>", a->name);
	long nchunks;
	CCS_TRY(inum(v, a, "ngpus", 0, 65536, 0, &v->ngpus));      /* 0: the <gpu> count */
	CCS_TRY(inum(v, a, "nchannels", 1, 64, 1, &v->nch));
	CCS_TRY(inum(v, a, "nchunksperloop", 0, 1 << 24, 0, &nchunks));   /* 0: ngpus */
	if (!v->ngpus)
		for (int c = a->child; c >= 0; c = v->x->n[c].next)
			v->ngpus += !strcmp(v->x->n[c].name, "gpu");
	if (!v->ngpus)
		return ccs_xml_at(v->d, v->name, a, "no <gpu>");
	if (!nchunks)
		nchunks = v->ngpus;
	v->chunk = total / (double)nchunks;
	if (v->chunk < 1)
		v->chunk = 1;
	size_t np = (size_t)v->ngpus * (size_t)v->ngpus * (size_t)v->nch;
	v->pairs = ccs_calloc(np + 1, sizeof *v->pairs);
	v->first_tb = ccs_malloc((np + 1) * sizeof *v->first_tb);
	if (!v->pairs || !v->first_tb)
		return CCS_ENOMEM;
	for (size_t i = 0; i < np; i++)
		v->first_tb[i] = -1;
	const char *nm = ccs_xml_attr(a, "name");
	ccs_text_printf(&v->o, "# from the MSCCL algorithm %s (%s), %.0f bytes a chunk\nname: %s\nranks: %ld\nops:\n", v->name,
	    nm ? nm : "unnamed", v->chunk, nm ? nm : "msccl", v->ngpus);
	for (int c = a->child; c >= 0; c = v->x->n[c].next) {
		const struct ccs_xml_node *gn = &v->x->n[c];
		if (strcmp(gn->name, "gpu"))
			continue;
		long g;
		CCS_TRY(inum(v, gn, "id", 0, v->ngpus - 1, -1, &g));
		static const char *const bufs[3] = { "i_chunks", "o_chunks", "s_chunks" };
		for (int b = 0; b < 3; b++) {
			v->chunks[b] = -1;
			if (ccs_xml_attr(gn, bufs[b]))
				CCS_TRY(inum(v, gn, bufs[b], 0, 1L << 30, 0, &v->chunks[b]));
		}
		for (int t = gn->child; t >= 0; t = v->x->n[t].next)
			if (!strcmp(v->x->n[t].name, "tb"))
				CCS_TRY(one_tb(v, g, &v->x->n[t]));
	}
	for (size_t i = 0; i < np; i++)
		if (v->pairs[i]) {
			long ch = (long)(i % (size_t)v->nch), dst = (long)(i / (size_t)v->nch % (size_t)v->ngpus);
			long src = (long)(i / (size_t)v->nch / (size_t)v->ngpus);
			const struct ccs_xml_node *e = v->first_tb[i] >= 0 ? &v->x->n[v->first_tb[i]] : a;
			return ccs_xml_at(v->d, v->name, e, "gpu %ld sends to gpu %ld on channel %ld %ld time%s %s than gpu %ld receives from it", src,
			          dst, ch, labs(v->pairs[i]), labs(v->pairs[i]) == 1 ? "" : "s",
			          v->pairs[i] > 0 ? "more" : "fewer", dst);
		}
	return v->o.oom ? CCS_ENOMEM : CCS_OK;
}

int ccs_sched_msccl_yaml(const char *name, const char *text, size_t len, double bytes, char **yaml,
                         struct ccs_diag *d)
{
	*yaml = NULL;
	struct ccs_xml x;
	CCS_TRY(ccs_xml_parse(name, text, len, &x, d));
	struct mconv v;
	memset(&v, 0, sizeof v);
	v.name = name;
	v.x = &x;
	v.d = d;
	int rc = mconvert(&v, bytes);
	ccs_free(v.pairs);
	ccs_free(v.first_tb);
	ccs_xml_release(&x);
	if (rc) {
		ccs_free(v.o.s);
		if (rc == CCS_ENOMEM && !d->set)
			ccs_diag_msg(d, "%s: out of memory", name);
		return rc;
	}
	*yaml = v.o.s;
	return CCS_OK;
}
