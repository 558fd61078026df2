/*
** calibrate/bench_cuda.cu: CUDA microbenchmarks for `ccsim calibrate run`.
**
** Writes a ccsim-bench log (calibrate/ingest.h) on stdout: one record per
** measurement, the time of one operation in seconds (median, min and max of
** `reps` samples, each the mean over `iters` back-to-back operations timed
** with CUDA events, or the host clock where the host waits each time).
**   launch        empty kernel, launch + cudaStreamSynchronize (host clock)
**   launch_async  empty kernels back to back (launch throughput)
**   event         cudaEventRecord + cudaEventSynchronize (host clock)
**   d2d_memcpy    cudaMemcpyAsync device to device, by size
**   d2d_kernel    a 16-byte vector copy kernel, by size
**   h2d, d2h      pinned host <-> device cudaMemcpyAsync, by size (class pcie)
**   p2p_write     kernel on GPU a storing into GPU b's memory, every pair with
**   p2p_read      peer access, by size (class nvlink when the pair has native
**                 peer atomics, the mark of NVLink, else pcie); small sizes
**                 give the latency
**   reduce_fp32   c = a + b over the buffer, by size (class hbm)
**   reduce_bf16
**   ll, ll128,    flag-synchronised copies from GPU 0 into GPU 1 and a
**   simple        consumer kernel on GPU 1 that waits for each line's flag:
**                 LL 8-byte lines (4 data + 4 flag), LL128 128-byte lines
**                 (120 data + 8 flag), Simple chunks followed by a
**                 fence and one flag per chunk; size is the payload
** Without a device it prints "no CUDA device" and exits 1.
*/
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ME "ccsim-bench-cuda"

static char g_host[64] = "unknown";
static char g_ver[96] = "";
static int g_quick = 0;
static size_t g_max = (size_t)1 << 30;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, ME ": %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void record(const char *name, const char *cls, size_t size, int iters, double *v, int n, const char *devices)
{
	std::sort(v, v + n);
	double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	printf("name=%s class=%s size=%zu iters=%d median=%.6e min=%.6e max=%.6e unit=s devices=%s host=%s %s\n", name,
	       cls, size, iters, med, v[0], v[n - 1], devices, g_host, g_ver);
	fflush(stdout);
}

static int reps(void) { return g_quick ? 3 : 7; }

/* iterations for about 2 ms of work at ~100 GB/s, 5 to 1000 */
static int iters_for(size_t size)
{
	size_t it = size ? ((size_t)200 << 20) / size : 1000;
	if (it < 5)
		it = 5;
	if (it > 1000)
		it = 1000;
	return g_quick ? (int)(it / 4 + 2) : (int)it;
}

__global__ void k_empty(void) {}

__global__ void k_copy(int4 *dst, const int4 *src, size_t n16, char *dstb, const char *srcb, size_t tail)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
	for (; i < n16; i += st)
		dst[i] = src[i];
	i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < tail)
		dstb[n16 * 16 + i] = srcb[n16 * 16 + i];
}

__global__ void k_add_f32(float *c, const float *a, const float *b, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
	for (; i < n; i += st)
		c[i] = a[i] + b[i];
}

__global__ void k_add_bf16(__nv_bfloat16 *c, const __nv_bfloat16 *a, const __nv_bfloat16 *b, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
	for (; i < n; i += st)
		c[i] = __hadd(a[i], b[i]);
}

static int g_blocks = 132;

static void launch_copy(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
	size_t n16 = bytes / 16;
	int blocks = (int)std::min<size_t>((size_t)g_blocks * 4, std::max<size_t>(1, (n16 + 511) / 512));
	k_copy<<<blocks, 512, 0, s>>>((int4 *)dst, (const int4 *)src, n16, (char *)dst, (const char *)src, bytes % 16);
}

/* time iters x op on stream s with events, reps samples, per-op seconds */
template <typename F> static void time_events(cudaStream_t s, int iters, double *out, F op)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	op();   /* warm up */
	CK(cudaStreamSynchronize(s));
	for (int r = 0; r < reps(); r++) {
		CK(cudaEventRecord(a, s));
		for (int i = 0; i < iters; i++)
			op();
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		out[r] = (double)ms * 1e-3 / iters;
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
}

