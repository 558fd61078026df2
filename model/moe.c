/* model/moe.c: expert-parallel traffic and its closed form (moe.h). */
#include "moe.h"

#include "ccs.h"
#include "moe_family.h"
#include "transport.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const ccs_moe_op_name[CCS_MOE_OP_N] = { "dispatch", "combine", "alltoallv" };
const char *const ccs_moe_algo_name[CCS_MOE_ALGO_N] = { "direct", "scaleup", "deepep_normal", "deepep_ll",
                                                               "pplx", "uccl_ep", "hybridep" };
const char *const ccs_moe_dist_name[CCS_MOE_DIST_N] = { "uniform", "zipf", "hot", "trace" };
const char *const ccs_moe_place_name[CCS_MOE_PLACE_N] = { "contiguous", "round-robin" };

int ccs_moe_parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

void ccs_moe_cfg_default(struct ccs_moe_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->tokens = 128;
	cfg->hidden = 7168;
	cfg->topk = 8;
	cfg->experts = 256;
	cfg->dist = CCS_MOE_UNIFORM;
	cfg->skew = 1.0;
	cfg->hot_share = 0.5;
	cfg->place = CCS_MOE_CONTIGUOUS;
	cfg->seed = 1;
}

static int bad(char *why, size_t n, const char *msg)
{
	snprintf(why, n, "%s", msg);
	return CCS_EINPUT;
}

int ccs_moe_check(const struct ccs_moe_cfg *cfg, int n, char *why, size_t whyn)
{
	char m[160];
	if (cfg->tokens < 1 || cfg->tokens > (1 << 20))
		return bad(why, whyn, "tokens per rank must be between 1 and 1048576");
	if (cfg->hidden < 1 || cfg->hidden > (1 << 20))
		return bad(why, whyn, "hidden size must be between 1 and 1048576");
	if (cfg->experts < 1 || cfg->experts > (1 << 20))
		return bad(why, whyn, "the expert count must be between 1 and 1048576");
	if (cfg->topk < 1 || cfg->topk > 64) {
		snprintf(m, sizeof m, "top-k must be between 1 and 64, got %d", cfg->topk);
		return bad(why, whyn, m);
	}
	if (cfg->topk > cfg->experts) {
		snprintf(m, sizeof m, "top-k %d is above the expert count %d", cfg->topk, cfg->experts);
		return bad(why, whyn, m);
	}
	if ((double)n * cfg->tokens * cfg->topk > 2e9)
		return bad(why, whyn, "ranks x tokens x top-k is above 2e9 picks");
	if (cfg->dist == CCS_MOE_ZIPF && !(cfg->skew > 0 && cfg->skew <= 10))
		return bad(why, whyn, "the zipf skew must be above 0 and at most 10");
	if (cfg->dist == CCS_MOE_HOT) {
		if (cfg->hot < 1 || cfg->hot >= cfg->experts)
			return bad(why, whyn, "the hot expert count must be at least 1 and below the expert count");
		if (!(cfg->hot_share > 0 && cfg->hot_share < 1))
			return bad(why, whyn, "the hot share must be a fraction between 0 and 1");
	}
	{
		int P = cfg->ep > 0 ? cfg->ep : n;
		if (cfg->ep < 0 || P > n) {
			snprintf(m, sizeof m, "the EP size %d is above the %d ranks", cfg->ep, n);
			return bad(why, whyn, m);
		}
		if (n % P) {
			snprintf(m, sizeof m, "the EP size %d does not divide the %d ranks", P, n);
			return bad(why, whyn, m);
		}
		if (P > cfg->experts) {
			snprintf(m, sizeof m,
			         "%d ranks in one EP group but %d experts: every EP rank hosts an expert; set the EP size "
			         "(--ep, scenario key 'ep') to at most %d",
			         P, cfg->experts, cfg->experts);
			return bad(why, whyn, m);
		}
	}
	if (cfg->groups < 0 || cfg->groups > cfg->experts)
		return bad(why, whyn, "expert groups must be between 1 and the expert count");
	if (cfg->topk_groups < 0)
		return bad(why, whyn, "top-k groups must not be negative");
	if (cfg->replicas < 0 || cfg->replicas >= n)
		return bad(why, whyn, "replicas must be between 0 and the rank count - 1");
	if (cfg->replicas > 0 && cfg->hot < 1)
		return bad(why, whyn, "replicas copy the hottest experts: give how many (hot)");
	if (cfg->hot > cfg->experts)
		return bad(why, whyn, "the hot expert count is above the expert count");
	return CCS_OK;
}

