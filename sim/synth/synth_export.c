/*
** sim/synth/synth_export.c: the lowered plan (synth.h) as an MSCCL
** algorithm (XML, as msccl-tools writes it and sim/sched/msccl.c reads it)
** and as ccsim's own schedule YAML (sim/sched/file.c) with the same ops
** msccl.c makes of the XML: each step's receive, reduce and copy (RRC),
** send, in that order, the first after the block's previous step and the
** step it depends on.
*/
#include "synth.h"

#include "../../model/coll.h"

#include <math.h>
#include <stdio.h>

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
