/* model/ring_nic.c: the rings' NIC placement and its rate (ring_nic.h). */
#include "ring_nic.h"

#include "coll.h"
#include "ccs.h"

#include <math.h>
#include <string.h>

int ccs_ring_nic_init(struct ccs_ring_nic *w, int n)
{
	memset(w, 0, sizeof *w);
	w->ent = ccs_calloc((size_t)n + 1, sizeof *w->ent);
	w->ext = ccs_calloc((size_t)n + 1, sizeof *w->ext);
	if (!w->ent || !w->ext) {
		ccs_ring_nic_release(w);
		return CCS_ENOMEM;
	}
	return CCS_OK;
}

void ccs_ring_nic_release(struct ccs_ring_nic *w)
{
	ccs_free(w->ent);
	ccs_free(w->ext);
	ccs_free(w->nics);
	memset(w, 0, sizeof *w);
}

/* Is NIC d usable by the GPU (as close as its best)? */
static int usable(const struct ccs_topo *t, uint32_t gpu, uint32_t d)
{
	const struct ccs_gpu *gp = &t->gpu[gpu];
	for (uint32_t i = 0, m = ccs_topo_best_nics(t, gp); i < m; i++)
		if (t->gnic[gp->nic_first + i].nic == d)
			return 1;
	return 0;
}

int ccs_ring_nic_group(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m,
                       struct ccs_ring_nic *w)
{
	size_t nn = 0;
	for (int k = 0; k < m; k++) {
		const struct ccs_gpu *gp = &t->gpu[rank_gpu[mem[k]]];
		for (uint32_t e = 0, me = ccs_topo_best_nics(t, gp); e < me; e++) {
			uint32_t nic = t->gnic[gp->nic_first + e].nic;
			int seen = 0;
			for (size_t q = 0; q < nn && !seen; q++)
				seen = w->nics[q] == nic;
			if (seen)
				continue;
			if (ccs_grow(&w->nics, &w->nics_cap, nn + 1, sizeof *w->nics))
				return CCS_ENOMEM;
			w->nics[nn++] = nic;
		}
	}
	w->nn = nn;
	return nn ? CCS_OK : CCS_EINPUT;
}

void ccs_ring_nic_place(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m, int ch,
                        struct ccs_ring_nic *w, int *entry_, int *exit_, uint32_t *nic_in, uint32_t *nic_out_)
{
	const int32_t *ent = w->ent, *ext = w->ext;
	uint32_t nic = w->nics[(size_t)ch % w->nn];
	int entry = -1, exit = -1, entry_own = 0;
	uint32_t nic_out = nic;
	/* with four NICs per GPU (AWS p5) the fewest-so-far rule keeps the
	 * first GPU of each switch from taking most channels */
	for (int k = 0; k < m; k++) {
		if (!usable(t, rank_gpu[mem[k]], nic))
			continue;
		const struct ccs_gpu *gp = &t->gpu[rank_gpu[mem[k]]];
		int own = gp->nic_count && t->gnic[gp->nic_first].nic == nic;
		if (entry < 0 || ent[mem[k]] < ent[mem[entry]] ||
		    (ent[mem[k]] == ent[mem[entry]] && own && !entry_own)) {
			entry = k;
			entry_own = own;
		}
	}
	for (int k = 0; k < m; k++)
		if (k != entry && usable(t, rank_gpu[mem[k]], nic) && (exit < 0 || ext[mem[k]] < ext[mem[exit]]))
			exit = k;
	if (entry < 0)
		entry = 0;
	if (exit < 0 && m > 1) {
		/* no other member may use the NIC: the member before the entry
		 * leaves through its own NICs in turn (NCCL's search reserves each
		 * NIC's bandwidth, so its next ring takes the next NIC) */
		exit = entry == 0 ? m - 1 : entry - 1;
		const struct ccs_gpu *gp = &t->gpu[rank_gpu[mem[exit]]];
		if (gp->nic_count)
			nic_out = t->gnic[gp->nic_first + (uint32_t)ext[mem[exit]] % ccs_topo_best_nics(t, gp)].nic;
	}
	if (exit < 0)
		exit = entry;
	w->ent[mem[entry]]++;
	w->ext[mem[exit]]++;
	*entry_ = entry;
	*exit_ = exit;
	*nic_in = nic;
	*nic_out_ = nic_out;
}

