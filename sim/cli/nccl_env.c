/* sim/cli/nccl_env.c: NCCL's environment variables that change the hardware
** NCCL uses, applied to a loaded topology as a job's NCCL would read them
** (cli.h, ccs_nccl_env_topo).  Each is a row of the table below: the
** variable and what its value does; a value NCCL would not take is an error
** naming the variable, and a variable ccsim does not model says so on
** stderr instead of being ignored.  NCCL_ALGO, NCCL_PROTO and the channel
** bounds act on the choice, not the hardware: cmd_predict.c reads them. */
#include "cli.h"

#include "../../model/fault.h"
#include "../../model/transport.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* NCCL_COLLNET_ENABLE: 1 lets NCCL choose CollNet and NVLS across nodes */
static int collnet(const char *me, const char *v, struct ccs_topo *t)
{
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "%s: NCCL_COLLNET_ENABLE must be 0 or 1, got '%s'\n", me, v);
		return -1;
	}
	t->params.nccl_collnet = !strcmp(v, "1");
	return 0;
}

static int fault(const char *me, struct ccs_topo *t, const char *spec, const char *var)
{
	char err[256];
	if (ccs_fault_apply(t, spec, err, sizeof err)) {
		fprintf(stderr, "%s: %s: %s\n", me, var, err);
		return -1;
	}
	return 0;
}

/* A variable NCCL reads with strtol (..._DISABLE): its number, or -1
 * after a message saying what 1 means. */
static int number(const char *me, const char *var, const char *v, const char *one, long *x)
{
	char *end;
	*x = strtol(v, &end, 0);
	if (*end || end == v) {
		fprintf(stderr, "%s: %s must be a number (1: %s), got '%s'\n", me, var, one, v);
		return -1;
	}
	return 0;
}

/* NCCL_P2P_DISABLE: 1 turns P2P off between every GPU (src/graph/paths.cc
 * ncclGetLevel: disable 1 is level LOC): host memory inside the node */
static int p2p(const char *me, const char *v, struct ccs_topo *t)
{
	long x;
	if (number(me, "NCCL_P2P_DISABLE", v, "off", &x))
		return -1;
	return x == 1 ? fault(me, t, "p2p:all:off", "NCCL_P2P_DISABLE=1") : 0;
}

/* NCCL_NET_GDR_LEVEL: GPUDirect RDMA only where the GPU's NIC is at most
 * that far (ncclTopoCheckGdr: distance > level turns it off).  NCCL's path
 * names in its order, or its old numbers (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and
 * above SYS); as ccsim's path classes: LOC to C2C below PIX (off for every
 * PCIe NIC), PXN taken as P2C. */
static int gdr_level(const char *me, const char *v, struct ccs_topo *t)
{
	static const struct {
		const char *name;
		int lvl;                /* enum ccs_path, -1 below PIX */
	} names[] = { { "LOC", -1 }, { "NVL", -1 }, { "NVB", -1 }, { "C2C", -1 }, { "PIX", CCS_PATH_PIX },
	              { "PXB", CCS_PATH_PXB }, { "P2C", CCS_PATH_P2C }, { "PXN", CCS_PATH_P2C }, { "PHB", CCS_PATH_PHB },
	              { "SYS", CCS_PATH_SYS } };
	static const int old[] = { -1, CCS_PATH_PIX, CCS_PATH_PXB, CCS_PATH_PHB, CCS_PATH_SYS };
	int lvl = -2;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(v, names[i].name))
			lvl = names[i].lvl;
	if (lvl == -2 && v[0] >= '0' && v[0] <= '9') {
		long x = strtol(v, NULL, 0);
		lvl = old[x > 4 ? 4 : x];
	}
	if (lvl == -2) {
		fprintf(stderr, "%s: NCCL_NET_GDR_LEVEL must be LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or 0-4, got '%s'\n",
		        me, v);
		return -1;
	}
	/* every GPU whose NIC is farther than the level: all at once where
	 * that is every GPU with a NIC */
	uint32_t far = 0, with = 0;
	for (uint32_t g = 0; g < t->ngpu; g++)
		if (t->gpu[g].nic_count) {
			with++;
			far += (int)t->gnic[t->gpu[g].nic_first].path > lvl;
		}
	if (!far)
		return 0;
	if (far == with)
		return fault(me, t, "gdr:all:off", "NCCL_NET_GDR_LEVEL");
	for (uint32_t g = 0; g < t->ngpu; g++) {
		const struct ccs_gpu *gp = &t->gpu[g];
		if (!gp->nic_count || (int)t->gnic[gp->nic_first].path <= lvl)
			continue;
		char spec[200];
		snprintf(spec, sizeof spec, "gdr:%s:off", t->dev[gp->dev].name);
		if (fault(me, t, spec, "NCCL_NET_GDR_LEVEL"))
			return -1;
	}
	return 0;
}

/* NCCL_IB_DISABLE=1, NCCL_NET=Socket: NCCL's socket transport, said on
 * stderr (the table's rows do not show the transport) */
static void to_socket(struct ccs_topo *t, const char *why)
{
	t->params.transport = CCS_TR_SOCKET;
	fprintf(stderr, "ccsim: note: %s: the network is NCCL's socket transport (ccsim params -t TOPO prints its costs)\n",
	        why);
}

static int ib_disable(const char *me, const char *v, struct ccs_topo *t)
{
	long x;
	if (number(me, "NCCL_IB_DISABLE", v, "no InfiniBand or RoCE", &x))
		return -1;
	if (x == 1)
		to_socket(t, "NCCL_IB_DISABLE=1");
	return 0;
}

static int net(const char *me, const char *v, struct ccs_topo *t)
{
	(void)me;
	if (!strcasecmp(v, "Socket"))
		to_socket(t, "NCCL_NET=Socket");
	else if (strcasecmp(v, "IB"))
		fprintf(stderr, "ccsim: warning: NCCL_NET=%s is a network plugin ccsim does not model; the topology's "
		                "transport (%s) stays\n", v, ccs_transport_name[ccs_topo_transport(t, t->params.transport)]);
	return 0;
}

/* NCCL_SHM_DISABLE: not modelled (NCCL then sends what SHM would carry
 * over the network): said, not ignored */
static int shm(const char *me, const char *v, struct ccs_topo *t)
{
	(void)me;
	(void)t;
	if (strcmp(v, "0"))
		fprintf(stderr, "ccsim: warning: NCCL_SHM_DISABLE=%s is not modelled: where P2P is off, ccsim still moves "
		                "the node's traffic through host memory (NCCL's SHM), not the network\n", v);
	return 0;
}

static const struct {
	const char *var;
	int (*apply)(const char *me, const char *v, struct ccs_topo *t);
} vars[] = {
	{ "NCCL_COLLNET_ENABLE", collnet }, { "NCCL_P2P_DISABLE", p2p },  { "NCCL_NET_GDR_LEVEL", gdr_level },
	{ "NCCL_IB_DISABLE", ib_disable },  { "NCCL_NET", net },          { "NCCL_SHM_DISABLE", shm },
};

int ccs_nccl_env_topo(const char *me, struct ccs_topo *t)
{
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].var);
		if (v && *v && vars[i].apply(me, v, t))
			return -1;
	}
	return 0;
}
