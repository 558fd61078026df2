/* sim/sched/ring.c: ring and NVLS schedules (sched.h). */
#include "build.h"

#include "../../model/nccl_tables.h"
#include "../../model/ring_nic.h"

#include <math.h>
#include <string.h>

struct ring {
	int n, C, steps;
	int K;                      /* chunks per step (chunk granularity), else 1 */
	double sync_chunk;
	int inter_sync;             /* network hops pay the step work (GPU-paced) */
	int32_t *order;             /* C x n: rank at ring position */
	uint32_t *nic;              /* C x G: NIC channel c enters group g by */
	uint32_t *nic_out;          /* C x G: NIC it leaves by (the same where the
	                             * exit rank can use it) */
	double bytes_intra, bytes_inter;
	double d_intra, d_inter, d_base;
	double floor_inter;         /* a step's network hop: the transport's handling of
	                             * its chunks (model/transport.h chunk_s) */
};

/* The ring and the communicator it runs on; for Broadcast and Reduce the
 * chain along it (below). */
struct ring_sched {
	struct ring r;
	const struct ccs_comm *c;
	int reduce;                 /* chain: toward the root, else from it */
	int P;                      /* chain: ops per channel and hop */
	int32_t *rootpos;           /* chain: the root's position in channel c's ring */
	double chain_intra, chain_inter;   /* chain: wire bytes per real byte */
	double part_full, part_last;       /* chain: real bytes of a part, of the last */
	double chain_sync, chain_sync_inter;
	double chain_floor;                /* chain: a network hop's floor per real byte */
};

/* The transfer of channel c from ring position i to i+1: ends, channel and,
 * across groups, the channel's NICs of both groups.  Returns whether it
 * crosses groups; bytes and delay are the caller's. */
static int hop(const struct ring_sched *rs, int c, int i, struct ccs_op *op)
{
	const struct ring *r = &rs->r;
	const int32_t *ord = r->order + (size_t)c * r->n;
	int a = ord[i], b = ord[i + 1 == r->n ? 0 : i + 1];
	int ga = rs->c->rank_group[a], gb = rs->c->rank_group[b];
	memset(op, 0, sizeof *op);
	op->kind = CCS_OP_XFER;
	op->src = a;
	op->dst = b;
	op->channel = (uint32_t)c;
	op->nic_src = op->nic_dst = UINT32_MAX;
	if (ga == gb)
		return 0;
	op->nic_src = r->nic_out[(size_t)c * rs->c->G + ga];
	op->nic_dst = r->nic[(size_t)c * rs->c->G + gb];
	return 1;
}

static void rs_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct ring_sched *rs = s->ctx;
	const struct ring *r = &rs->r;
	int i, step, c;
	if (id < UINT32_MAX) {      /* 32-bit division is much cheaper */
		uint32_t n = (uint32_t)r->n, x = (uint32_t)id, cs = x / n;
		i = (int)(x - cs * n);
		c = (int)(cs / (uint32_t)r->steps);
		step = (int)(cs - (uint32_t)c * (uint32_t)r->steps);
	} else {
		uint64_t n = (uint64_t)r->n, cs = id / n;
		i = (int)(id % n);
		step = (int)(cs % (uint64_t)r->steps);
		c = (int)(cs / (uint64_t)r->steps);
	}
	if (hop(rs, c, i, op)) {
		op->bytes = r->bytes_inter;
		op->delay_s = r->d_inter;
		op->floor_s = step ? r->floor_inter : 0;   /* the first chunk's handling is in the latency */
	} else {
		op->bytes = r->bytes_intra;
		op->delay_s = r->d_intra;
	}
	if (step == 0)
		op->delay_s += r->d_base;
}

static int rs_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct ring_sched *rs = s->ctx;
	if (id < UINT32_MAX) {      /* 32-bit division is much cheaper */
		uint32_t n = (uint32_t)rs->r.n, x = (uint32_t)id, cs = x / n, i = x - cs * n;
		if (cs % (uint32_t)rs->r.steps + 1 >= (uint32_t)rs->r.steps)
			return 0;
		out[0] = (uint64_t)(cs + 1) * n + (i + 1 == n ? 0 : i + 1);
		return 1;
	}
	uint64_t n = (uint64_t)rs->r.n;
	uint64_t i = id % n, cs = id / n;
	uint64_t step = cs % (uint64_t)rs->r.steps;
	if (step + 1 >= (uint64_t)rs->r.steps)
		return 0;
	out[0] = (cs + 1) * n + (i + 1) % n;
	return 1;
}

