/*
** calibrate/ntinfo.h: what the NCCL lines around an nccl-tests table say of
** the run: its transports (NCCL INFO and WARN lines: the channels' "via
** NET/IB/0/GDRDMA", "via NET/Socket", "via SHM", "via P2P", GPUDirect RDMA
** enabled or disabled, the rings' "GDR 0/1", the network NCCL names or
** falls back from) and the settings a command line or NCCL's echo states
** (NCCL_ALGO, NCCL_PROTO, NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_GDR_LEVEL,
** NCCL_IB_CUDA_SUPPORT, NCCL_P2P_DISABLE).  Each kept as the line that first
** says it (struct ccs_nt_log, ingest.h), and summed up for a measurement
** set with its file and line: the evidence that diagnose weighs.
*/
#ifndef CCS_NTINFO_H
#define CCS_NTINFO_H

#include "ingest.h"

/* Line number line (text raw, the whole line) into out's ev_* fields and
 * stated settings, where they are still unset. */
void ccs_ntinfo_line(const char *raw, int line, struct ccs_nt_log *out);
/* What l's lines say, for a log named src, appended to set->evidence and
 * set->ev (CCS_EV_*), with the NCCL_ALGO / NCCL_PROTO it states. */
void ccs_ntinfo_evidence(const char *src, const struct ccs_nt_log *l, struct ccs_meas_set *set);

#endif
