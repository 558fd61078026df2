/*
** model/nccl_tune.c: NCCL's own tuning model, reimplemented on our
** communicator geometry, for `-a auto` selection and as the baseline in
** docs/validation.md.  Equations: shared/reference/nccl-model.md sections
** 1.5 (bandwidth), 1.6 (latency), 1.7 (time), NCCL 2.30.7.
*/
#include "nccl_tables.h"
#include "topo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { HW_NVLINK, HW_PCI, HW_NET };
/* NCCL's algorithm rows: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT */
enum { NA_TREE, NA_RING, NA_CND, NA_CNC, NA_NVLS, NA_NVLST, NA_PAT, NA_N };

static const double base_lat[NA_N][3] = {
	{ 6.8, 14.0, 8.4 }, { 6.6, 14.0, 8.4 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 },
	{ 8.0, 8.0, 8.0 },
};
static const double hw_lat[3][NA_N][3] = {
	{ { 0.6, 1.25, 4.0 }, { 0.6, 1.9, 3.4 }, { 0, 0, 3.7 }, { 0, 0, 2.8 }, { 0, 0, 25 }, { 0, 0, 25 }, { 0, 0, 4.0 } },
	{ { 1.0, 1.9, 4.0 }, { 1.0, 2.5, 5.7 }, { 0, 0, 3.7 }, { 0, 0, 2.8 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 4.0 } },
	{ { 5.0, 8.5, 14 }, { 2.7, 4.0, 14.0 }, { 0, 0, 31 }, { 0, 0, 30 }, { 0, 0, 18 }, { 0, 0, 20.9 }, { 0, 0, 14 } },
};
static const double ll_max[4][3] = {
	{ 39.0, 39.0, 20.4 }, { 87.7, 22.5, 19.0 }, { 141.0, 45.0, 35.0 }, { 2 * 141.0, 2 * 45.0, 2 * 35.0 },
};
static const double ring_ll128[4][3] = {
	{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 36.7 }, { 40.0, 40.0, 40.0 },
};
static const double tree_ll128[4][3] = {
	{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 },
};
static const double tree_max[4][3] = {
	{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 },
};
static const double nvls_tree_max[4][3] = {
	{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 0.0, 57.7, 45.5 }, { 0.0, 96.0, 80.0 },
};
static const double nvls_eff[4] = { 0.0, 0.0, 0.85, 0.74 };
/* The release NCCL's model is asked to be (model.nccl_version): its
 * per-channel caps, NVLS factor, latencies and algorithms where they differ
 * from 2.30's above (shared/reference/nccl-model.md section 1.10, from the
 * v2.21.5, v2.23.4, v2.25.1, v2.28.3 and v2.29.7 tags):
 *   < 2.23  Tree Simple: base 0, hop latency 28 us on NVLink, PCI and NET;
 *           NET NVLSTree Simple 14 us (the release that moved it to 20.9 is
 *           not in the notes: taken with the tree's, 2.23); no PAT
 *   < 2.25  no Blackwell rows: Blackwell takes Hopper's
 *   < 2.28  no nvlsEfficiency: NVLS and NVLSTree take 5/6 of their busBw
 *           instead (the ratio quoted in NVIDIA/nccl issue 1184)
 *   2.25-2.28  Blackwell's per-channel caps are twice Hopper's
 *   2.29    Blackwell's NVLSTree cap on more than 2 nodes 43.8 (80 from 2.30)
 * Releases before 2.21 take 2.21's (the oldest the notes cover). */
struct vtab {
	int v, cc;                 /* the release; the architecture row it reads */
	double ring_ll128[3], tree_ll128[3], tree_max[3], nvls_tree_max[3];
	double nvls_eff, nvls_ratio;
	int pat;
};

static int version_of(const struct ccs_nccl_in *c)
{
	return c->version > 0 ? c->version : CCS_NCCL_VERSION;
}