int ccs_ring_nic_rate(const struct ccs_topo *t, const uint32_t *rank_gpu, int n, const int32_t *gstart,
                      const int32_t *members, int G, int C, const double *eff, double *B_ring)
{
	*B_ring = HUGE_VAL;
	if (G < 2 || C < 1)
		return CCS_OK;
	struct ccs_ring_nic w;
	int32_t *kin = NULL, *kout = NULL;
	int rc = ccs_ring_nic_init(&w, n);
	if (rc)
		return rc;
	rc = CCS_ENOMEM;
	kin = ccs_calloc((size_t)t->ndev + 1, sizeof *kin);
	kout = ccs_calloc((size_t)t->ndev + 1, sizeof *kout);
	if (!kin || !kout)
		goto out;
	for (int g = 0; g < G; g++) {
		const int32_t *mem = members + gstart[g];
		int m = gstart[g + 1] - gstart[g];
		rc = ccs_ring_nic_group(t, rank_gpu, mem, m, &w);
		if (rc == CCS_EINPUT)
			continue;   /* no NIC: the communicator says so */
		if (rc)
			goto out;
		for (int ch = 0; ch < C; ch++) {
			int entry, exit;
			uint32_t a, b;
			ccs_ring_nic_place(t, rank_gpu, mem, m, ch, &w, &entry, &exit, &a, &b);
			kin[a]++;
			kout[b]++;
		}
		/* the group's NICs, then clear their counts for the next */
		for (int k = 0; k < m; k++) {
			const struct ccs_gpu *gp = &t->gpu[rank_gpu[mem[k]]];
			for (uint32_t e = 0; e < gp->nic_count; e++) {
				uint32_t d = t->gnic[gp->nic_first + e].nic;
				int32_t most = kin[d] > kout[d] ? kin[d] : kout[d];
				if (most > 0) {
					double bw = ccs_topo_nic_speed(t, d) * eff[ccs_topo_nic_net_type(t, d)];
					if (C * bw / most < *B_ring)
						*B_ring = C * bw / most;
				}
				kin[d] = kout[d] = 0;
			}
		}
	}
	rc = CCS_OK;
out:
	ccs_free(kin);
	ccs_free(kout);
	ccs_ring_nic_release(&w);
	return rc;
}

/* NCCL's mirrorBits (NVIDIA/nccl src/graph/topo.h @5067397c): v's low
 * log2(pow2) bits reversed. */
