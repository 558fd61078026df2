/*
** sim/synth/synth_export.c: the lowered plan (synth.h) as an MSCCL
** algorithm (XML, as msccl-tools writes it and sim/sched/msccl.c reads it)
** and as ccsim's own schedule YAML (sim/sched/file.c) with the same ops
** msccl.c makes of the XML: each step's receive, reduce and copy (RRC),
** send, in that order, the first after the block's previous step and the
** step it depends on.  And what a plan asks of MSCCL's runtime, against
** the limits its source sets (synth.h).
*/
#include "synth.h"

#include "../../model/coll.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const xml_coll[CCS_COLL_N] = {
	[CCS_COLL_ALLREDUCE] = "allreduce", [CCS_COLL_ALLGATHER] = "allgather",
	[CCS_COLL_REDUCESCATTER] = "reduce_scatter", [CCS_COLL_ALLTOALL] = "alltoall",
};

/* Which steps other steps wait for (MSCCL's hasdep), per block. */
static uint8_t **hasdep_marks(const struct ccs_synth_plan *p)
{
	uint8_t **m = ccs_calloc((size_t)p->ntb + 1, sizeof *m);
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < p->ntb; i++)
		if (!(m[i] = ccs_calloc((size_t)p->tb[i].n + 1, 1)))
			return m;
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
			for (uint32_t k = 0; k < p->tb[i].n; k++) {
				const struct ccs_synth_step *st = &p->tb[i].st[k];
				uint8_t *d = st->dep_tb >= 0 ? m[p->tb0[g] + (uint32_t)st->dep_tb] : NULL;
				if (d)
					d[st->dep_step] = 1;
			}
	return m;
}

static const char *const xml_type[] = { [CCS_SYNTH_SEND] = "s", [CCS_SYNTH_RECV] = "r", [CCS_SYNTH_RRC] = "rrc" };

void ccs_synth_xml(const struct ccs_synth_plan *p, const char *name, struct ccs_text *o)
{
	uint8_t **hd = hasdep_marks(p);
	ccs_text_printf(o, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%ld\" ngpus=\"%d\" coll=\"%s\" "
	                   "inplace=\"0\">\n", name, p->C, p->nchunks, p->n, xml_coll[p->coll]);
	for (int g = 0; g < p->n; g++) {
		ccs_text_printf(o, "  <gpu id=\"%d\" i_chunks=\"%ld\" o_chunks=\"%ld\" s_chunks=\"%ld\">\n", g, p->i_chunks, p->o_chunks,
		                p->s_chunks);
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			const struct ccs_synth_tb *t = &p->tb[i];
			ccs_text_printf(o, "    <tb id=\"%u\" send=\"%d\" recv=\"%d\" chan=\"%d\">\n", i - p->tb0[g], t->send, t->recv,
			                t->chan);
			for (uint32_t k = 0; k < t->n; k++) {
				const struct ccs_synth_step *st = &t->st[k];
				/* a receive lands where it is kept; a send reads it there */
				ccs_text_printf(o, "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%d\" dstbuf=\"%c\" dstoff=\"%d\" cnt=\"%d\" "
				                   "depid=\"%d\" deps=\"%d\" hasdep=\"%d\"/>\n", k, xml_type[st->type], st->buf, st->off,
				                st->buf, st->off, st->cnt, st->dep_tb, st->dep_step, hd && hd[i] ? hd[i][k] : 0);
			}
			ccs_text_printf(o, "    </tb>\n");
		}
		ccs_text_printf(o, "  </gpu>\n");
	}
	ccs_text_printf(o, "</algo>\n");
	for (uint32_t i = 0; hd && i < p->ntb; i++)
		ccs_free(hd[i]);
	ccs_free(hd);
	if (!hd)
		o->oom = 1;
}

/* A step's name in the YAML: its last part ends it. */
static void yname(char *b, size_t n, int g, uint32_t tb, uint32_t k, const char *part)
{
	snprintf(b, n, "g%dt%uk%u%s", g, tb, k, part);
}

