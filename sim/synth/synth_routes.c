/* sim/synth/synth_routes.c: the program's capacity rows (synth_routes.h). */
#include "synth_routes.h"

#include "../../model/nccl_tables.h"
#include "../flow.h"

#include <stdio.h>
#include <string.h>

/* the reading's state */
struct rd {
	struct ccs_fabric *f;
	const struct ccs_comm *c;
	struct ccs_synth_routes *r;
	int n;
	double *hop_sB, *hop_lat;
};

/* Channels a lowered schedule spreads a pair's chunks over (synth_plan.c):
 * routes that hash the channel (ECMP) are averaged over this many. */
#define SALTS 8

/* Pair u -> v's shares of the rows it crosses, appended at P->r (nz
 * entries so far), averaged over the channels and sprayed
 * ways; rowof maps fabric resources to rows (-1: none yet). */
static int one_pair(struct rd *P, int u, int v, int32_t *rowof, size_t *nz, char *err, size_t errn)
{
	const double *caps = ccs_fabric_caps(P->f);
	double sB = 0;
	int cross = ccs_fabric_crosses(P->f, u, v);
	uint32_t K = ccs_fabric_spray(P->f), ways = cross && K > 1 ? K : 1;
	int ka = cross ? ccs_comm_best_nics(P->c, u) : 0, kb = cross ? ccs_comm_best_nics(P->c, v) : 0;
	size_t z0 = *nz;
	double sB_way = 0;
	for (uint32_t salt = 0; salt < SALTS; salt++)
		for (uint32_t w = 0; w < ways; w++) {
			uint32_t res[CCS_FLOW_MAXPATH];
			int nr = 0;
			/* channel salt's NICs, as a schedule file's sends take them */
			uint32_t na = ka > 0 && kb > 0 ? ccs_comm_nic(P->c, u, (int)(salt % (uint32_t)ka)) : UINT32_MAX;
			uint32_t nb = ka > 0 && kb > 0 ? ccs_comm_nic(P->c, v, (int)(salt % (uint32_t)kb)) : UINT32_MAX;
			if (ccs_fabric_route_way(P->f, u, v, na, nb, salt, w, res, &nr)) {
				snprintf(err, errn, "no route from rank %d to rank %d", u, v);
				return CCS_EINPUT;
			}
			if (ccs_grow(&P->r->row, &P->r->rowcap, *nz + (size_t)nr, sizeof *P->r->row) ||
			    ccs_grow(&P->r->sh, &P->r->shcap, *nz + (size_t)nr, sizeof *P->r->sh))
				return CCS_ENOMEM;
			double worst = 0;
			for (int i = 0; i < nr; i++)
				worst = 1.0 / caps[res[i]] > worst ? 1.0 / caps[res[i]] : worst;
			worst /= ways;
			if (w == 0 || worst > sB_way)
				sB_way = worst;
			if (w + 1 == ways)
				sB += sB_way / SALTS;
			for (int i = 0; i < nr; i++) {
				if (rowof[res[i]] < 0) {
					rowof[res[i]] = P->r->nrow;
					P->r->row_res[P->r->nrow++] = res[i];
				}
				int e = rowof[res[i]];
				size_t k = z0;
				while (k < *nz && P->r->row[k] != e)
					k++;
				if (k == *nz) {
					P->r->row[k] = e;
					P->r->sh[k] = 0;
					(*nz)++;
				}
				P->r->sh[k] += 1.0 / ways / SALTS;
			}
		}
	P->hop_sB[(size_t)u * (size_t)P->n + (size_t)v] = sB;
	/* a schedule file's send pays the model's hop for the route */
	int same = !cross;
	P->hop_lat[(size_t)u * (size_t)P->n + (size_t)v] =
	        ccs_nccl_latency(&P->c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, same, !same) -
	        ccs_nccl_latency(&P->c->nccl, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, 0);
	return CCS_OK;
}

int ccs_synth_routes_read(struct ccs_fabric *f, const struct ccs_comm *c, struct ccs_synth_routes *r, double *hop_sB,
                          double *hop_lat, char *err, size_t errn)
{
	memset(r, 0, sizeof *r);
	struct rd RD = { f, c, r, c->n, hop_sB, hop_lat }, *P = &RD;
	int n = P->n;
	uint32_t nres = ccs_fabric_nres(P->f);
	const double *caps = ccs_fabric_caps(P->f);
	int32_t *rowof = ccs_malloc(((size_t)nres + 1) * sizeof *rowof);
	size_t np = (size_t)n * (size_t)n, nz = 0;
	P->r->start = ccs_malloc((np + 1) * sizeof *P->r->start);
	P->r->row_res = ccs_malloc(((size_t)nres + 1) * sizeof *P->r->row_res);
	if (!rowof || !P->r->start || !P->r->row_res) {
		ccs_free(rowof);
		return CCS_ENOMEM;
	}
	for (uint32_t e = 0; e < nres; e++)
		rowof[e] = -1;
	int rc = CCS_OK;
	for (int u = 0; u < n && !rc; u++)
		for (int v = 0; v < n && !rc; v++) {
			P->r->start[(size_t)u * (size_t)n + (size_t)v] = (uint32_t)nz;
			if (u != v)
				rc = one_pair(P, u, v, rowof, &nz, err, errn);
		}
	P->r->start[np] = (uint32_t)nz;
	ccs_free(rowof);
	if (rc)
		return rc;
	P->r->cap = ccs_malloc(((size_t)P->r->nrow + 1) * sizeof *P->r->cap);
	if (!P->r->cap)
		return CCS_ENOMEM;
	P->r->capmax = 0;
	for (int e = 0; e < P->r->nrow; e++)
		if (caps[P->r->row_res[e]] > P->r->capmax)
			P->r->capmax = caps[P->r->row_res[e]];
	for (int e = 0; e < P->r->nrow; e++) {
		P->r->cap[e] = caps[P->r->row_res[e]] / P->r->capmax;
		if (!(P->r->cap[e] > 0)) {
			char name[128];
			ccs_fabric_res_name(P->f, P->r->row_res[e], name, sizeof name);
			snprintf(err, errn, "'%s' has no capacity", name);
			return CCS_EINPUT;
		}
	}
	return CCS_OK;
}

void ccs_synth_routes_release(struct ccs_synth_routes *r)
{
	ccs_free(r->start);
	ccs_free(r->row);
	ccs_free(r->sh);
	ccs_free(r->row_res);
	ccs_free(r->cap);
	memset(r, 0, sizeof *r);
}
