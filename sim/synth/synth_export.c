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

/* A block of more steps than MSCCL's runtime holds (synth.h) is written
 * as pieces: the first with the first CCS_SYNTH_MSCCL_STEPS steps, each
 * later one with at most one fewer, its first step waiting on the piece
 * before it (MSCCL's executor reads a nop's dependency as part of the next
 * step's, which must then have one of its own: so a first step that waits
 * on another block already is preceded by a nop that waits on the piece
 * before, else it waits on that piece itself).  Piece j goes on channel chan + j L, L the plan's channels
 * rounded up to a multiple of the most NICs a rank's channels leave its group
 * by (k <= 8), so that across groups a channel keeps its NIC (c mod k: file.c) and its peer's matching block, cut at the
 * same steps, meets it there (L = the plan's channels where no group
 * is crossed).  The ops msccl.c makes are the block's, with
 * a zero-time nop between pieces: the same schedule.  A rank's first
 * pieces keep the blocks' ids; the later ones follow, block by block. */
#define PIECE ((uint32_t)CCS_SYNTH_MSCCL_STEPS)

static uint32_t npieces(uint32_t n)
{
	return n <= PIECE ? 1 : 2 + (n - PIECE - 1) / (PIECE - 1);
}

/* step k of a block: its piece and its index there */
static void piece_of(uint32_t k, uint32_t *piece, uint32_t *local)
{
	if (k < PIECE) {
		*piece = 0;
		*local = k;
		return;
	}
	*piece = 1 + (k - PIECE) / (PIECE - 1);
	*local = 1 + (k - PIECE) % (PIECE - 1);
}

/* the last step (in the block's numbering) of piece j of a block of n */
static uint32_t piece_end(uint32_t j, uint32_t n)
{
	uint32_t e = j == 0 ? PIECE - 1 : PIECE + (PIECE - 1) * j - 1;
	return e < n - 1 ? e : n - 1;
}

static int chan_stride(const struct ccs_synth_plan *p)
{
	int k = p->nic_mod > 1 ? p->nic_mod : 1;
	return (p->C + k - 1) / k * k;
}

/* The channels the XML names: the plan's, and each piece's (chan + j L). */
static int written_chans(const struct ccs_synth_plan *p)
{
	int C = p->C, L = chan_stride(p);
	for (uint32_t i = 0; i < p->ntb; i++) {
		int last = p->tb[i].chan + (int)(npieces(p->tb[i].n) - 1) * L + 1;
		C = last > C ? last : C;
	}
	return C;
}

/* Per block, the id in its rank of its second piece (the others follow);
 * NULL out of memory. */
static uint32_t *later_ids(const struct ccs_synth_plan *p)
{
	uint32_t *x = ccs_malloc(((size_t)p->ntb + 1) * sizeof *x);
	for (int g = 0; x && g < p->n; g++) {
		uint32_t next = p->tb0[g + 1] - p->tb0[g];
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			x[i] = next;
			next += npieces(p->tb[i].n) - 1;
		}
	}
	return x;
}

/* Whether piece j of block t starts with a nop (above). */
static int has_nop(const struct ccs_synth_tb *t, uint32_t j)
{
	return j > 0 && t->st[piece_end(j - 1, t->n) + 1].dep_tb >= 0;
}

/* Step k of rank g's block i (plan numbering) as written: block, step. */
static void written(const struct ccs_synth_plan *p, const uint32_t *x, int g, uint32_t i, uint32_t k, uint32_t *id,
                    uint32_t *s)
{
	uint32_t pc;
	piece_of(k, &pc, s);
	if (pc && !has_nop(&p->tb[i], pc))
		--*s;
	*id = pc ? x[i] + pc - 1 : i - p->tb0[g];
}

/* Which steps other steps wait for (MSCCL's hasdep), per block, in the
 * plan's numbering: those a step names, and each piece's last. */
static uint8_t **hasdep_marks(const struct ccs_synth_plan *p)
{
	uint8_t **m = ccs_calloc((size_t)p->ntb + 1, sizeof *m);
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < p->ntb; i++)
		if (!(m[i] = ccs_calloc((size_t)p->tb[i].n + 1, 1)))
			return m;
	for (int g = 0; g < p->n; g++)
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			for (uint32_t j = 0; j + 1 < npieces(p->tb[i].n); j++)
				m[i][piece_end(j, p->tb[i].n)] = 1;
			for (uint32_t k = 0; k < p->tb[i].n; k++) {
				const struct ccs_synth_step *st = &p->tb[i].st[k];
				uint8_t *d = st->dep_tb >= 0 ? m[p->tb0[g] + (uint32_t)st->dep_tb] : NULL;
				if (d)
					d[st->dep_step] = 1;
			}
		}
	return m;
}

static const char *const xml_type[] = { [CCS_SYNTH_SEND] = "s", [CCS_SYNTH_RECV] = "r", [CCS_SYNTH_RRC] = "rrc" };