static uint32_t rs_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct ring_sched *rs = s->ctx;
	if (id < UINT32_MAX)
		return ((uint32_t)id / (uint32_t)rs->r.n) % (uint32_t)rs->r.steps ? 1 : 0;
	uint64_t step = (id / (uint64_t)rs->r.n) % (uint64_t)rs->r.steps;
	return step ? 1 : 0;
}

/* Chunk granularity (the default): chunk (c, s, k, i) = ((c steps + s) K
 * + k) n + i is one op, the transfer of chunk k of step s from position i
 * to i+1.  It waits for chunk k of step s-1 from the previous position (its
 * data) and for the transfer before it on the same link (k-1 of its step,
 * or the last of the step before: a link sends its chunks in order); inside
 * a group it pays its share of the per-chunk synchronisation before it
 * starts (the network streams from its own buffers, as the closed form
 * counts it).  The pipeline's latency is paid once, before the first
 * chunk. */
static void rc_split(const struct ring *r, uint64_t chunk, int *c, int *step, int *k, int *i)
{
	if (chunk < UINT32_MAX) {   /* 32-bit division is much cheaper */
		uint32_t x = (uint32_t)chunk, n = (uint32_t)r->n, K = (uint32_t)r->K, S = (uint32_t)r->steps;
		uint32_t q = x / n;
		*i = (int)(x - q * n);
		uint32_t q2 = q / K;
		*k = (int)(q - q2 * K);
		uint32_t q3 = q2 / S;
		*step = (int)(q2 - q3 * S);
		*c = (int)q3;
		return;
	}
	uint64_t n = (uint64_t)r->n;
	*i = (int)(chunk % n);
	uint64_t x = chunk / n;
	*k = (int)(x % (uint64_t)r->K);
	x /= (uint64_t)r->K;
	*step = (int)(x % (uint64_t)r->steps);
	*c = (int)(x / (uint64_t)r->steps);
}

static uint64_t rc_chunk(const struct ring *r, int c, int step, int k, int i)
{
	return (((uint64_t)c * (uint64_t)r->steps + (uint64_t)step) * (uint64_t)r->K + (uint64_t)k) * (uint64_t)r->n +
	       (uint64_t)i;
}

static void rc_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct ring_sched *rs = s->ctx;
	const struct ring *r = &rs->r;
	int c, step, k, i;
	rc_split(r, id, &c, &step, &k, &i);
	/* the GPU side pays the per-chunk synchronisation; the network streams
	 * from its own buffers (as the closed form counts it) */
	if (hop(rs, c, i, op)) {
		op->bytes = r->bytes_inter / r->K;
		op->delay_s = r->inter_sync ? r->sync_chunk : 0;
		op->floor_s = step || k ? r->floor_inter / r->K : 0;
	} else {
		op->bytes = r->bytes_intra / r->K;
		op->delay_s = r->sync_chunk;
	}
	if (step == 0 && k == 0)
		op->delay_s += r->d_base;
}

static int rc_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct ring_sched *rs = s->ctx;
	const struct ring *r = &rs->r;
	int c, step, k, i, m = 0;
	rc_split(r, id, &c, &step, &k, &i);
	if (step + 1 < r->steps)
		out[m++] = rc_chunk(r, c, step + 1, k, i + 1 == r->n ? 0 : i + 1);
	if (k + 1 < r->K)
		out[m++] = id + (uint64_t)r->n;
	else if (step + 1 < r->steps)
		out[m++] = rc_chunk(r, c, step + 1, 0, i);
	return m;
}

static uint32_t rc_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct ring_sched *rs = s->ctx;
	int c, step, k, i;
	rc_split(&rs->r, id, &c, &step, &k, &i);
	return (uint32_t)(step > 0) + (uint32_t)(k > 0 || step > 0);
}

/* Broadcast and Reduce: in each channel a chain along the ring, from the
 * root (Broadcast: position rp to rp + 1, ..., rp + n - 2 to rp + n - 1)
 * or to it (Reduce: rp + 1 to rp + 2, ..., rp + n - 1 to rp), the
 * channel's S/C in P parts.  Op (c, k, h) = (c P + k)(n - 1) + h moves part
 * k over hop h; it waits for part k of hop h - 1 (its data) and part k - 1
 * of hop h (a link sends in order).  Simple forwards whole chunks (P = the
 * chunks: full ones, then what is left; store and forward, as NCCL's
 * Simple waits for a step before it passes it on); LL and LL128 forward
 * each line as it arrives, which the parts approximate by being many (200
 * per hop of the chain, at most 4096), so that the chain fills in about
 * one part time per hop. */
