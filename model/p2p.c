/* model/p2p.c: NCCL's point-to-point rounds and their waves (p2p.h). */
#include "p2p.h"
#include "ccs.h"

#include <math.h>
#include <string.h>

static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int ccs_p2p_order_init(struct ccs_p2p_order *o, int n, const int32_t *sizes, int nnodes)
{
	memset(o, 0, sizeof *o);
	int gs = CCS_P2P_GROUP;
	for (int i = 0; i < nnodes; i++)
		if (sizes[i] > 0)
			gs = gcd(gs, sizes[i]);
	if (gs < 1 || n < 1)
		gs = 1;
	o->D = ccs_malloc((size_t)n * sizeof *o->D);
	o->d = ccs_malloc((size_t)n * sizeof *o->d);
	if (!o->D || !o->d) {
		ccs_p2p_order_release(o);
		return CCS_ENOMEM;
	}
	o->n = n;
	o->gs = gs;
	o->nG = n / gs;
	int pow2 = 1, m = 0;
	while (pow2 < o->nG)
		pow2 <<= 1;
	for (int s = 0, D = 0; s < pow2; s++) {
		if (D < o->nG)
			for (int d = 0; d < gs; d++)
				if (D || d) {
					o->D[m] = D;
					o->d[m++] = d;
				}
		D = (D + s + 1) & (pow2 - 1);
	}
	o->m = m;
	return CCS_OK;
}

void ccs_p2p_order_release(struct ccs_p2p_order *o)
{
	ccs_free(o->D);
	ccs_free(o->d);
	memset(o, 0, sizeof *o);
}

/* One batch's loads and what they touched. */
struct loads {
	double *nic_out, *nic_in;
	double *su_out, *su_in;
	double *up_out, *up_in;     /* per node of a two-tier scale-up plane */
	uint32_t *nic_t, *rank_t;
	uint8_t *nic_m, *rank_m;
	uint32_t nn, nr;
};

static void nic_add(const struct ccs_p2p_in *in, struct loads *w, int r, int out)
{
	const struct ccs_p2p_rank *k = &in->rank[r];
	for (uint32_t i = 0; i < k->nnic; i++) {
		uint32_t x = in->nic_ids[k->nic0 + i];
		double v = 1.0 / ((double)k->nnic * in->nic_rate[x]);
		if (!w->nic_m[x]) {
			w->nic_m[x] = 1;
			w->nic_t[w->nn++] = x;
		}
		if (out)
			w->nic_out[x] += v;
		else
			w->nic_in[x] += v;
	}
}

static void su_add(const struct ccs_p2p_in *in, struct loads *w, int a, int b)
{
	int32_t ua = in->rank[a].up, ub = in->rank[b].up;
	if (in->nup && ua >= 0 && ub >= 0 && ua != ub) {
		w->up_out[ua] += 1;
		w->up_in[ub] += 1;
	}
	int x[2] = { a, b };
	for (int i = 0; i < 2; i++)
		if (!w->rank_m[x[i]]) {
			w->rank_m[x[i]] = 1;
			w->rank_t[w->nr++] = (uint32_t)x[i];
		}
	w->su_out[a] += 1;
	w->su_in[b] += 1;
}

int ccs_p2p_wave(int m, int channels, int across)
{
	if (!across)
		return 1;
	int P = 1;
	while (P < channels && P < 64)
		P <<= 1;
	int nb = (m + CCS_P2P_BATCH - 1) / CCS_P2P_BATCH;
	return nb < P ? (nb > 0 ? nb : 1) : P;
}

/* Wave j's time per byte of one send (*tu: its node uplinks' term alone),
 * the loads cleared after. */
