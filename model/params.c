/* model/params.c: the parameter table (params.h). */
#include "params.h"

#include <stdio.h>

#include <math.h>
#include <string.h>

static const struct ccs_param table[] = {
	/* NVLink: what NCCL's SM-driven kernels get of the line rate, by generation */
	{ "efficiency.nvlink.volta", "NVLink 2 (V100)", 0.80, "", "code",
	  "NVIDIA/nccl src/graph/topo.h SM70_NVLINK_BW 20.0 GB/s per 25 GB/s link (5067397c); no public V100 ubench found" },
	{ "efficiency.nvlink.ampere", "NVLink 3 (A100)", 0.77, "", "maint",
	  "S. Jeaugey, NVIDIA/nccl-tests issue 149 (2023-07-05): SM-driven traffic reaches about 230 GB/s of an A100's 12 x 25 GB/s (128-byte payloads)" },
	{ "efficiency.nvlink.hopper", "NVLink 4 (H100, H200, H800)", 0.84, "", "ubench",
	  "p2pBandwidthLatencyTest 371-377 of 450 GB/s per H100 pair through NVSwitch, NVIDIA/nccl issue 1264 (2024-04-24)" },
	{ "efficiency.nvlink.blackwell", "NVLink 5 (B200, GB200)", 0.80, "", "stand-in",
	  "no public NVLink 5 ubench found; NCCL's own figure: src/graph/topo.h SM100_NVLINK_BW 40.1 GB/s per 50 GB/s link (5067397c)" },
	{ "efficiency.ub", "Huawei UB links", 0.84, "", "stand-in", "no public UB efficiency found: NVLink 4's" },
	{ "efficiency.hccs", "Huawei HCCS links", 0.84, "", "stand-in", "no public HCCS efficiency found: NVLink 4's" },
	{ "efficiency.xgmi", "AMD xGMI (Infinity Fabric) GPU links", 0.75, "", "spec",
	  "AMD ROCm blog, Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X (2025-03-02): 48 of 64 GB/s per link usable after CRC and protocol overhead" },
	{ "efficiency.pcie", "PCIe DMA (Gen3-6)", 0.825, "", "derived",
	  "TLP model, pcie-bench/pcie-model model/pcie.py (Neugebauer et al., SIGCOMM 2018): MPS 256, 24 B framing+header per TLP, ACK/FC DLLPs and SKIPs as both directions carry (a ring sends and receives): 52.0 of Gen5 x16's 63.0 GB/s after 128b/130b, the same share at Gen3 and Gen4 (the link's rate already has the coding); Gen6 FLIT mode: no public figure, the same share (stand-in)" },
	{ "efficiency.c2c", "NVLink-C2C (Grace)", 0.825, "", "stand-in", "no public C2C DMA figure found: PCIe's derived share" },
	{ "efficiency.smp", "inter-socket links (UPI, xGMI to the host)", 0.70, "", "stand-in",
	  "no public figure found for GPU traffic staged across sockets; an assumption" },
	{ "efficiency.ib", "InfiniBand NIC ports", 0.92, "", "stand-in",
	  "perftest ib_write_bw reaches about 98% of line rate; NCCL's proxy about 92% (no component-level source for the 92% found)" },
	{ "efficiency.roce", "RoCE NIC ports", 0.92, "", "stand-in", "as InfiniBand" },
	{ "efficiency.ethernet", "Ethernet (TCP) NIC ports", 0.92, "", "stand-in", "as InfiniBand" },
	/* PCIe lanes: what one lane carries after its line coding, by generation */
	{ "pcie.lane.gen1", "PCIe 1.x lane", 0.25, "GB/s", "spec", "PCI-SIG PCIe Base 1.0: 2.5 GT/s, 8b/10b" },
	{ "pcie.lane.gen2", "PCIe 2.x lane", 0.5, "GB/s", "spec", "PCI-SIG PCIe Base 2.0: 5 GT/s, 8b/10b" },
	{ "pcie.lane.gen3", "PCIe 3.x lane", 8.0 * 128 / 130 / 8, "GB/s", "spec", "PCI-SIG PCIe Base 3.0: 8 GT/s, 128b/130b" },
	{ "pcie.lane.gen4", "PCIe 4.0 lane", 16.0 * 128 / 130 / 8, "GB/s", "spec", "PCI-SIG PCIe Base 4.0: 16 GT/s, 128b/130b" },
	{ "pcie.lane.gen5", "PCIe 5.0 lane", 32.0 * 128 / 130 / 8, "GB/s", "spec", "PCI-SIG PCIe Base 5.0: 32 GT/s, 128b/130b" },
	{ "pcie.lane.gen6", "PCIe 6.0 lane", 64.0 * 242 / 256 / 8, "GB/s", "spec",
	  "PCI-SIG PCIe Base 6.0: 64 GT/s PAM4, FLIT mode: 242 of a 256-byte FLIT's bytes are payload" },
	/* GPU memory traffic of the kernels' own work */
	{ "memory.copy_traffic", "a kernel's copy: memory bytes per byte moved", 2.0, "B/B", "derived",
	  "a copy reads each byte once and writes it once" },
	{ "memory.reduce_traffic", "a kernel's two-operand reduction: memory bytes per byte moved", 2.5, "B/B", "stand-in",
	  "reads two operands and writes one (3), of which the received operand is often still in L2 when it is reduced; about half of it counted (an assumption, no public figure)" },
	/* pipeline steps, by protocol */
	{ "step_overhead.LL", "one LL pipeline step", 0.2, "us", "stand-in",
	  "flags travel in the data: about a fifth of an NVLink round trip; an assumption" },
	{ "step_overhead.LL128", "one LL128 pipeline step", 0.5, "us", "stand-in", "flags in the data, 128-byte lines; an assumption" },
	{ "step_overhead.Simple", "one Simple pipeline step", 1.5, "us", "stand-in",
	  "a flag wait and a memory fence per step, about one NVLink round trip; an assumption" },
	/* network transports beyond verbs (model/transport.h): one message's software latency, each
	 * chunk's proxy cost, the share of the port's rate, and the latency the plugin tells NCCL;
	 * InfiniBand and RoCE add nothing (NCCL's hwLatencies[NET] are measured over verbs) */
	{ "transport.efa.msg_latency", "EFA (SRD, aws-ofi-nccl RDMA write) one-way message", 15, "us", "stand-in",
	  "no component figure stored; public MPI ping-pong on EFA is near 15 us one way (1-2 us on ConnectX InfiniBand)" },
	{ "transport.efa.chunk_cost", "EFA per chunk on the proxy thread", 4, "us", "stand-in",
	  "an estimate: about two libfabric operations of 1.5-2 us each (the plugin sends the receiver's address before each write)" },
	{ "transport.efa.nccl_latency", "EFA latency the plugin reports to NCCL", 75, "us", "code",
	  "aws/aws-ofi-nccl src/platform-aws.cpp platform_data_map 'latency' of p4d, p4de, p5 and p5e" },
	{ "transport.efa.rdv_trips", "EFA (aws-ofi-nccl RDMA protocol) rendezvous trips on the latency chain", 0, "", "derived",
	  "the plugin writes into a buffer the receiver announced in a control message, and NCCL's proxy posts receives up to NCCL_STEPS (8) ahead (NVIDIA/nccl src/transport/net.cc recvProxyProgress, 5067397c; aws/aws-ofi-nccl src/nccl_ofi_rdma.cpp): the announcement arrives before the data, no trip on the chain" },
	{ "transport.efa_sendrecv.eager_max", "EFA v1 largest message sent eagerly from GPU memory", 8192, "B", "stand-in",
	  "ofiwg/libfabric prov/efa/src/efa_hmem.c (37f360a6): for FI_HMEM_CUDA min_read_msg_size is one packet's payload + 1 (the device's max_msg_size, its MTU, less the largest header) and the medium protocol is off; the payload taken as 8 KiB (jumbo frames of about 9 KB; the header size not stored). The runting read, which libfabric uses on GPU memory only with gdrcopy, sends up to FI_EFA_RUNT_SIZE (EFA_DEFAULT_RUNT_SIZE, 307200 B per peer, under prov/efa) in its request packets first: set eager_max to it for such an installation" },
	{ "transport.efa_sendrecv.rdv_trips", "EFA v1 read-based rendezvous: one-way trips beyond an eager message", 2, "", "derived",
	  "ofiwg/libfabric prov/efa/docs/efa_rdm_protocol_v4.md, the long-read protocol: the request packet reaches the receiver, which reads the message from the sender (a read request out, the data back): its last byte lands two one-way trips after an eager message's would" },
	{ "transport.efa_sendrecv.msg_latency", "EFA v1 (send/recv protocol) one-way message", 15, "us", "stand-in",
	  "as EFA's: the same libfabric EFA provider and wire (no separate figure)" },
	{ "transport.efa_sendrecv.chunk_cost", "EFA v1 per chunk", 6, "us", "stand-in",
	  "EFA's 4 us and one more software tag match per chunk (an estimate)" },
	{ "transport.efa_sendrecv.nccl_latency", "EFA v1 latency the plugin reports to NCCL", 75, "us", "code",
	  "aws/aws-ofi-nccl src/platform-aws.cpp platform_data_map 'latency' of p4d and p4de" },
	{ "transport.tcpx.msg_latency", "GPUDirect-TCPX/TCPXO one-way message", 22, "us", "stand-in",
	  "kernel TCP on 100-200 GbE: netperf TCP_RR round trips of 40-50 us (no stored component figure)" },
	{ "transport.tcpx.chunk_cost", "TCPX per chunk (flow steering, receive unpack)", 10, "us", "stand-in",
	  "an estimate: about one kernel round trip of the socket per chunk" },
	{ "transport.tcpx.efficiency", "TCPX share of the port's rate", 0.85, "", "stand-in",
	  "an estimate: TCP/IP headers and the receive-side unpack" },
	{ "transport.socket.msg_latency", "NCCL's socket transport one-way message", 25, "us", "stand-in",
	  "kernel TCP as TCPX's plus the host staging (an estimate)" },
	{ "transport.socket.chunk_cost", "socket transport per chunk", 15, "us", "stand-in",
	  "an estimate: the staging copy's synchronisation and the socket threads' hand-off (NVIDIA/nccl src/transport/net_socket.cc)" },
	{ "transport.socket.efficiency", "socket transport share of the port's rate", 0.40, "", "stand-in",
	  "an estimate: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD kernel TCP streams on a 100-400 GbE port" },
	/* kernels outside NCCL */
	{ "ep_overhead", "an expert-parallel kernel (DeepEP dispatch or combine)", 23, "us", "fitted",
	  "median of what DeepEP's low-latency time rows (H800, 128 tokens, EP8-EP256) of published.csv measure beyond the model without it; 21-23 us with each EP size left out" },
	{ "oneshot_overhead", "a one-shot AllReduce kernel (vLLM, TensorRT-LLM)", 5, "us", "fitted",
	  "vLLM PRs 24111 and 24532 tables (H100, 4 and 6 GPUs, 0.5-4 MiB): time above the NVLink bytes" },
	{ "twoshot_overhead", "a two-shot AllReduce kernel", 12, "us", "fitted", "the same vLLM tables" },
	{ "twoshot_efficiency", "two-shot kernels' share of the one-shot rate", 0.65, "", "fitted",
	  "the same vLLM tables: 221-277 vs 322-393 GB/s on H100; torch's two-shot at 8 GPUs likewise (vLLM PR 42324)" },
};

const struct ccs_param *ccs_params_table(size_t *n)
{
	*n = sizeof table / sizeof table[0];
	return table;
}

double ccs_param(const char *key)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].key, key))
			return table[i].value;
	return NAN;
}

double ccs_params_nvlink_eff(const char *arch, const char **key)
{
	static char k[64];
	snprintf(k, sizeof k, "efficiency.nvlink.%s", arch);
	double v = ccs_param(k);
	if (isnan(v))
		snprintf(k, sizeof k, "efficiency.nvlink.hopper");
	if (key)
		*key = k;
	return ccs_param(k);
}