/* ---- plans ---- */

struct xbuf {
	struct ccs_moe_xfer *x;
	size_t n, cap;
};

static int push(struct xbuf *b, int src, int dst, int parent, double tokens, int sm)
{
	if (ccs_grow(&b->x, &b->cap, b->n + 1, sizeof *b->x))
		return CCS_ENOMEM;
	b->x[b->n++] = (struct ccs_moe_xfer){ src, dst, parent, tokens, (uint8_t)sm };
	return CCS_OK;
}

double ccs_moe_tok_bytes(int hidden, int fp8)
{
	return fp8 ? hidden + 4.0 * ((hidden + 127) / 128) : 2.0 * hidden;
}

/* ccs_moe_plan's working arrays: per rank (cnt, mark, pos: its index in its
 * group), per group (gmark, gcnt), the groups' members, and the transfers
 * being built (b). */
struct plan_work {
	uint32_t *cnt, *gcnt;
	int32_t *mark, *gmark, *pos, *gstart, *members;
	int32_t *grp;               /* per rank: its scale-up group within its EP group (DeepEP's nodes) */
	int ng;
	struct xbuf b;
};

/* AllToAllv: one transfer per pair of the byte matrix, split into whole
 * units of 2^31 bytes at most. */
static int plan_matrix(const struct ccs_comm *c, const double *matrix, struct ccs_moe_plan *out, struct plan_work *w)
{
	int n = c->n;
	out->tok_bytes = 1;
	for (int s = 0; s < n; s++)
		for (int d = 0; d < n; d++) {
			double v = matrix[(size_t)s * (size_t)n + (size_t)d];
			out->logical[s] += v;
			/* one transfer per pair, split into whole units of 2^31 bytes at most */
			while (v > 0 && s != d) {
				double part = v > 2147483648.0 ? 2147483648.0 : v;
				if (push(&w->b, s, d, -1, part, 0))
					return CCS_ENOMEM;
				v -= part;
			}
		}
	return CCS_OK;
}

/* Source s's tokens (once per rank) or picks (per_pick) to each rank, into
 * w->cnt. */
static void count_pairs(const struct ccs_moe_routing *r, int s, int per_pick, struct plan_work *w)
{
	int n = r->n, T = r->tokens, k = r->topk;
	memset(w->cnt, 0, (size_t)n * sizeof *w->cnt);
	for (int t = 0; t < T; t++) {
		const int32_t *rk = r->rank + ((size_t)s * (size_t)T + (size_t)t) * (size_t)k;
		for (int j = 0; j < k; j++) {
			if (!per_pick && w->mark[rk[j]] == t)
				continue;
			w->mark[rk[j]] = t;
			w->cnt[rk[j]]++;
		}
	}
	for (int x = 0; x < n; x++)
		w->mark[x] = -1;
}

/* The transfer s -> d of tokens (or picks), and its logical bytes: LL
 * counts the sender's picks, the others what the receiver gets (local
 * included); a rank's own share stays put unless SM channels copy it. */
static int pair_out(const struct ccs_comm *c, int s, int d, double tokens, int per_pick, int sm,
                    struct ccs_moe_plan *out, struct plan_work *w)
{
	out->logical[per_pick ? s : d] += tokens * out->tok_bytes;
	if (d == s && !sm)
		return CCS_OK;
	return push(&w->b, s, d, -1, tokens, sm && c->rank_group[s] == c->rank_group[d]);
}

