/* model/coll.c: names, busbw factors and nccl-tests shapes (coll.h). */
#include "coll.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ccs_coll_name[CCS_COLL_N] = {
	"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "SendRecv",
};
const char *const ccs_coll_cli[CCS_COLL_N] = {
	"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv",
};
#define ANY ((1u << CCS_COLL_N) - 1)
#define AR (1u << CCS_COLL_ALLREDUCE)
#define COLLNET_ONLY "collnet applies to AllReduce"
#define SHOT_ONLY "oneshot and twoshot apply to AllReduce"

/* One row per algorithm (coll.h).  NCCL's ids: src/include/device.h
 * NCCL_ALGO_TREE 0, RING 1, COLLNET_DIRECT 2, COLLNET_CHAIN 3, NVLS 4,
 * NVLS_TREE 5, PAT 6 (5067397c). */
const struct ccs_algo_desc ccs_algo_desc[CCS_ALGO_N] = {
	[CCS_ALGO_RING] = { "ring", { NULL }, 1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_TREE] = { "tree", { NULL }, 0, AR, "tree applies to AllReduce", CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_NVLS] = { "nvls", { NULL }, 4, ANY, NULL, CCS_ALGO_MEM_SWITCH, 1 },
	[CCS_ALGO_NVLS_TREE] = { "nvls_tree", { "nvlstree", NULL }, 5, ANY, NULL, CCS_ALGO_MEM_SWITCH, 1 },
	[CCS_ALGO_COLLNET_DIRECT] = { "collnet_direct", { "collnet", NULL }, 2, AR, COLLNET_ONLY, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_COLLNET_CHAIN] = { "collnet_chain", { NULL }, 3, AR, COLLNET_ONLY, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_PAT] = { "pat", { NULL }, 6, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_RHD] = { "rhd", { "halvingdoubling", NULL }, -1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_RD] = { "rd", { "recursivedoubling", NULL }, -1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_BRUCK] = { "bruck", { NULL }, -1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_DIRECT] = { "direct", { NULL }, -1, (1u << CCS_COLL_ALLTOALL) | (1u << CCS_COLL_SENDRECV),
	                      "the direct schedule covers AllToAll and SendRecv", CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_PAIRWISE] = { "pairwise", { NULL }, -1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_HIER] = { "hier", { "hierarchical", "twolevel", NULL }, -1, ANY, NULL, CCS_ALGO_MEM_BYTES, 0 },
	[CCS_ALGO_ONESHOT] = { "oneshot", { "one_shot", "1shot", NULL }, -1, AR, SHOT_ONLY, CCS_ALGO_MEM_KERNEL, 0 },
	[CCS_ALGO_TWOSHOT] = { "twoshot", { "two_shot", "2shot", NULL }, -1, AR, SHOT_ONLY, CCS_ALGO_MEM_KERNEL, 0 },
};

int ccs_algo_of_nccl(int id)
{
	for (int a = 0; a < CCS_ALGO_N; a++)
		if (ccs_algo_desc[a].nccl == id)
			return a;
	return -1;
}
const char *const ccs_proto_name[CCS_PROTO_N] = { "LL", "LL128", "Simple" };
const char *const ccs_redop_name[CCS_OP_N] = { "sum", "prod", "max", "min", "avg", "mulsum" };

static const struct ccs_dtype dtypes[] = {
	{ "int8", 1 }, { "uint8", 1 }, { "int32", 4 }, { "uint32", 4 }, { "int64", 8 },
	{ "uint64", 8 }, { "half", 2 }, { "float", 4 }, { "double", 8 }, { "bfloat16", 2 },
	{ "f8e4m3", 1 }, { "f8e5m2", 1 },
};
static const struct { const char *alias; int idx; } dtype_alias[] = {
	{ "char", 0 }, { "int", 2 }, { "float16", 6 }, { "fp16", 6 }, { "float32", 7 }, { "fp32", 7 },
	{ "float64", 8 }, { "fp64", 8 }, { "bf16", 9 }, { "fp8", 10 }, { "e4m3", 10 }, { "fp8e4m3", 10 },
	{ "e5m2", 11 }, { "fp8e5m2", 11 },
};

/* Lowercase s without '_' and '-' into buf. */
static void squash(const char *s, char *buf, size_t n)
{
	size_t j = 0;
	for (; *s && j + 1 < n; s++)
		if (*s != '_' && *s != '-')
			buf[j++] = (char)tolower((unsigned char)*s);
	buf[j] = 0;
}

static int find(const char *s, const char *const *names, int n)
{
	char a[64], b[64];
	squash(s, a, sizeof a);
	for (int i = 0; i < n; i++) {
		squash(names[i], b, sizeof b);
		if (!strcmp(a, b))
			return i;
	}
	return -1;
}

int ccs_coll_parse(const char *s)
{
	int i = find(s, ccs_coll_cli, CCS_COLL_N);
	if (i >= 0)
		return i;
	static const char *const alias[] = { "ar", "ag", "rs", "bcast", "a2a", "p2p", "alltoallv" };
	static const int to[] = { CCS_COLL_ALLREDUCE, CCS_COLL_ALLGATHER, CCS_COLL_REDUCESCATTER,
	                          CCS_COLL_BROADCAST, CCS_COLL_ALLTOALL, CCS_COLL_SENDRECV, -1 };
	i = find(s, alias, 6);
	return i >= 0 ? to[i] : -1;
}

int ccs_algo_parse(const char *s)
{
	for (int a = 0; a < CCS_ALGO_N; a++)
		if (find(s, &ccs_algo_desc[a].name, 1) == 0)
			return a;
	for (int a = 0; a < CCS_ALGO_N; a++)
		for (int k = 0; ccs_algo_desc[a].alias[k]; k++)
			if (find(s, &ccs_algo_desc[a].alias[k], 1) == 0)
				return a;
	return -1;
}