static void vtab_of(const struct ccs_nccl_in *c, struct vtab *t)
{
	int v = version_of(c), cc = c->arch;
	if (v < 225 && cc == CCS_ARCH_BLACKWELL)
		cc = CCS_ARCH_HOPPER;
	t->v = v;
	t->cc = cc;
	double x = v < 229 && cc == CCS_ARCH_BLACKWELL ? 2 : 1;
	int row = x > 1 ? CCS_ARCH_HOPPER : cc;
	for (int i = 0; i < 3; i++) {
		t->ring_ll128[i] = x * ring_ll128[row][i];
		t->tree_ll128[i] = x * tree_ll128[row][i];
		t->tree_max[i] = x * tree_max[row][i];
		t->nvls_tree_max[i] = x * nvls_tree_max[row][i];
	}
	if (v == 229 && cc == CCS_ARCH_BLACKWELL)
		t->nvls_tree_max[2] = 43.8;
	t->nvls_eff = v < 228 ? 1.0 : nvls_eff[cc];
	t->nvls_ratio = v < 228 ? 5.0 / 6.0 : 1.0;
	t->pat = v >= 223;
}

static double v_base_lat(const struct vtab *t, int row, int proto)
{
	return t->v < 223 && row == NA_TREE && proto == 2 ? 0 : base_lat[row][proto];
}

static double v_hw_lat(const struct vtab *t, int hw, int row, int proto)
{
	if (t->v < 223 && row == NA_TREE && proto == 2)
		return 28;
	if (t->v < 223 && hw == HW_NET && row == NA_NVLST && proto == 2)
		return 14;
	return hw_lat[hw][row][proto];
}

int ccs_nccl_version_parse(const char *s)
{
	int major = 0, minor = 0, patch = 0, k = 0;
	char tail;
	int n = sscanf(s, "%d.%d%n", &major, &minor, &k);
	if (n != 2 || major != 2)
		return -1;
	if (s[k] == '.' && sscanf(s + k, ".%d%c", &patch, &tail) != 1)
		return -1;
	if (s[k] && s[k] != '.')
		return -1;
	int v = major * 100 + minor;
	return v < CCS_NCCL_VERSION_MIN || v > CCS_NCCL_VERSION ? -1 : v;
}