/* Per (source, destination): picks (LL) or tokens (once per rank), SM
 * copies for DeepEP's kernels inside a group.  Expected routing (P the EP
 * group's size): every source of an EP group sends each rank the mean of
 * what the group's sources send it. */
static int plan_pairs(const struct ccs_comm *c, const struct ccs_moe_routing *r, int algo, int P, int expected,
                      struct ccs_moe_plan *out, struct plan_work *w)
{
	int n = c->n;
	const struct ccs_moe_family *fam = ccs_moe_family_of(algo);
	int per_pick = fam->pattern == CCS_MOE_LL;
	int sm = fam->sm_copy;
	double *acc = NULL;
	if (expected && !(acc = ccs_calloc((size_t)n + 1, sizeof *acc)))
		return CCS_ENOMEM;
	int rc = CCS_OK;
	for (int s = 0; s < n && !rc; s++) {
		count_pairs(r, s, per_pick, w);
		for (int d = 0; d < n && !rc; d++) {
			if (!w->cnt[d])
				continue;
			if (acc)
				acc[d] += w->cnt[d];
			else
				rc = pair_out(c, s, d, w->cnt[d], per_pick, sm, out, w);
		}
	}
	for (int s = 0; acc && s < n && !rc; s++)
		for (int d = s / P * P; d < s / P * P + P && d < n && !rc; d++)
			if (acc[d] > 0)
				rc = pair_out(c, s, d, acc[d] / P, per_pick, sm, out, w);
	ccs_free(acc);
	return rc;
}

/* DeepEP normal across groups: per (token, remote group) one RDMA message
 * to the member of the source's index there, then per (token, rank) the
 * forwarder's scale-up copy (the source forwards on its own node).  The
 * groups are DeepEP's nodes: a scale-up group's ranks within one EP group
 * (DeepEP runs on the EP communicator, so its forwarders are EP ranks; an
 * EP group across two racks, 8 ranks in one, forwards through those 8). */
/* Source s's tokens to each group (once per token and group) and to each
 * rank (once per token and rank), into gc and fc. */
static void count_normal(const struct ccs_moe_routing *r, int s, struct plan_work *w, double *gc, double *fc)
{
	int n = r->n, T = r->tokens, k = r->topk;
	memset(gc, 0, (size_t)w->ng * sizeof *gc);
	memset(fc, 0, (size_t)n * sizeof *fc);
	for (int t = 0; t < T; t++) {
		const int32_t *rk = r->rank + ((size_t)s * (size_t)T + (size_t)t) * (size_t)k;
		for (int j = 0; j < k; j++) {
			int d = rk[j], gd = w->grp[d];
			if (w->gmark[gd] != t) {
				w->gmark[gd] = t;
				gc[gd]++;
			}
			if (w->mark[d] != t) {
				w->mark[d] = t;
				fc[d]++;
			}
		}
	}
	for (int x = 0; x < n; x++)
		w->mark[x] = -1;
	for (int g = 0; g < w->ng; g++)
		w->gmark[g] = -1;
}

/* Source s's transfers from its counts gc (per group) and fc (per rank):
 * an RDMA message to its index's member of each other group, then the
 * forwards (ridx: scratch, one per group). */
static int emit_normal(int n, int s, const double *gc, const double *fc, int32_t *ridx, struct ccs_moe_plan *out,
                       struct plan_work *w)
{
	int gs = w->grp[s];
	for (int g = 0; g < w->ng; g++) {
		out->logical[s] += gc[g] * out->tok_bytes;
		ridx[g] = -1;
		if (g == gs || !(gc[g] > 0))
			continue;
		int size = w->gstart[g + 1] - w->gstart[g];
		int fw = w->members[w->gstart[g] + w->pos[s] % size];
		ridx[g] = (int32_t)w->b.n;
		CCS_TRY(push(&w->b, s, fw, -1, gc[g], 0));
	}
	for (int d = 0; d < n; d++) {
		if (!(fc[d] > 0))
			continue;
		int gd = w->grp[d];
		int from = gd == gs ? s : w->b.x[ridx[gd]].dst;
		CCS_TRY(push(&w->b, from, d, gd == gs ? -1 : ridx[gd], fc[d], 1));
	}
	return CCS_OK;
}

