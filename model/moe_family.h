/*
** model/moe_family.h: expert-parallel kernel families: which transfers each
** makes, who posts its network sends, and the SMs it is given.
**
** A family is one implementation of dispatch and combine.  Its pattern is
** one of moe.h's transfer sets (direct, scaleup, deepep_normal's forwarding,
** deepep_ll's message per pick).  Two mechanisms set what it costs beyond
** the bytes on the busiest link:
**   SM budget    kernels that move bytes in SM copy loops reach at most
**                  b_copy = min(b_su, (S / 2) r_sm)
**                per direction: S SMs (--sms, or the family's default),
**                half of them sending and half receiving (DeepEP's channel
**                pairs), r_sm the most one SM's copy loop drives: NCCL's
**                per-channel speed cap for the architecture (one channel is
**                one CTA on one SM; src/graph/search.cc speedArrayIntra[0]:
**                Volta and Ampere 40, Hopper 60, Blackwell 90 GB/s).
**   CPU proxy    a family whose network sends a CPU thread posts pays, per
**                message, the transport's per-chunk handling (a post and its
**                completion, model/transport.h) shared by the B messages the
**                proxy posts in one batch, on P proxy threads per GPU:
**                  T_proxy = messages x o_chunk / (B P)
**                and one more transport message latency in L (the GPU's
**                doorbell to the proxy).  GPU-initiated families (IBGDA,
**                NVSHMEM) post their own sends.
** T = L + max(moe.h's terms with b_copy for the copy ports, T_proxy).
*/
#ifndef CCS_MOE_FAMILY_H
#define CCS_MOE_FAMILY_H

/* The families (moe.h's algorithms).  The first four are also the transfer
 * patterns of the others: pplx and uccl_ep send as deepep_ll, hybridep as
 * deepep_normal. */
enum ccs_moe_algo { CCS_MOE_DIRECT, CCS_MOE_SCALEUP, CCS_MOE_NORMAL, CCS_MOE_LL, CCS_MOE_PPLX, CCS_MOE_UCCL_EP,
                    CCS_MOE_HYBRIDEP, CCS_MOE_ALGO_N };

enum ccs_moe_proxy { CCS_MOE_PROXY_NCCL, CCS_MOE_PROXY_GPU, CCS_MOE_PROXY_CPU };

struct ccs_moe_family {
	int pattern;            /* enum ccs_moe_algo: direct, scaleup, deepep_normal or deepep_ll */
	int proxy;              /* enum ccs_moe_proxy */
	int sm_copy;            /* its bytes inside a group go through SM copy loops */
	int sms;                /* default SM budget; 0: the whole GPU (no cap) */
	int proxy_threads;      /* P: CPU proxy threads per GPU (CPU proxy only) */
	int proxy_batch;        /* B: messages a proxy posts at once */
};

/* The family of algorithm a (enum ccs_moe_algo). */
const struct ccs_moe_family *ccs_moe_family_of(int a);

/* r_sm above for architecture arch (enum ccs_arch), B/s. */
double ccs_moe_family_sm_Bps(int arch);

#endif