int ccs_proto_parse(const char *s) { return find(s, ccs_proto_name, CCS_PROTO_N); }

int ccs_redop_parse(const char *s)
{
	int i = find(s, ccs_redop_name, CCS_OP_N);
	if (i < 0 && !strcmp(s, "premulsum"))
		i = CCS_OP_MULSUM;
	return i;
}

const struct ccs_dtype *ccs_dtype_parse(const char *s)
{
	char a[64];
	squash(s, a, sizeof a);
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (!strcmp(a, dtypes[i].name))
			return &dtypes[i];
	for (size_t i = 0; i < sizeof dtype_alias / sizeof dtype_alias[0]; i++)
		if (!strcmp(a, dtype_alias[i].alias))
			return &dtypes[dtype_alias[i].idx];
	return NULL;
}

const char *ccs_dtype_list(void)
{
	return "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16 (bf16), "
	       "f8e4m3 (fp8), f8e5m2";
}

int ccs_coll_reduces(int coll)
{
	return coll == CCS_COLL_ALLREDUCE || coll == CCS_COLL_REDUCESCATTER || coll == CCS_COLL_REDUCE;
}

int ccs_coll_rooted(int coll) { return coll == CCS_COLL_BROADCAST || coll == CCS_COLL_REDUCE; }

double ccs_busbw_factor(int coll, int n)
{
	if (n < 1)
		n = 1;
	switch (coll) {
	case CCS_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case CCS_COLL_ALLGATHER:
	case CCS_COLL_REDUCESCATTER:
	case CCS_COLL_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

void ccs_coll_shape(int coll, int n, uint64_t req, int esz, uint64_t *count, uint64_t *bytes)
{
	uint64_t elems = req / (uint64_t)esz;
	if (coll == CCS_COLL_ALLGATHER || coll == CCS_COLL_REDUCESCATTER || coll == CCS_COLL_ALLTOALL) {
		/* per-rank count, aligned down to 16 bytes as nccl-tests does */
		uint64_t align = 16 / (uint64_t)esz ? 16 / (uint64_t)esz : 1;
		uint64_t per = (elems / (uint64_t)n) & ~(align - 1);
		*count = per;
		*bytes = per * (uint64_t)n * (uint64_t)esz;
	} else {
		*count = elems;
		*bytes = elems * (uint64_t)esz;
	}
}

int ccs_parse_nccl_size(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int big = errno == ERANGE;
	if (!*end) {
		*out = v;
		return big || v > CCS_SIZE_MAX ? -2 : 0;
	}
	if (end[1] == 0) {
		uint64_t m = 0;
		switch (*end) {
		case 'K': case 'k': m = 1ull << 10; break;
		case 'M': case 'm': m = 1ull << 20; break;
		case 'G': case 'g': m = 1ull << 30; break;
		case 'T': case 't': m = 1ull << 40; break;
		default: return -1;
		}
		if (big || v > CCS_SIZE_MAX / m)
			return -2;
		*out = v * m;
		return 0;
	}
	char err[128];
	if (ccs_parse_size(s, out, err, sizeof err))
		return strstr(err, "large") || strstr(err, "2^") ? -2 : -1;
	return *out > CCS_SIZE_MAX ? -2 : 0;
}

int ccs_btree_parent(int k, int G)
{
	if (k == 0)
		return -1;
	int b = k & -k;
	int up = (k ^ b) | (b << 1);
	return up < G ? up : k ^ b;
}

int ccs_btree_place(int t, int k, int G)
{
	if (!t)
		return k;
	return G % 2 == 0 ? G - 1 - k : (k + 1) % G;
}

void ccs_btree_degrees(int G, int32_t *deg)
{
	for (int g = 0; g < G; g++)
		deg[g] = 0;
	for (int tr = 0; tr < 2; tr++)
		for (int k = 1; k < G; k++) {
			deg[ccs_btree_place(tr, k, G)] += tr ? 1 << 16 : 1;
			deg[ccs_btree_place(tr, ccs_btree_parent(k, G), G)] += tr ? 1 << 16 : 1;
		}
}

/* NCCL_ALGO / NCCL_PROTO (coll.h) */
long ccs_coll_env_mask(const char *s, int coll, int protos, unsigned all_mask, char *bad, size_t badn)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", s);
	long result = -2;
	char *save1 = NULL;
	for (char *sec = strtok_r(buf, ";", &save1); sec; sec = strtok_r(NULL, ";", &save1)) {
		char *colon = strchr(sec, ':');
		char *list = sec;
		if (colon) {
			*colon = 0;
			int cc = ccs_coll_parse(sec);
			if (cc < 0) {
				snprintf(bad, badn, "%s", sec);
				return -1;
			}
			list = colon + 1;
			if (cc != coll)
				continue;
		} else if (result != -2) {
			continue;   /* a per-collective section already matched */
		}
		int neg = *list == '^';
		if (neg)
			list++;
		unsigned m = 0;
		char *save2 = NULL;
		for (char *it = strtok_r(list, ",", &save2); it; it = strtok_r(NULL, ",", &save2)) {
			while (isspace((unsigned char)*it))
				it++;
			int v = protos ? ccs_proto_parse(it) : ccs_algo_parse(it);
			if (v < 0) {
				snprintf(bad, badn, "%s", it);
				return -1;
			}
			m |= 1u << v;
		}
		result = neg ? (long)(all_mask & ~m) : (long)m;
		if (colon)
			break;
	}
	return result == -2 ? (long)all_mask : result;
}