/* DeepEP normal (above).  Expected routing (P the EP group's size): every
 * source of an EP group sends each group and each rank the mean of what
 * the group's sources send them. */
static int plan_normal(const struct ccs_comm *c, const struct ccs_moe_routing *r, int P, int expected,
                       struct ccs_moe_plan *out, struct plan_work *w)
{
	int n = c->n, ng = w->ng;
	int32_t *ridx = ccs_malloc(((size_t)ng + 1) * sizeof *ridx);
	double *gc = ccs_calloc((size_t)ng + 1, sizeof *gc), *fc = ccs_calloc((size_t)n + 1, sizeof *fc);
	double *ag = expected ? ccs_calloc((size_t)ng + 1, sizeof *ag) : NULL;
	double *af = expected ? ccs_calloc((size_t)n + 1, sizeof *af) : NULL;
	int rc = !ridx || !gc || !fc || (expected && (!ag || !af)) ? CCS_ENOMEM : CCS_OK;
	for (int s = 0; s < n && !rc; s++) {
		count_normal(r, s, w, gc, fc);
		if (!expected) {
			rc = emit_normal(n, s, gc, fc, ridx, out, w);
			continue;
		}
		for (int g = 0; g < ng; g++)
			ag[g] += gc[g];
		for (int d = 0; d < n; d++)
			af[d] += fc[d];
	}
	for (int s = 0; expected && s < n && !rc; s++) {
		int lo = s / P * P, hi = lo + P < n ? lo + P : n;
		memset(gc, 0, (size_t)ng * sizeof *gc);
		memset(fc, 0, (size_t)n * sizeof *fc);
		for (int d = lo; d < hi; d++) {
			fc[d] = af[d] / P;
			gc[w->grp[d]] = ag[w->grp[d]] / P;
		}
		rc = emit_normal(n, s, gc, fc, ridx, out, w);
	}
	ccs_free(ag);
	ccs_free(af);
	ccs_free(gc);
	ccs_free(fc);
	ccs_free(ridx);
	return rc;
}

/* w's groups: each scale-up group cut by the EP groups (P consecutive
 * ranks, cfg->ep), numbered in rank order, and their members. */
static int plan_groups(const struct ccs_comm *c, const struct ccs_moe_cfg *cfg, struct plan_work *w)
{
	int n = c->n, P = cfg && cfg->ep > 0 && cfg->ep < n ? cfg->ep : n;
	w->grp = ccs_malloc(((size_t)n + 1) * sizeof *w->grp);
	int32_t *first = ccs_malloc(((size_t)c->G * (size_t)((n + P - 1) / P) + 1) * sizeof *first);
	w->gstart = ccs_calloc((size_t)n + 2, sizeof *w->gstart);
	w->members = ccs_malloc(((size_t)n + 1) * sizeof *w->members);
	if (!w->grp || !first || !w->gstart || !w->members) {
		ccs_free(first);
		return CCS_ENOMEM;
	}
	size_t nk = (size_t)c->G * (size_t)((n + P - 1) / P);
	for (size_t k = 0; k < nk; k++)
		first[k] = -1;
	w->ng = 0;
	for (int r = 0; r < n; r++) {
		size_t k = (size_t)c->rank_group[r] * (size_t)((n + P - 1) / P) + (size_t)(r / P);
		if (first[k] < 0)
			first[k] = w->ng++;
		w->grp[r] = first[k];
		w->gstart[w->grp[r] + 1]++;
	}
	ccs_free(first);
	for (int g = 0; g < w->ng; g++)
		w->gstart[g + 1] += w->gstart[g];
	int32_t *at = w->pos;   /* scratch: the next slot of each group */
	for (int g = 0; g < w->ng; g++)
		at[g] = w->gstart[g];
	for (int r = 0; r < n; r++)
		w->members[at[w->grp[r]]++] = r;
	return CCS_OK;
}

