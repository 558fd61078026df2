/* model/moe_family.c: the kernel families' table (moe_family.h). */
#include "moe_family.h"

#include "nccl_tables.h"

/*
** Sources, row by row:
**   direct, scaleup  NCCL's AllToAll (ncclSend/ncclRecv): NCCL's own proxy
**           and copy engine, no SM budget of ours.
**   deepep_normal  DeepEP (deepseek-ai/DeepEP, deep_ep/buffer.py): the
**           normal kernels run on Buffer.num_sms = 20 SMs by default, as
**           channel pairs (a sending and a receiving SM); NVSHMEM IBGDA
**           posts RDMA from the GPU.
**   deepep_ll  DeepEP's low-latency kernels: one message per (token,
**           expert), IBGDA; they take the SMs they need (no budget).
**   pplx    perplexityai/pplx-kernels: NVSHMEM puts from the GPU (IBGDA
**           across nodes), into per-expert receive buffers, so a token goes
**           once per (token, expert): deepep_ll's pattern.
**   uccl_ep  UCCL-EP (uccl-project/uccl, ep/): DeepEP's API and its
**           low-latency pattern, with the GPU handing each write to CPU
**           proxies: kNumProxyThs = 4 threads a GPU, posting up to
**           kBatchSize = 32 writes at once (its ep/include/common.hpp and
**           test settings); the transport's per-chunk cost is what one post
**           and completion cost there (EFA's libfabric, model/transport.c).
**   hybridep  NVIDIA's HybridEP (DeepEP's hybrid-ep branch, used by
**           Megatron-LM's flex dispatcher): DeepEP normal's forwarding with
**           TMA copies, Megatron's moe_hybridep_num_sms = 24 by default.
*/
static const struct ccs_moe_family tab[CCS_MOE_ALGO_N] = {
	[CCS_MOE_DIRECT] = { CCS_MOE_DIRECT, CCS_MOE_PROXY_NCCL, 0, 0, 0, 1 },
	[CCS_MOE_SCALEUP] = { CCS_MOE_SCALEUP, CCS_MOE_PROXY_NCCL, 0, 0, 0, 1 },
	[CCS_MOE_NORMAL] = { CCS_MOE_NORMAL, CCS_MOE_PROXY_GPU, 1, 20, 0, 1 },
	[CCS_MOE_LL] = { CCS_MOE_LL, CCS_MOE_PROXY_GPU, 1, 0, 0, 1 },
	[CCS_MOE_PPLX] = { CCS_MOE_LL, CCS_MOE_PROXY_GPU, 1, 0, 0, 1 },
	[CCS_MOE_UCCL_EP] = { CCS_MOE_LL, CCS_MOE_PROXY_CPU, 1, 0, 4, 32 },
	[CCS_MOE_HYBRIDEP] = { CCS_MOE_NORMAL, CCS_MOE_PROXY_GPU, 1, 24, 0, 1 },
};

const struct ccs_moe_family *ccs_moe_family_of(int a)
{
	return &tab[a >= 0 && a < CCS_MOE_ALGO_N ? a : CCS_MOE_DIRECT];
}

double ccs_moe_family_sm_Bps(int arch)
{
	return ccs_nccl_speed_intra(arch)[0] * 1e9;
}