static void bench_latency(int dev)
{
	char d[16];
	snprintf(d, sizeof d, "%d", dev);
	CK(cudaSetDevice(dev));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	double v[16];
	int it = g_quick ? 200 : 2000;
	k_empty<<<1, 1, 0, s>>>();
	CK(cudaStreamSynchronize(s));
	for (int r = 0; r < reps(); r++) {
		double t0 = now_s();
		for (int i = 0; i < it; i++) {
			k_empty<<<1, 1, 0, s>>>();
			CK(cudaStreamSynchronize(s));
		}
		v[r] = (now_s() - t0) / it;
	}
	record("launch", "gpu", 0, it, v, reps(), d);
	time_events(s, it, v, [&] { k_empty<<<1, 1, 0, s>>>(); });
	record("launch_async", "gpu", 0, it, v, reps(), d);
	cudaEvent_t e;
	CK(cudaEventCreate(&e));
	for (int r = 0; r < reps(); r++) {
		double t0 = now_s();
		for (int i = 0; i < it; i++) {
			CK(cudaEventRecord(e, s));
			CK(cudaEventSynchronize(e));
		}
		v[r] = (now_s() - t0) / it;
	}
	record("event", "gpu", 0, it, v, reps(), d);
	CK(cudaEventDestroy(e));
	CK(cudaStreamDestroy(s));
}

static void bench_local(int dev)
{
	char d[16];
	snprintf(d, sizeof d, "%d", dev);
	CK(cudaSetDevice(dev));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	size_t max = g_max;
	size_t fr, tot;
	CK(cudaMemGetInfo(&fr, &tot));
	while (max > 4096 && max * 3 + ((size_t)256 << 20) > fr)
		max /= 2;
	char *a, *b, *c, *h;
	CK(cudaMalloc(&a, max));
	CK(cudaMalloc(&b, max));
	CK(cudaMalloc(&c, max));
	CK(cudaMemset(a, 1, max));
	CK(cudaMemset(b, 2, max));
	CK(cudaMallocHost(&h, max));
	memset(h, 3, max);
	double v[16];
	for (size_t n = 4; n <= max; n *= 4) {
		int it = iters_for(n);
		time_events(s, it, v, [&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, s)); });
		record("d2d_memcpy", "hbm", n, it, v, reps(), d);
		time_events(s, it, v, [&] { launch_copy(b, a, n, s); });
		record("d2d_kernel", "hbm", n, it, v, reps(), d);
		time_events(s, it, v, [&] { CK(cudaMemcpyAsync(a, h, n, cudaMemcpyHostToDevice, s)); });
		record("h2d", "pcie", n, it, v, reps(), d);
		time_events(s, it, v, [&] { CK(cudaMemcpyAsync(h, b, n, cudaMemcpyDeviceToHost, s)); });
		record("d2h", "pcie", n, it, v, reps(), d);
		size_t nf = n / 4, nh = n / 2;
		if (nf) {
			int bl = (int)std::min<size_t>((size_t)g_blocks * 4, (nf + 511) / 512);
			time_events(s, it, v, [&] { k_add_f32<<<bl, 512, 0, s>>>((float *)c, (const float *)a, (const float *)b, nf); });
			record("reduce_fp32", "hbm", n, it, v, reps(), d);
		}
		if (nh) {
			int bl = (int)std::min<size_t>((size_t)g_blocks * 4, (nh + 511) / 512);
			time_events(s, it, v, [&] {
				k_add_bf16<<<bl, 512, 0, s>>>((__nv_bfloat16 *)c, (const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, nh);
			});
			record("reduce_bf16", "hbm", n, it, v, reps(), d);
		}
	}
	CK(cudaFreeHost(h));
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	CK(cudaStreamDestroy(s));
}

static void bench_p2p(int i, int j)
{
	int nat = 0;
	cudaDeviceGetP2PAttribute(&nat, cudaDevP2PAttrNativeAtomicSupported, i, j);
	const char *cls = nat ? "nvlink" : "pcie";
	char d[32];
	snprintf(d, sizeof d, "%d-%d", i, j);
	size_t max = std::min(g_max, (size_t)256 << 20);
	char *remote, *local;
	CK(cudaSetDevice(j));
	CK(cudaMalloc(&remote, max));
	CK(cudaSetDevice(i));
	CK(cudaMalloc(&local, max));
	cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
		fprintf(stderr, ME ": peer access %d -> %d: %s; pair skipped\n", i, j, cudaGetErrorString(e));
		cudaGetLastError();
		return;
	}
	cudaGetLastError();
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	double v[16];
	for (size_t n = 4; n <= max; n *= 4) {
		int it = iters_for(n);
		time_events(s, it, v, [&] { launch_copy(remote, local, n, s); });
		record("p2p_write", cls, n, it, v, reps(), d);
		time_events(s, it, v, [&] { launch_copy(local, remote, n, s); });
		record("p2p_read", cls, n, it, v, reps(), d);
	}
	CK(cudaStreamDestroy(s));
	CK(cudaFree(local));
	CK(cudaSetDevice(j));
	CK(cudaFree(remote));
}

/* ---- flag-synchronised copies between GPU 0 (producer) and GPU 1 ---- */