static const double tree_corr[3][24] = {
	{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0 },
	{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0 },
	{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
};

static const double speed_intra[4][13] = {
	{ 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0 },
	{ 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0 },
	{ 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0 },
	{ 90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0 },
};
static const int speed_intra_n[4] = { 13, 13, 11, 12 };
static const double speed_inter[4][20] = {
	{ 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12 },
	{ 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12 },
	{ 48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12 },
	{ 96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12 },
};
static const int speed_inter_n[4] = { 19, 19, 17, 20 };

double ccs_nccl_nvlink_bw(int arch)
{
	static const double bw[4] = { 20.0, 20.0, 20.6, 40.1 };
	return bw[arch];
}

double ccs_nccl_pci_bw(double link_GBps)
{
	/* NCCL counts a lane's GT/s at 3/4 (kvDictPciGen: 8 GT/s is 60 x 100
	 * Mb/s) and a link as width x that / 80 GB/s; our PCIe rate is after
	 * 128b/130b (Gen4 x16: 31.5 GB/s, NCCL 24); PCI_BW 12.0 where none */
	return link_GBps > 0 ? link_GBps * (24.0 / 31.5) : 12.0;
}

const double *ccs_nccl_speed_intra(int arch) { return speed_intra[arch]; }
int ccs_nccl_speed_intra_n(int arch) { return speed_intra_n[arch]; }
const double *ccs_nccl_speed_inter(int arch) { return speed_inter[arch]; }
int ccs_nccl_speed_inter_n(int arch) { return speed_inter_n[arch]; }

static int nodes_idx(int nnodes) { return nnodes <= 2 ? nnodes - 1 : 2; }

double ccs_nccl_ll_max_bw(int arch, int nnodes)
{
	/* one node: by GPU generation; several: by CPU vendor (Intel row 0) */
	return nnodes == 1 ? ll_max[arch][0] : ll_max[0][nodes_idx(nnodes)];
}

double ccs_nccl_ring_ll128_max(int arch, int ni) { return ring_ll128[arch][ni]; }
double ccs_nccl_tree_ll128_max(int arch, int ni) { return tree_ll128[arch][ni]; }

double ccs_nccl_proto_data_share(int proto)
{
	return proto == CCS_PROTO_LL ? 0.5 : proto == CCS_PROTO_LL128 ? 120.0 / 128.0 : 1.0;
}

double ccs_nccl_tree_proto_eff(int proto, int nnodes)
{
	return 0.92 * (proto == CCS_PROTO_LL ? 1 / 3.8 : proto == CCS_PROTO_LL128 ? (nnodes == 1 ? 7.0 / 9.0 : ccs_nccl_proto_data_share(proto)) : 1.0);
}

double ccs_nccl_tree_correction(int proto, double bytes)
{
	double x = bytes > 64 ? log2(bytes / 64.0) : 0;
	if (x >= 23)
		return 1.0;
	int i = (int)x;
	double f0 = tree_corr[proto][i], f1 = i + 1 < 24 ? tree_corr[proto][i + 1] : 1.0;
	return f0 + (f1 - f0) * (x - i);
}

/* The row of NCCL's tables an algorithm takes: its own (NCCL's ids are
 * the rows' order), the ring's for ccsim's own. */
static int nccl_row(int algo)
{
	int id = ccs_algo_desc[algo].nccl;
	return id >= 0 ? id : NA_RING;
}

static double net_hw(const struct ccs_nccl_in *c, int row, int proto)
{
	double l = (c->p == 1 ? hw_lat[HW_NET][NA_TREE][proto] : hw_lat[HW_NET][row][proto]);
	if (l == 0)
		l = hw_lat[HW_NET][row][2];
	return l;
}

double ccs_nccl_latency(const struct ccs_nccl_in *c, int algo, int proto, int hi, int hn)
{
	int row = nccl_row(algo);
	int intra = c->intra_nvl ? HW_NVLINK : HW_PCI;
	double li = hw_lat[intra][row][proto];
	if (li == 0)
		li = hw_lat[intra][row][2];
	/* NCCL's per-hop network figure (InfiniBand's), the graph's path, and
	 * what the transport adds to a message (model/transport.h) */
	double ln = net_hw(c, row, proto) * 1e-6 + c->lat_net * (proto == CCS_PROTO_SIMPLE ? 2 : 1) + c->msg_lat_s;
	if (row == NA_RING && c->G > 1) {
		double over = 1.0 * (proto == CCS_PROTO_SIMPLE ? 3 : 1);
		if (li < over)
			li = over;
	}
	return base_lat[row][proto] * 1e-6 + hi * (li * 1e-6 + c->lat_intra) + hn * ln;
}

int ccs_nccl_channels(const struct ccs_nccl_in *c, int algo)
{
	if (c->channels)
		return c->channels;
	if (ccs_algo_desc[algo].nvls_channels)
		return c->nvls_channels;
	/* ncclTopoDupChannels doubles when a channel is fast; ncclTopoPostset
	 * doubles again at run time; at most 32 collective channels here. */
	int nch = c->nch_ring;
	double bw = c->intra_GBps;
	if (bw >= 25 && (c->arch < CCS_ARCH_HOPPER || bw >= 50 || nch <= 4))
		nch *= 2;
	nch *= 2;
	return nch > 32 ? 32 : nch < 2 ? 2 : nch;
}

static int ilog2i(int n)
{
	int k = 0;
	while ((1 << (k + 1)) <= n)
		k++;
	return k;
}

/* NCCL's (busBw -> algBw) in GB/s for one (coll, algo, proto), or 0 when it
 * does not offer it; lat in us. */
/* Which combinations NCCL computes and enables (its tuning model's own
 * checks): 1 or 0. */
static int nccl_enabled(const struct ccs_nccl_in *c, int coll, int algo, int proto)
{
	int n = c->n, nNodes = c->G, ppn = c->p, cc = c->arch;
	if (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) {
		if (algo != CCS_ALGO_RING)
			return 0;
	} else if (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER) {
		if (algo != CCS_ALGO_RING && algo != CCS_ALGO_PAT && algo != CCS_ALGO_NVLS &&
		    algo != CCS_ALGO_COLLNET_DIRECT)
			return 0;
		if (algo == CCS_ALGO_PAT && (proto != CCS_PROTO_SIMPLE || nNodes != n))
			return 0;
		if ((algo == CCS_ALGO_NVLS || algo == CCS_ALGO_COLLNET_DIRECT) && nNodes > 1)
			return 0;
	} else if (coll == CCS_COLL_ALLREDUCE) {
		if (algo == CCS_ALGO_PAT)
			return 0;
	} else {
		return 0;
	}
	if (algo >= CCS_ALGO_NCCL_N)
		return 0;
	if (algo == CCS_ALGO_PAT && version_of(c) < 223)
		return 0;
	if ((algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) && (proto != CCS_PROTO_SIMPLE || !c->nvls))
		return 0;
	/* NVLS across nodes rides CollNet (SHARP), and NCCL uses CollNet only
	 * with NCCL_COLLNET_ENABLE=1 and its plugin (off by default) */
	if (algo == CCS_ALGO_NVLS && nNodes > 1 && (!c->sharp || !c->collnet))
		return 0;
	if ((algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN) && !c->collnet)
		return 0;
	if (algo == CCS_ALGO_NVLS_TREE && nNodes == 1)
		return 0;
	if ((algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN) &&
	    (!c->sharp || proto != CCS_PROTO_SIMPLE || ppn > 8))
		return 0;
	if (algo == CCS_ALGO_TREE && coll != CCS_COLL_ALLREDUCE)
		return 0;
	if (proto == CCS_PROTO_LL128 && !(c->intra_nvl || ppn == 1))
		return 0;
	if (cc < CCS_ARCH_HOPPER && (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE))
		return 0;
	return 1;
}

/* NCCL's bus bandwidth of the algorithm's search graph (GB/s) after its
 * protocol and algorithm factors; 0 when it has too few channels. */
static double nccl_busbw(const struct ccs_nccl_in *c, int coll, int algo, int proto, int nsteps)
{
	int n = c->n, nNodes = c->G, ppn = c->p;
	struct vtab vt;
	vtab_of(c, &vt);
	int cc = vt.cc, ni = nodes_idx(nNodes);
	int nCh = c->nch_ring;
	double bwIntra = algo == CCS_ALGO_TREE && c->tree_intra_GBps > 0 ? c->tree_intra_GBps : c->intra_GBps;
	double bwInter = c->inter_GBps;
	if (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) {
		nCh = ppn < 32 ? ppn : 32;
		const double *spd = speed_intra[cc];
		double per = c->nvl_GBps / (nCh > 0 ? nCh : 1);
		bwIntra = spd[speed_intra_n[cc] - 1];
		for (int i = 0; i < speed_intra_n[cc]; i++)
			if (spd[i] <= per) {
				bwIntra = spd[i];
				break;
			}
		bwInter = nNodes > 1 ? c->net_GBps / (nCh > 0 ? nCh : 1) : bwIntra;
		if (nCh < 2)
			return 0;
	}
	double bw = (nNodes <= 2 || algo == CCS_ALGO_COLLNET_DIRECT || algo == CCS_ALGO_COLLNET_CHAIN) ? bwIntra : bwInter;
	if (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE) {
		double intraBw = bwIntra * vt.nvls_eff * (nCh - 1) / nCh;
		intraBw *= coll == CCS_COLL_ALLREDUCE ? 2.0 : (double)(ppn - 1) / ppn;
		double interBw = bwInter * ((nNodes <= 2 && algo == CCS_ALGO_NVLS_TREE) ? 2 : 1);
		bw = intraBw < interBw || nNodes == 1 ? intraBw : interBw;
		if (algo == CCS_ALGO_NVLS_TREE && bw > vt.nvls_tree_max[ni])
			bw = vt.nvls_tree_max[ni];
	}
	double busBw = nCh * bw;
	if (algo == CCS_ALGO_RING && proto == CCS_PROTO_LL) {
		double m = ccs_nccl_ll_max_bw(cc, nNodes);
		busBw = fmin(m, busBw * 0.5);
	}
	if (algo == CCS_ALGO_RING && proto == CCS_PROTO_LL128)
		busBw = fmin(busBw * 0.92, nCh * vt.ring_ll128[ni]);
	/* the tree's protocol share, each step capped as NCCL caps it */
	if (algo == CCS_ALGO_TREE && coll == CCS_COLL_ALLREDUCE)
		busBw = fmin(busBw * ccs_nccl_tree_proto_eff(CCS_PROTO_SIMPLE, nNodes), nCh * vt.tree_max[ni]);
	if (algo == CCS_ALGO_TREE && proto != CCS_PROTO_SIMPLE) {
		double k = ccs_nccl_tree_proto_eff(proto, nNodes) / ccs_nccl_tree_proto_eff(CCS_PROTO_SIMPLE, nNodes);
		busBw = fmin(busBw * k, proto == CCS_PROTO_LL ? ccs_nccl_ll_max_bw(cc, nNodes) : nCh * vt.tree_ll128[ni]);
	}
	if (algo == CCS_ALGO_PAT)
		busBw *= 0.75;
	if (algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE)
		busBw *= vt.nvls_ratio;
	if (algo == CCS_ALGO_COLLNET_DIRECT) {
		if (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER) {
			busBw = ppn * fmin(bwIntra, bwInter * 0.9);
		} else {
			double factor = (double)ppn / nCh;
			factor -= (factor - 1) / 2;
			busBw /= factor;
			if (cc >= CCS_ARCH_HOPPER)
				busBw *= 0.85;
		}
	}
	if (algo == CCS_ALGO_RING || (coll != CCS_COLL_ALLGATHER && coll != CCS_COLL_REDUCESCATTER)) {
		double ratio = (algo == CCS_ALGO_RING || algo == CCS_ALGO_NVLS || algo == CCS_ALGO_NVLS_TREE)
		             ? (double)n / nsteps : 0.5;
		busBw *= ratio;
	}
	return busBw;
}

/* NCCL's latency of the algorithm (us): base, intra and inter hops. */
static double nccl_lat_us(const struct ccs_nccl_in *c, int coll, int algo, int proto, int nsteps)
{
	int n = c->n, nNodes = c->G, ppn = c->p;
	int row = nccl_row(algo);
	int intraHw = c->intra_nvl ? HW_NVLINK : HW_PCI;
	int hw = nNodes == 1 ? intraHw : HW_NET;
	struct vtab vt;
	vtab_of(c, &vt);
	double l = v_base_lat(&vt, row, proto);
	double intraLat = v_hw_lat(&vt, intraHw, row, proto);
	/* graph->latencyInter: the NICs' latency as NCCL sees it, the plugin's
	 * reported figure included */
	double latInter = (c->lat_net + c->net_lat_s) * 1e6;
	double interLat = (ppn == 1 ? v_hw_lat(&vt, HW_NET, NA_TREE, proto) : v_hw_lat(&vt, HW_NET, row, proto)) + latInter;
	if (proto == CCS_PROTO_SIMPLE)
		interLat += latInter;
	if (algo == CCS_ALGO_RING) {
		if (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) {
			l += nsteps * (proto == CCS_PROTO_SIMPLE ? v_hw_lat(&vt, hw, NA_TREE, 2) : hw_lat[hw][NA_RING][proto]);
		} else {
			double netOverhead = nNodes > 1 ? 1.0 * (proto == CCS_PROTO_SIMPLE ? 3 : 1) : 0;
			intraLat = fmax(intraLat, netOverhead);
			int nInter = nNodes == 1 ? 0 : (coll == CCS_COLL_ALLREDUCE ? 2 * (nNodes - 1) : nNodes - 1);
			l += (nsteps - nInter) * intraLat + nInter * interLat;
		}
	} else if (algo == CCS_ALGO_TREE) {
		l += 2 * ((ppn - 1) * intraLat + ilog2i(nNodes) * interLat);
	} else if (algo == CCS_ALGO_COLLNET_DIRECT) {
		l += 2 * (fmin(1, ppn - 1) * intraLat + (ppn - 1) * 0.4) + interLat;
	} else if (algo == CCS_ALGO_COLLNET_CHAIN) {
		l += 2 * (ppn - 1) * intraLat + interLat;
	} else if (algo == CCS_ALGO_NVLS) {
		l = intraLat + (nNodes > 1 ? interLat : 0);
	} else if (algo == CCS_ALGO_NVLS_TREE) {
		l += intraLat + 2 * ilog2i(nNodes) * interLat;
	} else if (algo == CCS_ALGO_PAT) {
		l += ilog2i(nNodes) * (interLat / 3.5) + n * 2.8;
	}
	return l;
}

static double nccl_bw_lat(const struct ccs_nccl_in *c, int coll, int algo, int proto, double *lat)
{
	int n = c->n;
	int nsteps = coll == CCS_COLL_ALLREDUCE ? 2 * (n - 1)
	           : (coll == CCS_COLL_REDUCESCATTER || coll == CCS_COLL_ALLGATHER) ? n - 1 : n;
	if (!nccl_enabled(c, coll, algo, proto))
		return 0;
	double busBw = nccl_busbw(c, coll, algo, proto, nsteps);
	if (busBw == 0)
		return 0;
	*lat = nccl_lat_us(c, coll, algo, proto, nsteps);
	return busBw;
}

double ccs_nccl_algbw(const struct ccs_nccl_in *c, int coll, int algo, int proto)
{
	double lat;
	return c->n > 1 ? nccl_bw_lat(c, coll, algo, proto, &lat) : 0;
}

double ccs_nccl_nvls_chunk_max(const struct ccs_nccl_in *c)
{
	if (c->G <= 1)
		return CCS_NCCL_CHUNK_NVLS;
	/* NVLS across nodes runs on CollNet: NCCL's bandwidth with it on */
	struct ccs_nccl_in on = *c;
	on.collnet = 1;
	return ccs_nccl_algbw(&on, CCS_COLL_ALLREDUCE, CCS_ALGO_NVLS, CCS_PROTO_SIMPLE) < 150 ? CCS_NCCL_CHUNK_NVLS_NET
	                                                                                      : CCS_NCCL_CHUNK_NVLS;
}

double ccs_nccl_time(const struct ccs_nccl_in *c, int coll, int algo, int proto, uint64_t bytes)
{
	if (c->n == 1)
		return 0;
	/* a plugin that allows only some protocols (NCCL_PROTO=simple on EFA v1) */
	if (c->G > 1 && !(c->net_protos & (1u << proto)))
		return -1;
	double lat = 0;
	double bw = nccl_bw_lat(c, coll, algo, proto, &lat);
	return ccs_nccl_time_at(c, coll, algo, proto, bytes, bw, lat);
}

double ccs_nccl_bw_lat(const struct ccs_nccl_in *c, int coll, int algo, int proto, double *lat)
{
	*lat = 0;
	if (c->n == 1 || (c->G > 1 && !(c->net_protos & (1u << proto))))
		return 0;
	return nccl_bw_lat(c, coll, algo, proto, lat);
}

double ccs_nccl_time_at(const struct ccs_nccl_in *c, int coll, int algo, int proto, uint64_t bytes, double bw, double lat)
{
	if (c->n == 1)
		return 0;
	if (!(bw > 0))
		return -1;
	int logSize = 0;
	uint64_t v = bytes >> 6;
	if (v == 0)
		logSize = -1;
	else
		while (v >>= 1)
			logSize++;
	if (algo == CCS_ALGO_TREE && coll == CCS_COLL_ALLREDUCE && logSize >= 0 && logSize < 23)
		bw *= tree_corr[proto][logSize];
	if (algo == CCS_ALGO_RING && proto == CCS_PROTO_SIMPLE && c->G > 1 && coll == CCS_COLL_ALLREDUCE &&
	    (double)bytes / ((double)ccs_nccl_channels(c, CCS_ALGO_RING) * c->n) >= 64)
		lat *= c->arch < CCS_ARCH_AMPERE ? 1.9 : 1.4;
	double us = lat + (double)bytes / (1000.0 * bw);
	return us * 1e-6;
}