static void ch_split(const struct ring_sched *rs, uint64_t id, int *c, int *k, int *h)
{
	uint64_t hops = (uint64_t)rs->r.n - 1, x = id / hops;
	*h = (int)(id % hops);
	*k = (int)(x % (uint64_t)rs->P);
	*c = (int)(x / (uint64_t)rs->P);
}

static void ch_get(const struct ccs_sched *s, uint64_t id, struct ccs_op *op)
{
	const struct ring_sched *rs = s->ctx;
	int c, k, h, n = rs->r.n;
	ch_split(rs, id, &c, &k, &h);
	int i = (rs->rootpos[c] + h + (rs->reduce ? 1 : 0)) % n;
	double d = k + 1 == rs->P ? rs->part_last : rs->part_full;
	if (hop(rs, c, i, op)) {
		op->bytes = d * rs->chain_inter;
		op->delay_s = rs->chain_sync_inter;
		op->floor_s = k ? d * rs->chain_floor : 0;
	} else {
		op->bytes = d * rs->chain_intra;
		op->delay_s = rs->chain_sync;
	}
	if (k == 0 && h == 0)
		op->delay_s += rs->r.d_base;
}

static int ch_succ(const struct ccs_sched *s, uint64_t id, uint64_t *out)
{
	const struct ring_sched *rs = s->ctx;
	int c, k, h, m = 0;
	ch_split(rs, id, &c, &k, &h);
	if (h + 2 < rs->r.n)
		out[m++] = id + 1;
	if (k + 1 < rs->P)
		out[m++] = id + (uint64_t)(rs->r.n - 1);
	return m;
}

static uint32_t ch_ndeps(const struct ccs_sched *s, uint64_t id)
{
	const struct ring_sched *rs = s->ctx;
	int c, k, h;
	ch_split(rs, id, &c, &k, &h);
	return (uint32_t)(h > 0) + (uint32_t)(k > 0);
}

static void rs_release(struct ccs_sched *s)
{
	struct ring_sched *rs = s->ctx;
	if (rs) {
		ccs_free(rs->r.order);
		ccs_free(rs->r.nic);
		ccs_free(rs->r.nic_out);
		ccs_free(rs->rootpos);
		ccs_free(rs);
	}
	memset(s, 0, sizeof *s);
}

/* The lane view (sched.h): lane c n + i is channel c's position i; both
 * granularities number op (t, lane) as (c T + t) n + i, t the step (store
 * and forward) or step K + chunk.  A position waits for its predecessor's
 * op of the step before (dt 1, or K chunks back); in chunks also for its
 * own previous chunk (dt 1).  Ops of a lane differ only in bytes and delay,
 * which depend on whether its hop crosses groups. */
static uint64_t ln_id(const struct ccs_sched *s, uint64_t t, uint32_t l)
{
	const struct ring *r = &((const struct ring_sched *)s->ctx)->r;
	uint64_t n = (uint64_t)r->n, T = (uint64_t)r->steps * (uint64_t)r->K;
	return ((uint64_t)(l / n) * T + t) * n + l % n;
}

static uint32_t ln_pred(const struct ccs_sched *s, int j, uint32_t l)
{
	const struct ring *r = &((const struct ring_sched *)s->ctx)->r;
	uint32_t n = (uint32_t)r->n, i = l % n;
	return j ? l : l - i + (i ? i - 1 : n - 1);
}

static uint64_t ln_key(const struct ccs_sched *s, uint32_t l)
{
	const struct ring_sched *rs = s->ctx;
	struct ccs_op op;
	return (uint64_t)hop(rs, (int)(l / (uint32_t)rs->r.n), (int)(l % (uint32_t)rs->r.n), &op);
}

static int ln_lanes(const struct ccs_sched *s, struct ccs_sched_lanes *out)
{
	const struct ring *r = &((const struct ring_sched *)s->ctx)->r;
	if ((uint64_t)r->C * (uint64_t)r->n >= UINT32_MAX)
		return 0;
	memset(out, 0, sizeof *out);
	out->L = (uint32_t)r->C * (uint32_t)r->n;
	out->T = (uint64_t)r->steps * (uint64_t)r->K;
	out->ndep = s->ops->get == rc_get ? 2 : 1;
	out->dt[0] = (uint64_t)r->K;
	out->dt[1] = 1;
	out->id = ln_id;
	out->pred = ln_pred;
	out->key = ln_key;
	return 1;
}