/* LL: each 8-byte line is (data, flag) stored as one 64-bit word */
__global__ void k_ll_send(uint64_t *lines, const uint32_t *src, size_t nlines, uint32_t epoch)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
	for (; i < nlines; i += st) {
		uint64_t w = ((uint64_t)epoch << 32) | src[i];
		asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(lines + i), "l"(w) : "memory");
	}
}

__global__ void k_ll_recv(const uint64_t *lines, uint32_t *dst, size_t nlines, uint32_t epoch)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
	for (; i < nlines; i += st) {
		uint64_t w;
		do
			asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(w) : "l"(lines + i) : "memory");
		while ((uint32_t)(w >> 32) != epoch);
		dst[i] = (uint32_t)w;
	}
}

/* LL128: one warp per 128-byte line of 15 data words and 1 flag word (8 B
 * each): lanes 0-14 store data and fence, lane 15 stores the flag after
 * the warp has synchronised */
__global__ void k_ll128_send(uint64_t *lines, const uint64_t *src, size_t nlines, uint64_t epoch)
{
	size_t lane = threadIdx.x % 32, line = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t st = (size_t)gridDim.x * blockDim.x / 32;
	for (; line < nlines; line += st) {
		if (lane < 15) {
			lines[line * 16 + lane] = src[line * 15 + lane];
			__threadfence_system();
		}
		__syncwarp();
		if (lane == 15)
			asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(lines + line * 16 + 15), "l"(epoch) : "memory");
	}
}

__global__ void k_ll128_recv(const uint64_t *lines, uint64_t *dst, size_t nlines, uint64_t epoch)
{
	size_t lane = threadIdx.x % 32, line = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	size_t st = (size_t)gridDim.x * blockDim.x / 32;
	for (; line < nlines; line += st) {
		uint64_t f;
		do
			asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(f) : "l"(lines + line * 16 + 15) : "memory");
		while (f != epoch);
		if (lane < 15) {
			uint64_t w;
			asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(w) : "l"(lines + line * 16 + lane) : "memory");
			dst[line * 15 + lane] = w;
		}
	}
}

/* Simple: one block per chunk copies it, fences, then raises the chunk's flag */
__global__ void k_simple_send(char *buf, const char *src, size_t chunk, size_t nchunks, volatile uint32_t *flags,
                              uint32_t epoch)
{
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
		const int4 *s = (const int4 *)(src + c * chunk);
		int4 *d = (int4 *)(buf + c * chunk);
		for (size_t i = threadIdx.x; i < chunk / 16; i += blockDim.x)
			d[i] = s[i];
		__syncthreads();
		if (threadIdx.x == 0) {
			__threadfence_system();
			flags[c] = epoch;
		}
	}
}

__global__ void k_simple_recv(const char *buf, char *dst, size_t chunk, size_t nchunks, volatile uint32_t *flags,
                              uint32_t epoch)
{
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
		if (threadIdx.x == 0)
			while (flags[c] != epoch)
				;
		__syncthreads();
		const int4 *s = (const int4 *)(buf + c * chunk);
		int4 *d = (int4 *)(dst + c * chunk);
		for (size_t i = threadIdx.x; i < chunk / 16; i += blockDim.x)
			d[i] = __ldcv(s + i);   /* past L1: the peer wrote it */
	}
}

/* The copy kernels of each protocol between two GPUs, size by size, timed
 * with events.  One idea: one benchmark's sweep and its log lines. */
