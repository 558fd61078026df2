/* calibrate/ntinfo.c: the NCCL lines and settings around an nccl-tests
** table, as evidence (ntinfo.h). */
#include "ntinfo.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* What NCCL's INFO lines say of its transports, each rule a field of
 * ccs_nt_log set to the first line that holds a (and b) after " via " (via)
 * or anywhere: the channel lines ("Channel 00/0 : 0[0] -> 8[0] [send] via
 * NET/IB/0/GDRDMA"; aws-ofi-nccl's NET/AWS Libfabric or NET/OFI), NCCL's
 * "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" (aws-ofi-nccl:
 * "disabling GDR"), ncclTopoCheckGdr's "GPU Direct RDMA Enabled for GPU
 * 7000 / HCA 0 (distance 4 <= 5)" (its "Disabled for GPU ... (distance 9 >
 * 5)" is the Disabled rule), "NET/IB : Using [0]mlx5_0:1/RoCE" and
 * "Connected all rings, use ring PXN 0 GDR 0" (NCCL 2.21 and later,
 * src/transport/generic.cc; GDR 1 too). */
#define EVF(f) offsetof(struct ccs_ntinfo, f)
static const struct { size_t at; int via; const char *a, *b; } ev_rules[] = {
	{ EVF(ev_socket), 1, "NET/Socket", NULL }, { EVF(ev_ib), 1, "NET/IB", NULL }, { EVF(ev_ib), 1, "NET/AWS", NULL },
	{ EVF(ev_ib), 1, "NET/OFI", NULL }, { EVF(ev_ib), 1, "NET/Libfabric", NULL }, { EVF(ev_gdr), 1, "NET/", "GDRDMA" },
	{ EVF(ev_netch), 1, "NET/IB", NULL }, { EVF(ev_netch), 1, "NET/AWS", NULL }, { EVF(ev_netch), 1, "NET/OFI", NULL },
	{ EVF(ev_netch), 1, "NET/Libfabric", NULL },
	{ EVF(ev_shm), 1, "SHM", NULL }, { EVF(ev_p2p), 1, "P2P", NULL }, { EVF(ev_nogdr), 0, "GPU Direct RDMA Disabled", NULL },
	{ EVF(ev_nogdr), 0, "disabling GDR", NULL }, { EVF(ev_ib), 0, "NET/IB : Using", NULL },
	{ EVF(ev_gdr), 0, "GPU Direct RDMA Enabled for GPU", NULL }, { EVF(ev_ring_gdr0), 0, "use ring PXN", " GDR 0" },
	{ EVF(ev_ring_gdr1), 0, "use ring PXN", " GDR 1" },
	/* NCCL 2.19 and later name the network once ("Using network Socket",
	 * "Using network IB" or IBext); no RDMA device makes NCCL fall back to
	 * sockets ("NET/IB : No device found", "Failed to open libibverbs") */
	{ EVF(ev_socket), 0, "Using network Socket", NULL }, { EVF(ev_ib), 0, "Using network IB", NULL },
	{ EVF(ev_socket), 0, "NET/IB : No device found", NULL }, { EVF(ev_socket), 0, "Failed to open libibverbs", NULL },
};

/* NAME's value where raw states it (NCCL's "NCCL INFO NAME set by
 * environment to V", a command line's NAME=V or -x NAME=V), into out
 * with its line, where out is still empty. */
static void env_value(const char *raw, int line, const char *name, char *out, size_t outn, int *at)
{
	if (out[0])
		return;
	size_t nl = strlen(name);
	for (const char *p = strstr(raw, name); p; p = strstr(p + 1, name)) {
		if (p != raw && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *v = NULL;
		if (p[nl] == '=')
			v = p + nl + 1;
		else if (!strncmp(p + nl, " set by environment to ", 23))
			v = p + nl + 23;
		if (!v)
			continue;
		if (*v == '"' || *v == '\'')
			v++;
		size_t n = 0;
		while (v[n] && !isspace((unsigned char)v[n]) && v[n] != '"' && v[n] != '\'' && n + 1 < outn)
			n++;
		if (!n)
			continue;
		memcpy(out, v, n);
		out[n] = 0;
		*at = line;
		return;
	}
}

/* What an NCCL setting, as the log states it (NAME=value on a command line,
 * or "NAME set by environment to value"), says of the transports: sockets
 * (NCCL_IB_DISABLE=1, NCCL_NET=Socket), GPUDirect RDMA off
 * (NCCL_NET_GDR_LEVEL=LOC or 0, NCCL_IB_CUDA_SUPPORT=0), P2P off and so
 * host memory inside the node (NCCL_P2P_DISABLE=1); vals: the values that
 * say so, space separated, any case. */
static const struct { const char *name, *vals; size_t at; } env_rules[] = {
	{ "NCCL_IB_DISABLE", "1", EVF(ev_socket) },        { "NCCL_NET", "Socket", EVF(ev_socket) },
	{ "NCCL_NET_GDR_LEVEL", "0 LOC", EVF(ev_nogdr) },  { "NCCL_IB_CUDA_SUPPORT", "0", EVF(ev_nogdr) },
	{ "NCCL_P2P_DISABLE", "1", EVF(ev_shm) },
};

#undef EVF

static void env_evidence(const char *raw, int line, struct ccs_ntinfo *out)
{
	for (size_t i = 0; i < sizeof env_rules / sizeof env_rules[0]; i++) {
		int *f = (int *)(void *)((char *)out + env_rules[i].at);
		char v[32] = "";
		int at = 0;
		if (*f)
			continue;
		env_value(raw, line, env_rules[i].name, v, sizeof v, &at);
		size_t n = strlen(v);
		for (const char *w = env_rules[i].vals; n && *w; w += strcspn(w, " "), w += *w == ' ')
			if (strcspn(w, " ") == n && !strncasecmp(w, v, n))
				*f = line;
	}
}

/* Any line: a command naming a test (its first, for cmd), the test's own
 * failure line (its first). */
void ccs_ntinfo_line(const char *raw, int line, struct ccs_ntinfo *out)
{
	/* which transport each line shows (the first of each kept) */
	const char *via = strstr(raw, " via ");
	for (size_t i = 0; i < sizeof ev_rules / sizeof ev_rules[0]; i++) {
		const char *h = ev_rules[i].via ? via : raw;
		int *f = (int *)(void *)((char *)out + ev_rules[i].at);
		if (h && !*f && strstr(h, ev_rules[i].a) && (!ev_rules[i].b || strstr(h, ev_rules[i].b)))
			*f = line;
	}
	env_evidence(raw, line, out);
	env_value(raw, line, "NCCL_ALGO", out->env_algo, sizeof out->env_algo, &out->env_algo_line);
	env_value(raw, line, "NCCL_PROTO", out->env_proto, sizeof out->env_proto, &out->env_proto_line);
}

void ccs_ntinfo_evidence(const char *src, const struct ccs_ntinfo *l, struct ccs_ntinfo_sum *set)
{
	char e[400] = "";
	size_t n = 0;
#define EV(...) do { if (n < sizeof e) n += (size_t)snprintf(e + n, sizeof e - n, __VA_ARGS__); } while (0)
	if (l->ev_socket)
		EV("%sNCCL's network is sockets (%s:%d)", n ? "; " : "", src, l->ev_socket);
	/* sockets clear the rings' GDR too: then GDR 0 says nothing more */
	int ring0 = l->ev_ring_gdr0 && !l->ev_gdr && !l->ev_socket;
	int ring1 = l->ev_ring_gdr1 && !l->ev_gdr && !l->ev_nogdr && !ring0;
	if (l->ev_nogdr && !l->ev_gdr)
		EV("%sGPUDirect RDMA off (NCCL or its settings say so, %s:%d)", n ? "; " : "", src, l->ev_nogdr);
	else if (ring0)
		EV("%sGPUDirect RDMA off (NCCL's rings say GDR 0, %s:%d)", n ? "; " : "", src, l->ev_ring_gdr0);
	else if (l->ev_netch && !l->ev_gdr && !ring1)
		EV("%sGPUDirect RDMA off (NET/IB without GDRDMA, %s:%d)", n ? "; " : "", src, l->ev_netch);
	if (l->ev_ib && !l->ev_netch && !l->ev_socket)
		EV("%sNCCL's network is RDMA (%s:%d)", n ? "; " : "", src, l->ev_ib);
	if (l->ev_gdr)
		EV("%sGPUDirect RDMA on (GDRDMA, %s:%d)", n ? "; " : "", src, l->ev_gdr);
	else if (ring1)
		EV("%sGPUDirect RDMA on wherever the rings cross the network (GDR 1, %s:%d)", n ? "; " : "", src,
		   l->ev_ring_gdr1);
	if (l->ev_shm && !l->ev_p2p)
		EV("%sGPUs exchange through host memory (SHM and no P2P, %s:%d)", n ? "; " : "", src, l->ev_shm);
	if (l->env_algo[0])
		EV("%sNCCL_ALGO=%s (%s:%d)", n ? "; " : "", l->env_algo, src, l->env_algo_line);
	if (l->env_proto[0])
		EV("%sNCCL_PROTO=%s (%s:%d)", n ? "; " : "", l->env_proto, src, l->env_proto_line);
#undef EV
	if (l->env_algo[0] && !set->nccl_algo[0])
		snprintf(set->nccl_algo, sizeof set->nccl_algo, "%s", l->env_algo);
	if (l->env_proto[0] && !set->nccl_proto[0])
		snprintf(set->nccl_proto, sizeof set->nccl_proto, "%s", l->env_proto);
	set->ev |= (l->ev_socket ? CCS_EV_SOCKET : 0) | (l->ev_ib ? CCS_EV_RDMA : 0) |
	           (((l->ev_netch && !ring1) || l->ev_nogdr || ring0) && !l->ev_gdr ? CCS_EV_NO_GDR : 0) |
	           (l->ev_gdr || ring1 ? CCS_EV_GDR : 0) |
	           (l->ev_shm && !l->ev_p2p ? CCS_EV_SHM : 0) | (l->ev_p2p ? CCS_EV_P2P : 0);
	size_t m = strlen(set->evidence);
	if (e[0] && m + 3 < sizeof set->evidence)
		snprintf(set->evidence + m, sizeof set->evidence - m, "%s%s", m ? "; " : "", e);
}
