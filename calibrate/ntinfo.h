/*
** calibrate/ntinfo.h: what the NCCL lines around an nccl-tests table say of
** the run: its transports (NCCL INFO and WARN lines: the channels' "via
** NET/IB/0/GDRDMA", "via NET/Socket", "via SHM", "via P2P", GPUDirect RDMA
** enabled or disabled, the rings' "GDR 0/1", the network NCCL names or
** falls back from) and the settings a command line or NCCL's echo states
** (NCCL_ALGO, NCCL_PROTO, NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_GDR_LEVEL,
** NCCL_IB_CUDA_SUPPORT, NCCL_P2P_DISABLE).  Each kept as the line that first
** says it (struct ccs_ntinfo, one per log), and summed up over a set of logs
** with its file and line (struct ccs_ntinfo_sum): the evidence that
** diagnose weighs (calibrate/diagnose.h).
*/
#ifndef CCS_NTINFO_H
#define CCS_NTINFO_H

/* What one log's NCCL lines say of its transports: the first line of each
 * (0: not seen): "via NET/Socket", "via NET/IB" (or RoCE), "GDRDMA" after
 * NET, "via SHM", "via P2P"; "GPU Direct RDMA Disabled"; NCCL's "Connected
 * all rings, use ring PXN p GDR g" with g 0 and 1 (g starts at 1 and each
 * network connection of a ring without GPUDirect RDMA clears it: 1 on one
 * node says nothing of the network) */
struct ccs_ntinfo {
	int ev_socket, ev_ib, ev_gdr, ev_shm, ev_p2p, ev_nogdr, ev_ring_gdr0, ev_ring_gdr1;
	int ev_netch;               /* a channel line over an RDMA network ("via NET/IB/0"): only
	                             * then does a missing GDRDMA say GPUDirect is off */
	/* NCCL_ALGO / NCCL_PROTO as the log states them ("NCCL INFO NCCL_ALGO
	 * set by environment to Ring", or NCCL_ALGO=Ring on a command line):
	 * the first value and its line, "" and 0 when the log does not say */
	char env_algo[96], env_proto[96];
	int env_algo_line, env_proto_line;
};

/* What NCCL's lines showed over a set of logs: its network over sockets
 * or over RDMA (NET/IB, RoCE), RDMA with and without GPUDirect, GPUs of a
 * node through host memory (SHM, no P2P) or over P2P. */
enum { CCS_EV_SOCKET = 1, CCS_EV_RDMA = 2, CCS_EV_NO_GDR = 4, CCS_EV_GDR = 8, CCS_EV_SHM = 16, CCS_EV_P2P = 32 };

struct ccs_ntinfo_sum {
	char evidence[512];         /* what the logs' NCCL INFO lines say of the transports, "" nothing */
	unsigned ev;                /* CCS_EV_ flags, over every log */
	char nccl_algo[96], nccl_proto[96];     /* NCCL_ALGO / NCCL_PROTO a log states (its first), "" none */
};

/* Line number line (text raw, the whole line) into out's ev_* fields and
 * stated settings, where they are still unset. */
void ccs_ntinfo_line(const char *raw, int line, struct ccs_ntinfo *out);
/* What l's lines say, for a log named src, appended to sum's evidence and
 * ev (CCS_EV_*), with the NCCL_ALGO / NCCL_PROTO it states. */
void ccs_ntinfo_evidence(const char *src, const struct ccs_ntinfo *l, struct ccs_ntinfo_sum *sum);

#endif
