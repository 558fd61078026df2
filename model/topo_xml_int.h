/*
** model/topo_xml_int.h: what the two halves of the dump's conversion share
** (topo_xml.c walks the dump, topo_xml_emit.c writes what it found): the
** state of one conversion and its small text helpers.
*/
#ifndef CCS_TOPO_XML_INT_H
#define CCS_TOPO_XML_INT_H

#include "ccs.h"
#include "xml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XML_MAX_GPUS 1024
#define XML_MAX_NODE_DEVICES 4096   /* as the topology loader's node (topo_yaml.c) */

/* ---- output ---- */

struct out {
	struct ccs_text y;          /* the YAML */
	struct ccs_text w;          /* the warnings, "; " between them */
};





struct gpu_rec {
	int dev, sm, sw_links, node;
	int cpu;                    /* the id of its <cpu> */
	double c2c_GBps;            /* NVLink-C2C to that CPU per direction (<c2c bw count>), 0 none */
	const char *busid;
	const char *xgmi_lane;      /* AMD GPUs (RCCL's gcn): an xGMI link's rate; NULL for NVIDIA */
	int nogdr;                  /* <gpu gdr="0">: no GPUDirect RDMA (a GeForce, say) */
};

struct conv {
	const char *name;
	const struct ccs_xml *x;
	struct out *o;
	struct ccs_text devs;        /* the node's devices, written once the form is known */
	struct ccs_diag *d;
	struct gpu_rec gpu[XML_MAX_GPUS];
	int ngpu, nnic, nsw, ib, roce, efa, warned_sm, warned_gcn, warned_h200;
	int width0, width0_line;     /* PCI links stating link_width 0, the first's line */
	const struct ccs_xml_node *cpu[16];   /* the first host's <cpu>s */
	int cpu_id[16], ncpu, cur_cpu;        /* their ids; the one being walked */
	const char *host[64];                 /* the hosts' host_hash, the first's first */
	int hosts;
	int c2c;                              /* GPUs with NVLink-C2C to their CPU (Grace) */
	int coll;                             /* <net coll="1">s: CollNet (SHARP) */
	int nvl_any, gpu_ids;                 /* GPUs with <nvlink>/<xgmi>; GPUs whose <pci> names its device */
	int rdma, rdma_nogdr, gpu_nogdr;      /* RDMA NICs, those saying gdr="0"; GPUs saying it */
	int nbare_gpu, bare_gpu_line, nbare_nic, bare_nic_line;   /* hint files' devices (bare_kind) */
	long bare_nic_speed;
	int vport, vport_line;       /* bridges at 2.5 GT/s x1 above faster devices (emulated ports) */
	int nodup;                   /* <net>s listed again under another CPU, left out */
	int net_node[XML_MAX_NODE_DEVICES];   /* the <net> elements kept, one per NIC */
	struct ccs_text links;       /* the node's links, written after its devices */
	const char *sw_target[64];   /* distinct NVSwitch busids */
	int nswt;
};

/* A dump's text as a plain YAML word in a flow mapping: letters, digits and
 * "_.+-" kept, anything else '_' (a NIC named "mlx5[3" or "mlx5_:" must not
 * open a list or end a key). */
static inline const char *word(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = isalnum((unsigned char)*s) || strchr("_.+-", *s) ? *s : '_';
	if (!k)
		buf[k++] = '_';   /* an empty name is still a word */
	buf[k] = 0;
	return buf;
}
/* A dump's text in a comment: printable ASCII as it is, anything else '?'
 * (YAML refuses control characters and bytes that are not UTF-8). */
static inline const char *remark(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = (unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e ? '?' : *s;
	buf[k] = 0;
	return buf;
}
/* A warning: in the list and as a comment in the YAML. */
static inline void warn(struct out *o, const char *fmt, ...) CCS_PRINTF(2, 3);
static void warn(struct out *o, const char *fmt, ...) CCS_PRINTF(2, 3);
static inline void warn(struct out *o, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = ' ';   /* a comment stays one line, without control characters */
	ccs_text_printf(&o->y, "# warning: %s\n", buf);
	ccs_text_printf(&o->w, "%s%s", o->w.n ? "; " : "", buf);
}
/* Whether attribute k of e is there and says val. */
static inline int attr_is(const struct ccs_xml_node *e, const char *k, const char *val)
{
	const char *s = ccs_xml_attr(e, k);
	return s && !strcmp(s, val);
}

/* Attribute k of e as a whole number in [0, hi] into *out (dflt when
 * absent; absent with dflt < 0 is an error); CCS_EINPUT after a message. */
static inline int num(struct conv *v, const struct ccs_xml_node *e, const char *k, long dflt, long hi, long *out)
{
	const char *s = ccs_xml_attr(e, k);
	*out = 0;
	if (!s) {
		if (dflt < 0)
			return ccs_xml_at(v->d, v->name, e, "needs '%s'", k);
		*out = dflt;
		return CCS_OK;
	}
	char *end;
	long x = strtol(s, &end, 0);
	if (end == s || *end || x < 0 || x > hi)
		return ccs_xml_at(v->d, v->name, e, "'%s' must be a whole number from 0 to %ld, got '%s'", k, hi, s);
	*out = x;
	return CCS_OK;
}

/* Everything after the walk: the summary warnings, the sockets' and
 * NVLinks' links, the node in its form and the sections around it, the
 * dump's GPUDirect as faults (topo_xml_emit.c).  CCS_EINPUT with v->d set,
 * CCS_ENOMEM. */
int ccs_topo_xml_emit(struct conv *v);

#endif