static uint32_t mirror_bits(uint32_t v, uint32_t pow2)
{
	uint32_t m = 0;
	for (uint32_t b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
		if (v & b)
			m |= mb;
	return m;
}

int ccs_ring_nic_peers(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *mem, int m, int k)
{
	const struct ccs_gpu *gp = &t->gpu[rank_gpu[mem[k]]];
	if (!gp->nic_count)
		return 0;
	uint32_t x = t->gnic[gp->nic_first].nic;
	int s = 0;
	for (int i = 0; i < m; i++) {
		const struct ccs_gpu *o = &t->gpu[rank_gpu[mem[i]]];
		for (uint32_t j = 0, b = ccs_topo_best_nics(t, o); j < b; j++)
			if (t->gnic[o->nic_first + j].nic == x) {
				s++;
				break;
			}
	}
	return s;
}

uint32_t ccs_ring_nic_head(const struct ccs_topo *t, uint32_t gpu, int m, int v, int peers)
{
	const struct ccs_gpu *gp = &t->gpu[gpu];
	uint32_t b = ccs_topo_best_nics(t, gp);
	if (!b)
		return UINT32_MAX;
	uint32_t turn = (uint32_t)(v / (m > 0 ? m : 1));
	uint32_t lgc = peers > 0 ? (uint32_t)peers : 1;
	if (lgc <= 1)
		return t->gnic[gp->nic_first + turn % b].nic;
	/* GPUs sharing their nearest NICs take disjoint runs of them, as
	 * NCCL's ncclTopoGetLocalNetType (src/graph/topo.cc @5067397c): GPU dev mod
	 * sharers in the communicator, bit-mirrored over a power-of-two NIC
	 * count, is the first of ceil(nics / sharers), in device order */
	uint32_t first = (uint32_t)gp->local % lgc;
	if ((b & (b - 1)) == 0)
		first = mirror_bits(first, b);
	uint32_t k = (first + turn % ((b + lgc - 1) / lgc)) % b;
	/* the k-th smallest device index among the b nearest */
	for (uint32_t i = 0; i < b; i++) {
		uint32_t x = t->gnic[gp->nic_first + i].nic, below = 0;
		for (uint32_t j = 0; j < b; j++)
			below += t->gnic[gp->nic_first + j].nic < x;
		if (below == k)
			return x;
	}
	return t->gnic[gp->nic_first].nic;
}

int ccs_ring_nic_tree(const struct ccs_topo *t, const uint32_t *rank_gpu, const int32_t *gstart,
                      const int32_t *members, int G, int C, int nics, double *tg, double *tph)
{
	*tg = 0;
	if (tph)
		*tph = 0;
	if (G < 2)
		return CCS_OK;
	if (C < 1)
		C = 1;
	int32_t *deg = ccs_calloc((size_t)G + 1, sizeof *deg);
	int32_t *ka = ccs_calloc((size_t)t->ndev + 1, sizeof *ka);
	int32_t *kb = ccs_calloc((size_t)t->ndev + 1, sizeof *kb);
	int32_t *peers = ccs_calloc((size_t)C, sizeof *peers);   /* the heads' sharers, by member (v mod m < C) */
	int rc = CCS_ENOMEM;
	if (!deg || !ka || !kb || !peers)
		goto out;
	ccs_btree_degrees(G, deg);
	double worst = 0;
	int32_t same = 0;
	for (int g = 0; g < G; g++) {
		const int32_t *mem = members + gstart[g];
		int m = gstart[g + 1] - gstart[g];
		double d0 = deg[g] & 0xffff, d1 = deg[g] >> 16;
		for (int k = 0; k < m && k < C; k++)
			peers[k] = ccs_ring_nic_peers(t, rank_gpu, mem, m, k);
		for (int v = 0; v < C; v++) {
			uint32_t x = ccs_ring_nic_head(t, rank_gpu[mem[v % m]], m, v, peers[v % m]);
			if (x == UINT32_MAX)
				continue;
			if (2 * v >= C && C > 1)
				kb[x]++;
			else
				ka[x]++;
		}
		for (int v = 0; v < C; v++) {
			uint32_t x = ccs_ring_nic_head(t, rank_gpu[mem[v % m]], m, v, peers[v % m]);
			if (x == UINT32_MAX || (!ka[x] && !kb[x]))
				continue;
			double l = ka[x] * d0 + kb[x] * d1;
			if (l > worst)
				worst = l;
			if (ka[x] > same)
				same = ka[x];
			if (kb[x] > same)
				same = kb[x];
			ka[x] = kb[x] = 0;
		}
	}
	int slots = nics > 0 && nics < C ? nics : C;
	*tg = worst * slots / C;
	if (tph)
		*tph = (double)same * slots / C;
	rc = CCS_OK;
out:
	ccs_free(deg);
	ccs_free(ka);
	ccs_free(kb);
	ccs_free(peers);
	return rc;
}