static double wave(const struct ccs_p2p_in *in, struct loads *w, int j, double *tu)
{
	const struct ccs_p2p_order *o = in->o;
	int span = CCS_P2P_BATCH * (in->wave > 0 ? in->wave : 1);
	int k0 = j * span, k1 = k0 + span < o->m ? k0 + span : o->m;
	for (int r = 0; r < o->n; r++)
		for (int k = k0; k < k1; k++) {
			int d = ccs_p2p_peer(o, r, k, 1);
			if (in->rank[r].group == in->rank[d].group) {
				su_add(in, w, r, d);
				continue;
			}
			int src = r;
			if (in->pxn && in->rank[r].proxy0 >= 0 && in->rank[d].rail >= 0 && in->rank[d].rail < in->rails) {
				int p = in->proxy[in->rank[r].proxy0 + in->rank[d].rail];
				if (p >= 0 && p != r && in->rank[p].nnic) {
					su_add(in, w, r, p);
					src = p;
				}
			}
			nic_add(in, w, src, 1);
			nic_add(in, w, d, 0);
		}
	double t = 0;
	for (uint32_t i = 0; i < w->nn; i++) {
		uint32_t x = w->nic_t[i];
		double v = w->nic_out[x] > w->nic_in[x] ? w->nic_out[x] : w->nic_in[x];
		if (v > t)
			t = v;
		w->nic_out[x] = w->nic_in[x] = 0;
		w->nic_m[x] = 0;
	}
	for (uint32_t i = 0; i < w->nr; i++) {
		uint32_t x = w->rank_t[i];
		double v = (w->su_out[x] > w->su_in[x] ? w->su_out[x] : w->su_in[x]);
		if (in->b_su > 0 && v / in->b_su > t)
			t = v / in->b_su;
		w->su_out[x] = w->su_in[x] = 0;
		w->rank_m[x] = 0;
	}
	*tu = 0;
	for (uint32_t x = 0; x < in->nup; x++) {
		double v = w->up_out[x] > w->up_in[x] ? w->up_out[x] : w->up_in[x];
		if (v > 0 && in->up_rate[x] > 0 && v / in->up_rate[x] > *tu)
			*tu = v / in->up_rate[x];
		w->up_out[x] = w->up_in[x] = 0;
	}
	if (*tu > t)
		t = *tu;
	w->nn = w->nr = 0;
	return t;
}

int ccs_p2p_batches(const struct ccs_p2p_in *in, struct ccs_p2p_out *out)
{
	const struct ccs_p2p_order *o = in->o;
	size_t nn = (size_t)in->nnics + 1, nr = (size_t)o->n + 1;
	struct loads w;
	memset(&w, 0, sizeof w);
	w.nic_out = ccs_calloc(nn, sizeof *w.nic_out);
	w.nic_in = ccs_calloc(nn, sizeof *w.nic_in);
	w.su_out = ccs_calloc(nr, sizeof *w.su_out);
	w.su_in = ccs_calloc(nr, sizeof *w.su_in);
	w.up_out = ccs_calloc((size_t)in->nup + 1, sizeof *w.up_out);
	w.up_in = ccs_calloc((size_t)in->nup + 1, sizeof *w.up_in);
	w.nic_t = ccs_malloc(nn * sizeof *w.nic_t);
	w.rank_t = ccs_malloc(nr * sizeof *w.rank_t);
	w.nic_m = ccs_calloc(nn, 1);
	w.rank_m = ccs_calloc(nr, 1);
	int rc = CCS_ENOMEM;
	if (!w.nic_out || !w.nic_in || !w.su_out || !w.su_in || !w.up_out || !w.up_in || !w.nic_t || !w.rank_t || !w.nic_m || !w.rank_m)
		goto out;
	int span = CCS_P2P_BATCH * (in->wave > 0 ? in->wave : 1);
	int nb = (o->m + span - 1) / span;
	double work = (double)o->n * o->m;
	int stride = work > CCS_P2P_BUDGET ? (int)ceil(work / CCS_P2P_BUDGET) : 1;
	int walked = 0;
	double K = 0, Ku = 0;
	for (int j = 0; j < nb; j += stride, walked++) {
		double tu;
		K += wave(in, &w, j, &tu);
		Ku += tu;
	}
	out->K = walked > 0 ? K * nb / walked : 0;
	out->K_up = walked > 0 ? Ku * nb / walked : 0;
	out->sampled = stride > 1;
	rc = CCS_OK;
out:
	ccs_free(w.nic_out);
	ccs_free(w.nic_in);
	ccs_free(w.su_out);
	ccs_free(w.su_in);
	ccs_free(w.up_out);
	ccs_free(w.up_in);
	ccs_free(w.nic_t);
	ccs_free(w.rank_t);
	ccs_free(w.nic_m);
	ccs_free(w.rank_m);
	return rc;
}