static const struct ccs_sched_ops rs_ops = { rs_get, rs_succ, rs_ndeps, rs_release, NULL, ln_lanes };
static const struct ccs_sched_ops rc_ops = { rc_get, rc_succ, rc_ndeps, rs_release, NULL, ln_lanes };
static const struct ccs_sched_ops ch_ops = { ch_get, ch_succ, ch_ndeps, rs_release, NULL, NULL };

/* Bytes and delays as the closed form counts them. */
static void ring_costs(const struct ccs_comm *c, int coll, int proto, int C, uint64_t bytes, struct ring *r)
{
	int n = c->n;
	double S = (double)bytes;
	double per = S / ((double)n * C);
	double e = ccs_nccl_proto_data_share(proto);
	double cap = HUGE_VAL;
	if (proto == CCS_PROTO_LL)
		cap = ccs_nccl_ll_max_bw(c->arch, c->G) * 1e9;
	else if (proto == CCS_PROTO_LL128)
		cap = ccs_nccl_ring_ll128_max(c->arch, c->G <= 2 ? c->G - 1 : 2) * 1e9 * c->nccl.nch_ring;
	double bi = c->b_su * e < cap ? c->b_su * e : cap;
	r->bytes_intra = c->b_su > 0 ? per * c->b_su / bi : per / e;
	r->bytes_inter = per / e;
	/* The GPU produces what it sends to the network too: where its side
	 * (a protocol cap, or slower links) is slower than the channel's share
	 * of the NICs, network hops go at the GPU's pace, as the closed form's
	 * max(GPU side, network side) has it. */
	if (c->G > 1 && c->b_su > 0) {
		double bn = c->B_net * e;
		if (c->nccl.nics > 0 && C < c->nccl.nics)
			bn = bn * C / c->nccl.nics;
		if (bn > bi) {
			r->bytes_inter *= bn / bi;
			r->inter_sync = 1;      /* and pay the GPU's step work too */
		}
	}
	int sliced = coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER;
	double chunk = proto == CCS_PROTO_LL ? CCS_NCCL_CHUNK_LL : proto == CCS_PROTO_LL128 ? CCS_NCCL_CHUNK_LL128
	             : sliced ? CCS_NCCL_SLICE_RING : CCS_NCCL_STEP_SIMPLE;
	double sync = c->prm.step_s[proto] * per / chunk;
	/* The closed form's latency (NCCL's: 2(G-1) network steps for
	 * AllReduce, G-1 otherwise, the rest inside groups) once, before the
	 * first step; a ring's chunk crosses more group boundaries than that on
	 * its way round (2G(n-1)/n), and charging each hop would count the
	 * pipeline's latency again */
	{
		int inter = c->G > 1 ? (coll == CCS_COLL_ALLREDUCE ? 2 * (c->G - 1) : c->G - 1) : 0;
		r->d_base = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, proto, r->steps - inter, inter) +
		            inter * ccs_cost_rdv_of(c, coll, CCS_ALGO_RING, proto, C, bytes);
	}
	r->d_intra = r->d_inter = sync;
	r->K = 1;
	r->sync_chunk = sync;
	/* the transport's handling of each chunk a channel sends across the
	 * network (model/transport.h chunk_s) overlaps the wire: a network hop
	 * takes max(wire, its chunks' handling), the closed form's
	 * max(W / B_net, (K - 1) chunk_s) one step at a time */
	r->floor_inter = c->G > 1 ? ccs_comm_tr(c)->chunk_s * per / ccs_cost_chunk(c, coll, CCS_ALGO_RING, proto, C, S) : 0;
	/* the closed form rounds the pipeline steps up; pay the remainder once */
	{
		double W = r->steps * per * C, K = W / ((double)C * chunk);
		r->d_base += (ceil(K) - K) * c->prm.step_s[proto];
	}
}

/* Whether the m members span several scale-up domains of their node
 * (NVLink-bridged pairs joined over PCIe). */
static int mixed_domains(const struct ccs_comm *c, const int32_t *mem, int m)
{
	for (int k = 1; k < m; k++)
		if (c->t->gpu[c->rank_gpu[mem[k]]].domain != c->t->gpu[c->rank_gpu[mem[0]]].domain)
			return 1;
	return 0;
}