void ccs_synth_yaml(const struct ccs_synth_plan *p, const char *name, double bytes, int reduce, struct ccs_text *o)
{
	double chunk = bytes / (double)p->nchunks;
	if (chunk < 1)
		chunk = 1;
	ccs_text_printf(o, "# synthesized %s, %.0f bytes a chunk\nname: %s\nranks: %d\nops:\n", xml_coll[p->coll], chunk, name, p->n);
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			const struct ccs_synth_tb *t = &p->tb[i];
			uint32_t tl = i - p->tb0[g];
			for (uint32_t k = 0; k < t->n; k++) {
				const struct ccs_synth_step *st = &t->st[k];
				char prev[48] = "", dep[48] = "", after[112], me[48];
				if (k)
					yname(prev, sizeof prev, g, tl, k - 1, "");
				if (st->dep_tb >= 0)
					yname(dep, sizeof dep, g, (uint32_t)st->dep_tb, (uint32_t)st->dep_step, "");
				snprintf(after, sizeof after, "%s%s%s", prev, prev[0] && dep[0] ? ", " : "", dep);
				double b = rint(st->cnt * chunk);
				if (st->type == CCS_SYNTH_SEND) {
					yname(me, sizeof me, g, tl, k, "");
					ccs_text_printf(o, "  - {name: %s, rank: %d, op: send, peer: %d, channel: %d, bytes: %.0fB%s%s%s}\n", me, g, t->send, t->chan, b,
					                after[0] ? ", after: [" : "", after, after[0] ? "]" : "");
					continue;
				}
				yname(me, sizeof me, g, tl, k, st->type == CCS_SYNTH_RECV || !reduce ? "" : "r");
				ccs_text_printf(o, "  - {name: %s, rank: %d, op: recv, peer: %d, channel: %d%s%s%s}\n", me, g, t->recv, t->chan,
				                after[0] ? ", after: [" : "", after, after[0] ? "]" : "");
				if (st->type == CCS_SYNTH_RRC && reduce) {
					char x[48], endn[48];
					yname(x, sizeof x, g, tl, k, "x");
					yname(endn, sizeof endn, g, tl, k, "");
					ccs_text_printf(o, "  - {name: %s, rank: %d, op: reduce, bytes: %.0fB, after: [%s]}\n", x, g, b, me);
					ccs_text_printf(o, "  - {name: %s, rank: %d, op: copy, bytes: %.0fB, after: [%s]}\n", endn, g, b, x);
				}
			}
		}
}

int ccs_synth_fit_of(const struct ccs_synth_plan *p, struct ccs_synth_fit *f)
{
	memset(f, 0, sizeof *f);
	f->chans = (uint32_t)p->C;
	/* per rank and channel, its sending and its receiving blocks */
	uint32_t *use = ccs_calloc(2 * (size_t)(p->C > 0 ? p->C : 1), sizeof *use);
	if (!use)
		return CCS_ENOMEM;
	for (int g = 0; g < p->n; g++) {
		uint32_t nt = p->tb0[g + 1] - p->tb0[g];
		if (nt > f->tbs)
			f->tbs = nt;
		memset(use, 0, 2 * (size_t)(p->C > 0 ? p->C : 1) * sizeof *use);
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			const struct ccs_synth_tb *t = &p->tb[i];
			if (t->n > f->steps)
				f->steps = t->n;
			for (int d = 0; d < 2; d++) {
				uint32_t *u = &use[2 * (size_t)t->chan + (size_t)d];
				if ((d ? t->recv : t->send) >= 0 && ++*u > f->per_chan)
					f->per_chan = *u;
			}
			for (uint32_t k = 0; k < t->n; k++) {
				const struct ccs_synth_step *st = &t->st[k];
				if ((uint32_t)st->cnt > f->cnt)
					f->cnt = (uint32_t)st->cnt;
				if (st->dep_tb >= 0 && (uint32_t)st->dep_tb > f->dep_tb)
					f->dep_tb = (uint32_t)st->dep_tb;
			}
		}
	}
	ccs_free(use);
	return CCS_OK;
}

int ccs_synth_fit_check(const struct ccs_synth_fit *f, char *why, size_t n)
{
	static const struct {
		size_t at;
		uint32_t max;
		const char *what;
	} lim[] = {
		{ offsetof(struct ccs_synth_fit, tbs), CCS_SYNTH_MSCCL_TBS, "thread blocks a rank (32 a channel x MAXCHANNELS)" },
		{ offsetof(struct ccs_synth_fit, steps), CCS_SYNTH_MSCCL_STEPS, "steps in a block (MSCCL_MAX_NUM_STEPS)" },
		{ offsetof(struct ccs_synth_fit, cnt), CCS_SYNTH_MSCCL_CNT, "chunks in a step (below MSCCL_MAX_COUNT)" },
		{ offsetof(struct ccs_synth_fit, chans), CCS_SYNTH_MSCCL_CHANS, "channels (MAXCHANNELS)" },
		{ offsetof(struct ccs_synth_fit, per_chan), CCS_SYNTH_MSCCL_PER_CHAN,
		  "blocks sending (or receiving) on one channel (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL)" },
		{ offsetof(struct ccs_synth_fit, dep_tb), CCS_SYNTH_MSCCL_DEP_TB, "as the block a step waits on (an int8_t)" },
	};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
		uint32_t v;
		memcpy(&v, (const char *)f + lim[i].at, sizeof v);
		if (v > lim[i].max) {
			snprintf(why, n, "%u %s where MSCCL's runtime holds %u", v, lim[i].what, lim[i].max);
			return 1;
		}
	}
	return 0;
}