int ccs_moe_plan(const struct ccs_comm *c, const struct ccs_moe_cfg *cfg, const struct ccs_moe_routing *r,
                 const double *matrix, int op, int algo, struct ccs_moe_plan *out, char *why, size_t whyn)
{
	int n = c->n;
	memset(out, 0, sizeof *out);
	out->n = n;
	out->op = op;
	out->algo = algo;
	const struct ccs_moe_family *fam = ccs_moe_family_of(algo);
	if (fam->pattern == CCS_MOE_SCALEUP && (c->G > 1 || !c->intra_nvl))
		return bad(why, whyn, "scaleup needs every rank in one scale-up domain");
	if (op == CCS_MOE_ALLTOALLV && (fam->pattern == CCS_MOE_NORMAL || fam->pattern == CCS_MOE_LL))
		return bad(why, whyn, "alltoallv runs direct (or scaleup); the EP kernels route tokens");
	/* the SM budget: half the SMs send, half receive (moe_family.h) */
	int sms = cfg && cfg->sms > 0 ? cfg->sms : fam->sms;
	if (fam->sm_copy && sms > 0)
		out->copy_Bps = sms / 2.0 * ccs_moe_family_sm_Bps(c->arch);
	struct plan_work w;
	memset(&w, 0, sizeof w);
	out->logical = ccs_calloc((size_t)n + 1, sizeof *out->logical);
	w.cnt = ccs_calloc((size_t)n + 1, sizeof *w.cnt);
	w.mark = ccs_malloc(((size_t)n + 1) * sizeof *w.mark);
	w.gmark = ccs_malloc(((size_t)n + 1) * sizeof *w.gmark);   /* at most n groups */
	w.gcnt = ccs_calloc((size_t)n + 1, sizeof *w.gcnt);
	w.pos = ccs_malloc(((size_t)n + 1) * sizeof *w.pos);
	int rc = CCS_ENOMEM;
	if (out->logical && w.cnt && w.mark && w.gmark && w.gcnt && w.pos && !plan_groups(c, cfg, &w)) {
		for (int g = 0; g < w.ng; g++)
			for (int i = w.gstart[g]; i < w.gstart[g + 1]; i++)
				w.pos[w.members[i]] = i - w.gstart[g];
		for (int x = 0; x < n; x++)
			w.mark[x] = -1;
		for (int g = 0; g < w.ng; g++)
			w.gmark[g] = -1;
		if (op == CCS_MOE_ALLTOALLV) {
			out->tok_bytes = 1;
			rc = plan_matrix(c, matrix, out, &w);
		} else {
			out->tok_bytes = ccs_moe_tok_bytes(cfg->hidden, cfg->fp8);
			int P = cfg->ep > 0 && cfg->ep < n ? cfg->ep : n;
			rc = fam->pattern == CCS_MOE_NORMAL && c->G > 1 ? plan_normal(c, r, P, cfg->expected, out, &w)
			                                               : plan_pairs(c, r, algo, P, cfg->expected, out, &w);
		}
	}
	if (!rc) {
		out->x = w.b.x;
		out->nx = w.b.n;
		w.b.x = NULL;
	}
	ccs_free(w.b.x);
	ccs_free(w.cnt);
	ccs_free(w.mark);
	ccs_free(w.gmark);
	ccs_free(w.gcnt);
	ccs_free(w.gstart);
	ccs_free(w.members);
	ccs_free(w.grp);
	ccs_free(w.pos);
	if (rc) {
		ccs_moe_plan_release(out);
		if (rc == CCS_ENOMEM)
			bad(why, whyn, "out of memory");
	}
	return rc;
}

void ccs_moe_plan_release(struct ccs_moe_plan *p)
{
	ccs_free(p->x);
	ccs_free(p->logical);
	memset(p, 0, sizeof *p);
}

/* ---- closed form ---- */