static void bench_protocols(void)
{
	int nat = 0;
	cudaDeviceGetP2PAttribute(&nat, cudaDevP2PAttrNativeAtomicSupported, 0, 1);
	const char *cls = nat ? "nvlink" : "pcie";
	size_t max = std::min(g_max, (size_t)64 << 20);
	/* the lines live on GPU 1 (the receiver), written by GPU 0 */
	char *lines, *dst, *src, *flags;
	CK(cudaSetDevice(1));
	cudaError_t e = cudaDeviceEnablePeerAccess(0, 0);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
		fprintf(stderr, ME ": no peer access between GPU 0 and 1: LL/LL128/Simple skipped\n");
		cudaGetLastError();
		return;
	}
	CK(cudaMalloc(&lines, max * 2 + 4096));
	CK(cudaMalloc(&dst, max));
	CK(cudaMalloc(&flags, 1 << 20));
	CK(cudaMemset(lines, 0, max * 2 + 4096));
	CK(cudaMemset(flags, 0, 1 << 20));
	cudaStream_t rs, ss;
	CK(cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking));
	CK(cudaSetDevice(0));
	e = cudaDeviceEnablePeerAccess(1, 0);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
		fprintf(stderr, ME ": no peer access between GPU 0 and 1: LL/LL128/Simple skipped\n");
		cudaGetLastError();
		return;
	}
	cudaGetLastError();
	CK(cudaMalloc(&src, max));
	CK(cudaMemset(src, 7, max));
	CK(cudaStreamCreateWithFlags(&ss, cudaStreamNonBlocking));
	uint32_t epoch = 0;
	double v[16];
	/* a line is rewritten by the next epoch only after this epoch's
	 * receiver is done with it */
	cudaEvent_t done;
	CK(cudaSetDevice(1));
	CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
	CK(cudaSetDevice(0));
	const char *names[3] = { "ll", "ll128", "simple" };
	for (int p = 0; p < 3; p++)
		for (size_t n = 1024; n <= max; n *= 4) {
			int it = iters_for(n) / 4 + 2;
			for (int r = -1; r < reps(); r++) {
				double t0 = now_s();
				for (int k = 0; k < it; k++) {
					epoch++;
					if (epoch > 1)
						CK(cudaStreamWaitEvent(ss, done, 0));
					if (p == 0) {
						size_t nl = n / 4;
						int bl = (int)std::min<size_t>(64, (nl + 511) / 512);
						CK(cudaSetDevice(1));
						k_ll_recv<<<bl, 512, 0, rs>>>((const uint64_t *)lines, (uint32_t *)dst, nl, epoch);
						CK(cudaSetDevice(0));
						k_ll_send<<<bl, 512, 0, ss>>>((uint64_t *)lines, (const uint32_t *)src, nl, epoch);
					} else if (p == 1) {
						size_t nl = (n + 119) / 120;
						int bl = (int)std::min<size_t>(64, (nl * 32 + 511) / 512);
						CK(cudaSetDevice(1));
						k_ll128_recv<<<bl, 512, 0, rs>>>((const uint64_t *)lines, (uint64_t *)dst, nl, epoch);
						CK(cudaSetDevice(0));
						k_ll128_send<<<bl, 512, 0, ss>>>((uint64_t *)lines, (const uint64_t *)src, nl, epoch);
					} else {
						size_t chunk = std::min<size_t>(n, (size_t)512 << 10);
						size_t nc = n / chunk;
						int bl = (int)std::min<size_t>(64, nc);
						CK(cudaSetDevice(1));
						k_simple_recv<<<bl, 512, 0, rs>>>(lines, dst, chunk, nc, (volatile uint32_t *)flags, epoch);
						CK(cudaSetDevice(0));
						k_simple_send<<<bl, 512, 0, ss>>>(lines, src, chunk, nc, (volatile uint32_t *)flags, epoch);
					}
					CK(cudaSetDevice(1));
					CK(cudaEventRecord(done, rs));
					CK(cudaSetDevice(0));
				}
				CK(cudaStreamSynchronize(ss));
				CK(cudaSetDevice(1));
				CK(cudaStreamSynchronize(rs));
				CK(cudaSetDevice(0));
				if (r >= 0)
					v[r] = (now_s() - t0) / it;
			}
			record(names[p], cls, n, it, v, reps(), "0-1");
		}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			g_quick = 1;
		} else if (!strcmp(argv[i], "--max-size") && i + 1 < argc) {
			g_max = strtoull(argv[++i], NULL, 10);
			if (g_max < 4096)
				g_max = 4096;
		} else {
			fprintf(stderr, "usage: " ME " [--quick] [--max-size BYTES]\n");
			return 2;
		}
	}
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		fprintf(stderr, ME ": no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
		return 1;
	}
	gethostname(g_host, sizeof g_host - 1);
	int drv = 0, rt = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	snprintf(g_ver, sizeof g_ver, "driver=%d.%d runtime=%d.%d", drv / 1000, drv % 1000 / 10, rt / 1000,
	         rt % 1000 / 10);
	printf("# ccsim-bench 1\n# host: %s\n# driver: %d.%d\n# runtime: %d.%d\n", g_host, drv / 1000, drv % 1000 / 10,
	       rt / 1000, rt % 1000 / 10);
	for (int d = 0; d < n; d++) {
		cudaDeviceProp p;
		CK(cudaGetDeviceProperties(&p, d));
		char bus[32];
		cudaDeviceGetPCIBusId(bus, sizeof bus, d);
		printf("# device %d: %s, sm_%d%d, %.0f GiB, %d SMs, pci %s\n", d, p.name, p.major, p.minor,
		       (double)p.totalGlobalMem / 1073741824.0, p.multiProcessorCount, bus);
		if (d == 0)
			g_blocks = p.multiProcessorCount;
	}
	fflush(stdout);
	for (int d = 0; d < n; d++) {
		bench_latency(d);
		bench_local(d);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int ok = 0;
			if (i != j && cudaDeviceCanAccessPeer(&ok, i, j) == cudaSuccess && ok)
				bench_p2p(i, j);
		}
	if (n >= 2)
		bench_protocols();
	return 0;
}