/* Piece j of rank g's block i, written. */
static void xml_piece(const struct ccs_synth_plan *p, const uint32_t *x, uint8_t *const *hd, int g, uint32_t i, uint32_t j,
                      struct ccs_text *o)
{
	const struct ccs_synth_tb *t = &p->tb[i];
	uint32_t id = j ? x[i] + j - 1 : i - p->tb0[g], k0 = j ? piece_end(j - 1, t->n) + 1 : 0, s = 0;
	ccs_text_printf(o, "    <tb id=\"%u\" send=\"%d\" recv=\"%d\" chan=\"%d\">\n", id, t->send, t->recv,
	                t->chan + (int)j * chan_stride(p));
	uint32_t pid = 0, ps = 0;
	if (j)
		written(p, x, g, i, k0 - 1, &pid, &ps);
	if (has_nop(t, j)) {
		ccs_text_printf(o, "      <step s=\"0\" type=\"nop\" srcbuf=\"%c\" srcoff=\"%d\" dstbuf=\"%c\" dstoff=\"%d\" cnt=\"1\" "
		                   "depid=\"%u\" deps=\"%u\" hasdep=\"0\"/>\n", t->st[k0].buf, t->st[k0].off, t->st[k0].buf,
		                t->st[k0].off, pid, ps);
		s = 1;
	}
	for (uint32_t k = k0; k < t->n && k <= piece_end(j, t->n); k++, s++) {
		const struct ccs_synth_step *st = &t->st[k];
		int32_t did = -1, ds = -1;
		if (j && k == k0 && st->dep_tb < 0) {
			did = (int32_t)pid;   /* the piece before it */
			ds = (int32_t)ps;
		} else if (st->dep_tb >= 0) {
			uint32_t a, b;
			written(p, x, g, p->tb0[g] + (uint32_t)st->dep_tb, (uint32_t)st->dep_step, &a, &b);
			did = (int32_t)a;
			ds = (int32_t)b;
		}
		/* a receive lands where it is kept; a send reads it there */
		ccs_text_printf(o, "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%d\" dstbuf=\"%c\" dstoff=\"%d\" cnt=\"%d\" "
		                   "depid=\"%d\" deps=\"%d\" hasdep=\"%d\"/>\n", s, xml_type[st->type], st->buf, st->off,
		                st->buf, st->off, st->cnt, did, ds, hd && hd[i] ? hd[i][k] : 0);
	}
	ccs_text_printf(o, "    </tb>\n");
}

void ccs_synth_xml(const struct ccs_synth_plan *p, const char *name, struct ccs_text *o)
{
	uint8_t **hd = hasdep_marks(p);
	uint32_t *x = later_ids(p);
	int C = written_chans(p);
	ccs_text_printf(o, "<algo name=\"%s\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%ld\" ngpus=\"%d\" coll=\"%s\" "
	                   "inplace=\"0\">\n", name, C, p->nchunks, p->n, xml_coll[p->coll]);
	for (int g = 0; x && g < p->n; g++) {
		ccs_text_printf(o, "  <gpu id=\"%d\" i_chunks=\"%ld\" o_chunks=\"%ld\" s_chunks=\"%ld\">\n", g, p->i_chunks, p->o_chunks,
		                p->s_chunks);
		for (uint32_t j = 0; j < 2; j++)
			for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++)
				for (uint32_t pc = j; pc < (j ? npieces(p->tb[i].n) : 1); pc++)
					xml_piece(p, x, hd, g, i, pc, o);
		ccs_text_printf(o, "  </gpu>\n");
	}
	ccs_text_printf(o, "</algo>\n");
	for (uint32_t i = 0; hd && i < p->ntb; i++)
		ccs_free(hd[i]);
	ccs_free(hd);
	ccs_free(x);
	if (!hd || !x)
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
	/* as ccs_synth_xml writes it: blocks cut into pieces */
	int L = chan_stride(p), C = written_chans(p);
	f->chans = (uint32_t)C;
	/* per rank and channel, its sending and its receiving blocks */
	uint32_t *use = ccs_calloc(2 * (size_t)C + 2, sizeof *use), *x = later_ids(p);
	if (!use || !x) {
		ccs_free(use);
		ccs_free(x);
		return CCS_ENOMEM;
	}
	for (int g = 0; g < p->n; g++) {
		memset(use, 0, (2 * (size_t)C + 2) * sizeof *use);
		uint32_t nt = 0;
		for (uint32_t i = p->tb0[g]; i < p->tb0[g + 1]; i++) {
			const struct ccs_synth_tb *t = &p->tb[i];
			uint32_t np = npieces(t->n);
			nt += np;
			for (uint32_t j = 0; j < np; j++) {
				uint32_t steps = piece_end(j, t->n) + 1 - (j ? piece_end(j - 1, t->n) + 1 : 0) + (uint32_t)has_nop(t, j);
				if (steps > f->steps)
					f->steps = steps;
				for (int d = 0; d < 2; d++) {
					uint32_t *u = &use[2 * (size_t)(t->chan + (int)j * L) + (size_t)d];
					if ((d ? t->recv : t->send) >= 0 && ++*u > f->per_chan)
						f->per_chan = *u;
				}
				/* a later piece's nop waits on the piece before it */
				uint32_t prev = j == 1 ? i - p->tb0[g] : x[i] + j - 2;
				if (j && prev > f->dep_tb)
					f->dep_tb = prev;
			}
			for (uint32_t k = 0; k < t->n; k++) {
				const struct ccs_synth_step *st = &t->st[k];
				if ((uint32_t)st->cnt > f->cnt)
					f->cnt = (uint32_t)st->cnt;
				if (st->dep_tb >= 0) {
					uint32_t id, s;
					written(p, x, g, p->tb0[g] + (uint32_t)st->dep_tb, (uint32_t)st->dep_step, &id, &s);
					if (id > f->dep_tb)
						f->dep_tb = id;
				}
			}
		}
		if (nt > f->tbs)
			f->tbs = nt;
	}
	ccs_free(use);
	ccs_free(x);
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