double ccs_moe_latency(const struct ccs_comm *c, int algo)
{
	const struct ccs_moe_family *fam = ccs_moe_family_of(algo);
	if (fam->proxy != CCS_MOE_PROXY_NCCL) {
		double L = c->prm.ep_overhead_s + c->lat_intra + (c->G > 1 ? c->lat_net : 0);
		/* a CPU proxy: the GPU's doorbell and the proxy's post are one more
		 * transport message on the way (model/transport.h) */
		if (fam->proxy == CCS_MOE_PROXY_CPU && c->G > 1)
			L += ccs_comm_tr(c)->msg_lat_s;
		return L;
	}
	struct ccs_cost cc;
	if (ccs_cost_eval(c, CCS_COLL_ALLTOALL, CCS_ALGO_DIRECT, CCS_PROTO_SIMPLE, 0, 0, &cc, NULL))
		return 0;
	return cc.lat_s;
}

enum { R_UO, R_UI, R_NO, R_NI, R_CO, R_CI, R_RED, R_PROXY, R_N };

/* A two-tier scale-up plane: the scale-up bytes between nodes of a domain
 * through each node's uplinks, one way; raises *bw where they bind. */
static int moe_uplinks(const struct ccs_comm *c, const struct ccs_moe_plan *p, double *bw, int *bound)
{
	const struct ccs_topo *t = c->t;
	size_t nn = (size_t)(t->nnodes > 0 ? t->nnodes : 1);
	double *up = ccs_calloc(nn, sizeof *up), *uo = ccs_calloc(nn, sizeof *uo), *ui = ccs_calloc(nn, sizeof *ui);
	int rc = up && uo && ui ? CCS_OK : CCS_ENOMEM;
	if (!rc && ccs_comm_su_uplinks(c, up)) {
		int comb = p->op == CCS_MOE_COMBINE;
		for (size_t i = 0; i < p->nx; i++) {
			const struct ccs_moe_xfer *x = &p->x[i];
			int s = comb ? x->dst : x->src, d = comb ? x->src : x->dst;
			int32_t ns = t->gpu[c->rank_gpu[s]].node, nd = t->gpu[c->rank_gpu[d]].node;
			if (c->rank_group[s] != c->rank_group[d] || ns == nd || ns < 0 || nd < 0 || !(up[ns] > 0) ||
			    !(up[nd] > 0))
				continue;
			uo[ns] += x->tokens * p->tok_bytes;
			ui[nd] += x->tokens * p->tok_bytes;
		}
		for (size_t k = 0; k < nn; k++)
			if (up[k] > 0 && (uo[k] > ui[k] ? uo[k] : ui[k]) / up[k] > *bw) {
				*bw = (uo[k] > ui[k] ? uo[k] : ui[k]) / up[k];
				*bound = c->su_bound;
			}
	}
	ccs_free(up);
	ccs_free(uo);
	ccs_free(ui);
	return rc;
}

/* The plan's closed form (moe.h): bytes per rank and resource, the busiest
 * one's time, latency.  One idea: one pass over the transfers fills every
 * per-resource sum the bound is taken from. */