static void reverse(int32_t *a, int m)
{
	for (int i = 0, j = m - 1; i < j; i++, j--) {
		int32_t x = a[i];
		a[i] = a[j];
		a[j] = x;
	}
}

/* The rings: each channel visits the groups in order.  In a node whose GPUs
 * sit in several scale-up domains (NVLink pairs joined over PCIe), odd
 * channels run the ring backwards: NCCL's search reserves each path's
 * bandwidth per direction, so its second ring takes the PCIe directions
 * the first left free, and the closed form's max-flow counts both. */
static int build_ring(const struct ccs_comm *c, int coll, int proto, int C, uint64_t bytes, struct ring_sched *rs)
{
	struct ring *r = &rs->r;
	int n = c->n, G = c->G;
	r->n = n;
	r->C = C;
	r->steps = coll == CCS_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
	r->order = ccs_malloc((size_t)C * n * sizeof *r->order);
	r->nic = ccs_malloc(((size_t)C * G + 1) * sizeof *r->nic);
	r->nic_out = ccs_malloc(((size_t)C * G + 1) * sizeof *r->nic_out);
	int32_t *gstart = NULL, *members = NULL;
	struct ccs_ring_nic w;
	int rc = ccs_ring_nic_init(&w, n);
	if (rc)
		return rc;
	rc = CCS_ENOMEM;
	if (!r->order || !r->nic || !r->nic_out || ccs_comm_members(c, &gstart, &members))
		goto out;
	/* group by group (each channel's ring visits the groups in order; a
	 * group's placement depends on its own members alone) */
	for (int g = 0, pos0 = 0; g < G; g++) {
		int m = gstart[g + 1] - gstart[g];
		const int32_t *mem = members + gstart[g];
		if (G > 1 && (rc = ccs_ring_nic_group(c->t, c->rank_gpu, mem, m, &w)))
			goto out;
		for (int ch = 0; ch < C; ch++) {
			int32_t *ord = r->order + (size_t)ch * n + pos0;
			int pos = 0, entry = 0, exit = m - 1;
			uint32_t nic = UINT32_MAX, nic_out = UINT32_MAX;
			if (G > 1)
				ccs_ring_nic_place(c->t, c->rank_gpu, mem, m, ch, &w, &entry, &exit, &nic, &nic_out);
			r->nic[(size_t)ch * G + g] = nic;
			r->nic_out[(size_t)ch * G + g] = nic_out;
			ord[pos++] = mem[entry];
			for (int k = 0; k < m; k++)
				if (k != entry && k != exit)
					ord[pos++] = mem[k];
			if (exit != entry)
				ord[pos++] = mem[exit];
			if (G == 1 && (ch & 1) && mixed_domains(c, mem, m))
				reverse(ord, m);
		}
		pos0 += m;
	}
	ring_costs(c, coll, proto, C, bytes, r);
	rc = CCS_OK;
out:
	ccs_free(gstart);
	ccs_free(members);
	ccs_ring_nic_release(&w);
	return rc;
}

/* The chain of Broadcast or Reduce along the rings of build_ring (which
 * rs->r holds): each hop moves the channel's S/C, as the closed form's
 * W = S at min(b_su, B_net) counts it, over its protocol's efficiency; GPU
 * hops pay the chunk steps (the network streams, unless the GPU side is
 * the slower and sets its pace, as in the ring); the closed form's latency
 * once, before the first part. */
