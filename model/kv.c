/* model/kv.c: KV-cache transfer plans and their closed form (kv.h). */
#include "kv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ccs_kv_cfg_default(struct ccs_kv_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->layers = 80;
	cfg->dim = 2048;
	cfg->tokens = 4096;
	cfg->page_tokens = 16;
	cfg->dsize = 2;
}

int ccs_kv_plan(const struct ccs_comm *c, struct ccs_kv_cfg *cfg, struct ccs_kv_plan *out, char *why, size_t whyn)
{
	memset(out, 0, sizeof *out);
	int n = c->n;
	if (!cfg->prefill)
		cfg->prefill = n / 2;
	if (!cfg->decode)
		cfg->decode = n - cfg->prefill;
	int P = cfg->prefill, Q = cfg->decode;
	if (P < 1 || Q < 1 || P + Q > n) {
		snprintf(why, whyn, "prefill (%d) and decode (%d) ranks must each be at least 1 and fit in the %d ranks", P,
		         Q, n);
		return CCS_EINPUT;
	}
	if (cfg->page_tokens < 1 || cfg->tokens < 1 || cfg->layers < 1 || cfg->dim < 1) {
		snprintf(why, whyn, "layers, kv values, tokens and page size must be at least 1");
		return CCS_EINPUT;
	}
	if (!cfg->replicated && (cfg->dim % P || cfg->dim % Q)) {
		snprintf(why, whyn, "%d kv values per token do not split evenly over %d prefill and %d decode ranks "
		         "(use --kv-replicated for an MLA latent)", cfg->dim, P, Q);
		return CCS_EINPUT;
	}
	/* at most Q pairs replicated; sharded, a merge of the two sorted
	 * lists of ranges meets at most P + Q - 1 overlapping pairs */
	out->pair = ccs_malloc((size_t)(cfg->replicated ? Q : P + Q) * sizeof *out->pair);
	if (!out->pair)
		return CCS_ENOMEM;
	double T = cfg->tokens, d = cfg->dsize;
	double maxov = 0;
	int k = 0;
	if (cfg->replicated) {
		for (int j = 0; j < Q; j++)
			out->pair[k++] = (struct ccs_kv_pair){ j % P, n - Q + j, T * cfg->dim * d };
		maxov = cfg->dim;
	} else {
		long wp = cfg->dim / P, wq = cfg->dim / Q;
		for (int i = 0, j = 0; i < P && j < Q;) {
			long a0 = i * wp, a1 = a0 + wp, b0 = j * wq, b1 = b0 + wq;
			long lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
			if (lo < hi) {
				out->pair[k++] = (struct ccs_kv_pair){ i, n - Q + j, T * (double)(hi - lo) * d };
				if (hi - lo > maxov)
					maxov = (double)(hi - lo);
			}
			i += a1 <= b1;
			j += b1 <= a1;
		}
	}
	out->npairs = k;
	out->pages = ceil(T / cfg->page_tokens);
	out->page_bytes = (T < cfg->page_tokens ? T : cfg->page_tokens) * maxov * d;
	return CCS_OK;
}

void ccs_kv_plan_release(struct ccs_kv_plan *p)
{
	ccs_free(p->pair);
	memset(p, 0, sizeof *p);
}

double ccs_kv_latency(const struct ccs_comm *c, const struct ccs_kv_plan *p)
{
	for (int k = 0; k < p->npairs; k++)
		if (c->rank_group[p->pair[k].src] != c->rank_group[p->pair[k].dst])
			return c->lat_net;
	return c->lat_intra;
}

enum { K_UO, K_UI, K_NO, K_NI, K_N };

int ccs_kv_eval(const struct ccs_comm *c, const struct ccs_kv_cfg *cfg, const struct ccs_kv_plan *p,
                struct ccs_kv_cost *out)
{
	int n = c->n, G = c->G;
	memset(out, 0, sizeof *out);
	double *ld = ccs_calloc((size_t)n * K_N + 1, sizeof *ld);
	double *fo = ccs_calloc((size_t)G + 1, sizeof *fo), *fi = ccs_calloc((size_t)G + 1, sizeof *fi);
	if (!ld || !fo || !fi) {
		ccs_free(ld);
		ccs_free(fo);
		ccs_free(fi);
		return CCS_ENOMEM;
	}
	for (int k = 0; k < p->npairs; k++) {
		const struct ccs_kv_pair *x = &p->pair[k];
		if (x->src == x->dst)
			continue;
		if (c->rank_group[x->src] == c->rank_group[x->dst]) {
			ld[(size_t)x->src * K_N + K_UO] += x->bytes;
			ld[(size_t)x->dst * K_N + K_UI] += x->bytes;
			out->scaleup_bytes += x->bytes * cfg->layers;
		} else {
			ld[(size_t)x->src * K_N + K_NO] += x->bytes;
			ld[(size_t)x->dst * K_N + K_NI] += x->bytes;
			fo[c->rank_group[x->src]] += x->bytes;
			fi[c->rank_group[x->dst]] += x->bytes;
			out->net_bytes += x->bytes * cfg->layers;
		}
	}
	double su = c->b_su > 0 ? c->b_su : HUGE_VAL, nic = c->b_nic > 0 ? c->b_nic : HUGE_VAL;
	const double rate[K_N] = { su, su, nic, nic };
	const int bnd[K_N] = { c->su_bound, c->su_bound, CCS_BOUND_NIC, CCS_BOUND_NIC };
	double tl = 0;
	out->bound = CCS_BOUND_LATENCY;
	for (int r = 0; r < n; r++) {
		const double *l = &ld[(size_t)r * K_N];
		for (int k = 0; k < K_N; k++)
			if (l[k] / rate[k] > tl) {
				tl = l[k] / rate[k];
				out->bound = bnd[k];
			}
		double s = (l[K_UO] + l[K_NO]) * cfg->layers, v = (l[K_UI] + l[K_NI]) * cfg->layers;
		if (s > out->send_max)
			out->send_max = s;
		if (v > out->recv_max)
			out->recv_max = v;
	}
	if (G > 1 && c->R_fab > 0)
		for (int g = 0; g < G; g++) {
			double t = (fo[g] > fi[g] ? fo[g] : fi[g]) / c->R_fab;
			if (t > tl) {
				tl = t;
				out->bound = c->fab_bound;
			}
		}
	ccs_free(ld);
	ccs_free(fo);
	ccs_free(fi);
	double Tc = cfg->layer_s, Lr = cfg->layers;
	double a = Lr * Tc + tl, b = Tc + Lr * tl;
	out->lat_s = ccs_kv_latency(c, p);
	out->layer_s = tl;
	out->time_s = out->lat_s + (a > b ? a : b);
	out->exposed_s = out->time_s - Lr * Tc;
	if (out->lat_s > Lr * tl)
		out->bound = CCS_BOUND_LATENCY;
	return CCS_OK;
}