int ccs_moe_eval(const struct ccs_comm *c, const struct ccs_moe_plan *p, struct ccs_moe_cost *out)
{
	int n = c->n, G = c->G;
	memset(out, 0, sizeof *out);
	double *ld = ccs_calloc((size_t)n * R_N + 1, sizeof *ld);
	double *fo = ccs_calloc((size_t)G + 1, sizeof *fo), *fi = ccs_calloc((size_t)G + 1, sizeof *fi);
	double *snd = ccs_calloc((size_t)n + 1, sizeof *snd), *rcv = ccs_calloc((size_t)n + 1, sizeof *rcv);
	int rc = CCS_ENOMEM;
	if (!ld || !fo || !fi || !snd || !rcv)
		goto out;
	int comb = p->op == CCS_MOE_COMBINE;
	for (size_t i = 0; i < p->nx; i++) {
		const struct ccs_moe_xfer *x = &p->x[i];
		double bytes = x->tokens * p->tok_bytes;
		int s = comb ? x->dst : x->src, d = comb ? x->src : x->dst;
		if (comb)
			ld[(size_t)d * R_N + R_RED] += bytes;
		if (x->sm) {
			ld[(size_t)s * R_N + R_CO] += bytes;
			ld[(size_t)d * R_N + R_CI] += bytes;
		}
		if (s == d) {
			out->local_bytes += bytes;
			continue;
		}
		snd[s] += bytes;
		rcv[d] += bytes;
		if (c->rank_group[s] == c->rank_group[d]) {
			ld[(size_t)s * R_N + R_UO] += bytes;
			ld[(size_t)d * R_N + R_UI] += bytes;
			out->scaleup_bytes += bytes;
		} else {
			ld[(size_t)s * R_N + R_NO] += bytes;
			ld[(size_t)d * R_N + R_NI] += bytes;
			ld[(size_t)s * R_N + R_PROXY] += x->tokens;   /* messages the sender's proxy posts */
			fo[c->rank_group[s]] += bytes;
			fi[c->rank_group[d]] += bytes;
			out->net_bytes += bytes;
		}
	}
	double su = c->b_su > 0 ? c->b_su : HUGE_VAL, nic = c->b_nic > 0 ? c->b_nic : HUGE_VAL;
	const struct ccs_moe_family *fam = ccs_moe_family_of(p->algo);
	double cp = p->copy_Bps > 0 && p->copy_Bps < su ? p->copy_Bps : su;
	/* a CPU proxy's messages per second (moe_family.h); a GPU-initiated
	 * family has none to post */
	double o = ccs_comm_tr(c)->chunk_s, px = HUGE_VAL;
	if (fam->proxy == CCS_MOE_PROXY_CPU && o > 0)
		px = fam->proxy_batch * fam->proxy_threads / o;
	double rate[R_N] = { su, su, nic, nic, cp, cp, c->mem_bw > 0 ? c->mem_bw / ccs_cost_mem_per_byte(c, 1) : HUGE_VAL, px };
	int cpb = cp < su ? CCS_BOUND_SM : c->su_bound;
	int bnd[R_N] = { c->su_bound, c->su_bound, CCS_BOUND_NIC, CCS_BOUND_NIC, cpb, cpb, CCS_BOUND_REDUCE,
	                 CCS_BOUND_PROXY };
	double bw = 0;
	out->bound = CCS_BOUND_LATENCY;
	out->hot_rank = 0;
	for (int r = 0; r < n; r++) {
		for (int k = 0; k < R_N; k++) {
			double t = ld[(size_t)r * R_N + k] / rate[k];
			if (t > bw) {
				bw = t;
				out->bound = bnd[k];
				out->hot_rank = r;
			}
		}
		out->send_mean += snd[r] / n;
		out->recv_mean += rcv[r] / n;
		if (snd[r] > out->send_max)
			out->send_max = snd[r];
		if (rcv[r] > out->recv_max)
			out->recv_max = rcv[r];
		out->logical_mean += p->logical[r] / n;
	}
	if ((rc = moe_uplinks(c, p, &bw, &out->bound)))
		goto out;
	rc = CCS_ENOMEM;
	if (G > 1 && c->R_fab > 0)
		for (int g = 0; g < G; g++) {
			double t = (fo[g] > fi[g] ? fo[g] : fi[g]) / c->R_fab;
			if (t > bw) {
				bw = t;
				out->bound = c->fab_bound;
			}
		}
	out->lat_s = ccs_moe_latency(c, p->algo);
	out->time_s = out->lat_s + bw;
	if (out->lat_s > bw)
		out->bound = CCS_BOUND_LATENCY;
	out->bottleneck_Bps = out->time_s > 0 ? out->logical_mean / out->time_s : 0;
	rc = CCS_OK;
out:
	ccs_free(ld);
	ccs_free(fo);
	ccs_free(fi);
	ccs_free(snd);
	ccs_free(rcv);
	return rc;
}