static int build_chain(const struct ccs_comm *c, int coll, int proto, int C, uint64_t bytes, int root,
                       struct ring_sched *rs)
{
	struct ring *r = &rs->r;
	int n = c->n;
	rs->reduce = coll == CCS_COLL_REDUCE;
	rs->rootpos = ccs_malloc((size_t)C * sizeof *rs->rootpos);
	if (!rs->rootpos)
		return CCS_ENOMEM;
	for (int ch = 0; ch < C; ch++) {
		const int32_t *ord = r->order + (size_t)ch * n;
		rs->rootpos[ch] = 0;
		for (int i = 0; i < n; i++)
			if (ord[i] == root)
				rs->rootpos[ch] = i;
	}
	double S = (double)bytes, chunk = ccs_cost_chunk(c, coll, CCS_ALGO_RING, proto, C, S);
	double K = ceil(S / ((double)C * chunk));
	if (K < 1)
		K = 1;
	double P = K, full = (double)bytes / C, last;
	if (proto != CCS_PROTO_SIMPLE) {
		/* cut-through: many parts, so that the fill is about 0.5% */
		P = 200.0 * (n > 2 ? n - 2 : 1);
		if (P < K)
			P = K;
	}
	if (P > 4096)
		P = 4096;
	rs->P = (int)P;
	/* Simple: full chunks, then what is left (NCCL's loop over the
	 * channels' chunks); LL and LL128: equal parts */
	if (proto == CCS_PROTO_SIMPLE && P == K && full > chunk) {
		last = full - (P - 1) * chunk;
		full = chunk;
	} else
		full = last = full / P;
	/* build_ring's per-hop bytes are for S / (n C) real bytes: the wire
	 * bytes per real byte */
	double per = (double)bytes / ((double)n * C);
	rs->chain_intra = per > 0 ? r->bytes_intra / per : 1;
	rs->chain_inter = per > 0 ? r->bytes_inter / per : 1;
	rs->part_full = full;
	rs->part_last = last;
	rs->chain_sync = c->prm.step_s[proto] * K / P;
	rs->chain_sync_inter = r->inter_sync ? rs->chain_sync : 0;
	rs->chain_floor = c->G > 1 ? ccs_comm_tr(c)->chunk_s / chunk : 0;
	int inter = c->G > 1 ? c->G - 1 : 0;
	r->d_base = ccs_nccl_latency(&c->nccl, CCS_ALGO_RING, proto, n - 1 - inter, inter) +
	            inter * ccs_cost_rdv_of(c, coll, CCS_ALGO_RING, proto, C, bytes);
	return CCS_OK;
}

int ccs_sched_ring(const struct ccs_comm *c, int coll, int proto, int channels, uint64_t bytes, int flags,
                   struct ccs_sched *s, const char **why)
{
	if (coll != CCS_COLL_ALLREDUCE && coll != CCS_COLL_ALLGATHER && coll != CCS_COLL_REDUCESCATTER &&
	    coll != CCS_COLL_BROADCAST && coll != CCS_COLL_REDUCE) {
		*why = "the ring schedule covers AllReduce, AllGather, ReduceScatter, Broadcast and Reduce";
		return CCS_EINPUT;
	}
	int C = channels > 0 ? channels : ccs_nccl_channels(&c->nccl, CCS_ALGO_RING);
	struct ring_sched *rs = ccs_calloc(1, sizeof *rs);
	if (!rs)
		return CCS_ENOMEM;
	rs->c = c;
	int rc = build_ring(c, coll, proto, C, bytes, rs);
	s->ctx = rs;
	s->ops = &rs_ops;
	if (rc) {
		if (rc == CCS_EINPUT)
			*why = "a group has no nic for the ring to leave through";
		rs_release(s);
		return rc;
	}
	if (coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE) {
		if (c->n < 2) {
			*why = "a chain needs two ranks or more";
			rs_release(s);
			return CCS_EINPUT;
		}
		int root = (int)((unsigned)flags >> CCS_SCHED_ROOT_SHIFT);
		if (root >= c->n) {
			*why = "the root is not one of the ranks";
			rs_release(s);
			return CCS_EINPUT;
		}
		rc = build_chain(c, coll, proto, C, bytes, root, rs);
		if (rc) {
			rs_release(s);
			return rc;
		}
		s->nops = (uint64_t)C * (uint64_t)rs->P * (uint64_t)(c->n - 1);
		s->ops = &ch_ops;
		return CCS_OK;
	}
	if (!(flags & CCS_SCHED_STEP)) {
		/* NCCL's ring chunk (its protocol's chunk), at most 16 a step */
		struct ring *r = &rs->r;
		double per = (double)bytes / ((double)c->n * C);
		double chunk = proto == CCS_PROTO_LL ? CCS_NCCL_CHUNK_LL : proto == CCS_PROTO_LL128 ? CCS_NCCL_CHUNK_LL128
		             : CCS_NCCL_SLICE_RING;
		double K = ceil(per / chunk);
		r->K = K < 1 ? 1 : K > 16 ? 16 : (int)K;
		r->sync_chunk /= r->K;
		s->nops = (uint64_t)C * (uint64_t)r->steps * (uint64_t)r->K * (uint64_t)c->n;
		s->ops = &rc_ops;
		return CCS_OK;
	}
	s->nops = (uint64_t)C * (uint64_t)rs->r.steps * (uint64_t)c->n;
	return CCS_OK;
}
