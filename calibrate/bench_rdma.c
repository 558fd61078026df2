/*
** calibrate/bench_rdma.c: RDMA (libibverbs) microbenchmarks for `ccsim
** calibrate run`.
**
** RC queue pairs; one record per verb, size and kind in the ccsim-bench log
** format (calibrate/ingest.h), times per operation in seconds:
**   rdma_write_lat, rdma_read_lat   post -> completion of one signalled
**                                   operation (a round trip: the request and
**                                   its acknowledgement or data)
**   rdma_send_lat                   post -> completion: in loopback the
**                                   receiver's, across hosts the sender's
**                                   (the acknowledgement: a round trip)
**   rdma_write_bw, rdma_read_bw,    a window of 64 operations kept in flight;
**   rdma_send_bw                    time / operations
** Class ib or roce from the port's link layer.  Modes:
**   (default)         loopback: two QPs on one device, on one port or on
**                     --port and --peer-port, connected to each other (the
**                     traffic goes through the NIC)
**   --server          wait on TCP port 18515 for a client; passive target
**   --client HOST     the active side across hosts
** --gpu N (when built with CUDA) registers GPU memory (GPUDirect RDMA); the
** records are then named rdma_*_gdr.  Without an RDMA device it prints "no
** RDMA device" and exits 1.
*/
#define _DEFAULT_SOURCE
#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef CCS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define ME "ccsim-bench-rdma"
#define PORT_TCP 18515
#define WINDOW 64
#define REPS 5
#define MAX_MSG ((size_t)8 << 20)

static char g_host[64] = "unknown", g_ver[128] = "", g_dev[48] = "";
static const char *g_cls = "ib";
static int g_quick, g_gpu = -1;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void record(const char *name, size_t size, int iters, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, dcmp);
	double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	char nm[40];
	snprintf(nm, sizeof nm, "%s%s", name, g_gpu >= 0 ? "_gdr" : "");
	printf("name=%s class=%s size=%zu iters=%d median=%.6e min=%.6e max=%.6e unit=s devices=%s host=%s %s\n", nm,
	       g_cls, size, iters, med, v[0], v[n - 1], g_dev, g_host, g_ver);
	fflush(stdout);
}

static void die(const char *what, int err)
{
	fprintf(stderr, ME ": %s: %s\n", what, strerror(err ? err : errno));
	exit(2);
}

struct ends {
	uint32_t qpn, psn, rkey;
	uint16_t lid;
	uint8_t gid[16];
	uint64_t addr;
};

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	int port_num;               /* the port this QP uses */
	struct ibv_port_attr port;
	union ibv_gid gid;
};

struct ctx {
	struct ibv_context *vc;
	struct ibv_pd *pd;
	int gid_index;
	size_t buflen;
};

static void *alloc_buf(size_t n)
{
#ifdef CCS_HAVE_CUDA
	if (g_gpu >= 0) {
		void *p = NULL;
		if (cudaSetDevice(g_gpu) != cudaSuccess || cudaMalloc(&p, n) != cudaSuccess) {
			fprintf(stderr, ME ": cannot allocate %zu bytes on GPU %d\n", n, g_gpu);
			exit(2);
		}
		return p;
	}
#endif
	void *p = NULL;
	if (posix_memalign(&p, 4096, n))
		die("out of memory", ENOMEM);
	memset(p, 0, n);
	return p;
}

static void side_init(struct ctx *c, struct side *s, int port)
{
	s->port_num = port;
	if (ibv_query_port(c->vc, (uint8_t)port, &s->port))
		die("ibv_query_port", 0);
	if (s->port.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, ME ": port %d is not active\n", port);
		exit(1);
	}
	if (ibv_query_gid(c->vc, (uint8_t)port, c->gid_index, &s->gid))
		die("ibv_query_gid", 0);
	s->cq = ibv_create_cq(c->vc, 4 * WINDOW, NULL, NULL, 0);
	if (!s->cq)
		die("ibv_create_cq", 0);
	s->buf = alloc_buf(c->buflen);
	s->mr = ibv_reg_mr(c->pd, s->buf, c->buflen,
	                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr) {
		if (g_gpu >= 0)
			fprintf(stderr, ME ": GPU memory registration (GPUDirect RDMA) failed: %s (is nvidia-peermem loaded?)\n",
			        strerror(errno));
		else
			fprintf(stderr, ME ": ibv_reg_mr: %s\n", strerror(errno));
		exit(2);
	}
	struct ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof qa);
	qa.send_cq = qa.recv_cq = s->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 2 * WINDOW;
	qa.cap.max_recv_wr = 2 * WINDOW;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(c->pd, &qa);
	if (!s->qp)
		die("ibv_create_qp", 0);
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = (uint8_t)s->port_num;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp INIT", 0);
}

static struct ends my_ends(const struct side *s)
{
	struct ends e;
	memset(&e, 0, sizeof e);
	e.qpn = s->qp->qp_num;
	e.psn = (uint32_t)(lrand48() & 0xffffff);
	e.rkey = s->mr->rkey;
	e.lid = s->port.lid;
	memcpy(e.gid, &s->gid, 16);
	e.addr = (uint64_t)(uintptr_t)s->buf;
	return e;
}

static void connect_qp(struct ctx *c, struct side *s, const struct ends *me, const struct ends *peer)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->port.active_mtu;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = peer->lid;
	a.ah_attr.port_num = (uint8_t)s->port_num;
	if (s->port.link_layer == IBV_LINK_LAYER_ETHERNET || c->gid_index > 0) {
		a.ah_attr.is_global = 1;
		memcpy(&a.ah_attr.grh.dgid, peer->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)c->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	                                 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("ibv_modify_qp RTR", 0);
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me->psn;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
	                                 IBV_QP_MAX_QP_RD_ATOMIC))
		die("ibv_modify_qp RTS", 0);
}

static void post(struct side *s, int op, size_t n, uint64_t raddr, uint32_t rkey, int signalled)
{
	struct ibv_sge sg = { (uint64_t)(uintptr_t)s->buf, (uint32_t)n, s->mr->lkey };
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof wr);
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = signalled ? IBV_SEND_SIGNALED : 0;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	int e = ibv_post_send(s->qp, &wr, &bad);
	if (e)
		die("ibv_post_send", e);
}

static void post_recv(struct side *s, size_t n)
{
	struct ibv_sge sg = { (uint64_t)(uintptr_t)s->buf, (uint32_t)n, s->mr->lkey };
	struct ibv_recv_wr wr, *bad;
	memset(&wr, 0, sizeof wr);
	wr.sg_list = &sg;
	wr.num_sge = 1;
	int e = ibv_post_recv(s->qp, &wr, &bad);
	if (e)
		die("ibv_post_recv", e);
}

/* wait for k completions on cq */
static void wait_cq(struct ibv_cq *cq, int k)
{
	struct ibv_wc wc[16];
	while (k > 0) {
		int n = ibv_poll_cq(cq, k < 16 ? k : 16, wc);
		if (n < 0)
			die("ibv_poll_cq", 0);
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, ME ": work completion failed: %s\n", ibv_wc_status_str(wc[i].status));
				exit(2);
			}
		k -= n;
	}
}

static int iters_for(size_t n)
{
	size_t it = n ? ((size_t)64 << 20) / n : 1000;
	it = it < 20 ? 20 : it > 2000 ? 2000 : it;
	return g_quick ? (int)(it / 10 + 5) : (int)it;
}

/* Active side a against target b's memory (raddr, rkey); rb the receiver
 * side for sends (loopback), else NULL. */
static void measure(struct side *a, struct side *rb, uint64_t raddr, uint32_t rkey)
{
	static const struct { const char *lat, *bw; int op; } ops[] = {
		{ "rdma_write_lat", "rdma_write_bw", IBV_WR_RDMA_WRITE },
		{ "rdma_read_lat", "rdma_read_bw", IBV_WR_RDMA_READ },
		{ "rdma_send_lat", "rdma_send_bw", IBV_WR_SEND },
	};
	double v[REPS];
	for (int o = 0; o < 3; o++) {
		for (size_t n = 2; n <= MAX_MSG; n *= 4) {
			int it = iters_for(n);
			/* latency: one at a time */
			for (int r = 0; r < REPS; r++) {
				double t0 = now_s();
				for (int i = 0; i < it; i++) {
					if (ops[o].op == IBV_WR_SEND && rb)
						post_recv(rb, n);
					post(a, ops[o].op, n, raddr, rkey, 1);
					wait_cq(a->cq, 1);
					if (ops[o].op == IBV_WR_SEND && rb)
						wait_cq(rb->cq, 1);
				}
				v[r] = (now_s() - t0) / it;
			}
			record(ops[o].lat, n, it, v, REPS);
			/* bandwidth: a window in flight */
			for (int r = 0; r < REPS; r++) {
				int posted = 0, done = 0;
				double t0 = now_s();
				while (done < it) {
					while (posted < it && posted - done < WINDOW) {
						if (ops[o].op == IBV_WR_SEND && rb)
							post_recv(rb, n);
						post(a, ops[o].op, n, raddr, rkey, 1);
						posted++;
					}
					wait_cq(a->cq, 1);
					done++;
					if (ops[o].op == IBV_WR_SEND && rb)
						wait_cq(rb->cq, 1);
				}
				v[r] = (now_s() - t0) / it;
			}
			record(ops[o].bw, n, it, v, REPS);
		}
	}
}

/* The server's part of the send tests: keep WINDOW receives posted until
 * the client says it is done on the TCP socket. */
static void serve_receives(struct side *b, int fd)
{
	for (int i = 0; i < WINDOW; i++)
		post_recv(b, MAX_MSG);
	for (;;) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(b->cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq", 0);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, ME ": receive failed: %s\n", ibv_wc_status_str(wc[i].status));
				exit(2);
			}
			post_recv(b, MAX_MSG);
		}
		struct pollfd p = { fd, POLLIN, 0 };
		if (!n && poll(&p, 1, 0) > 0)
			return;
	}
}

/* ---- TCP exchange for --server / --client ---- */

static int tcp_connect(const char *host)
{
	struct addrinfo hints, *res;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	char port[8];
	snprintf(port, sizeof port, "%d", PORT_TCP);
	if (getaddrinfo(host, port, &hints, &res)) {
		fprintf(stderr, ME ": cannot resolve '%s'\n", host);
		exit(2);
	}
	int fd = socket(res->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen))
		die("connect", 0);
	freeaddrinfo(res);
	return fd;
}

static int tcp_accept(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (s < 0)
		die("socket", 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(PORT_TCP);
	if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 1))
		die("bind/listen", 0);
	fprintf(stderr, ME ": waiting for a client on port %d\n", PORT_TCP);
	int fd = accept(s, NULL, NULL);
	if (fd < 0)
		die("accept", 0);
	close(s);
	return fd;
}

static void xfer(int fd, const void *out, void *in, size_t n)
{
	if (write(fd, out, n) != (ssize_t)n)
		die("exchange (write)", 0);
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)in + got, n - got);
		if (r <= 0)
			die("exchange (read)", r ? 0 : ECONNRESET);
		got += (size_t)r;
	}
}

/* The command line. */
struct opts {
	const char *devname, *client;
	int server, port, port2, gidx;
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->devname = o->client = NULL;
	o->server = 0;
	o->port = 1;
	o->port2 = 0;
	o->gidx = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--server"))
			o->server = 1;
		else if (!strcmp(argv[i], "--client") && i + 1 < argc)
			o->client = argv[++i];
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			o->devname = argv[++i];
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			o->port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--peer-port") && i + 1 < argc)
			o->port2 = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--gid-index") && i + 1 < argc)
			o->gidx = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--quick"))
			g_quick = 1;
		else if (!strcmp(argv[i], "--gpu") && i + 1 < argc)
			g_gpu = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: " ME " [-d DEVICE] [--port N] [--peer-port N] [--gid-index N] [--server | --client HOST]"
			                " [--gpu N] [--quick]\n");
			return -1;
		}
	}
	return 0;
}

/* The RDMA device named devname, else the first; NULL after a message. */
static struct ibv_device *pick_device(const char *devname)
{
	int ndev = 0;
	struct ibv_device **list = ibv_get_device_list(&ndev);
	if (!list || ndev == 0) {
		fprintf(stderr, ME ": no RDMA device%s\n", list ? "" : " (the verbs library found no provider)");
		if (list)
			ibv_free_device_list(list);
		return NULL;
	}
	struct ibv_device *dev = list[0];
	if (devname) {
		dev = NULL;
		for (int i = 0; i < ndev; i++)
			if (!strcmp(ibv_get_device_name(list[i]), devname))
				dev = list[i];
		if (!dev) {
			fprintf(stderr, ME ": no RDMA device named '%s'\n", devname);
			return NULL;
		}
	}
	return dev;
}

/* Against a peer over TCP: the client measures, the server serves. */
static void run_remote(struct ctx *c, struct side *a, int server, const char *client)
{
	int fd = server ? tcp_accept() : tcp_connect(client);
	struct ends me = my_ends(a), peer;
	xfer(fd, &me, &peer, sizeof me);
	connect_qp(c, a, &me, &peer);
	char go = 'g', back;
	xfer(fd, &go, &back, 1);
	/* the client drives; the server is the target of writes and reads and
	 * keeps receives posted for the sends until the client is done */
	char bye = 'b';
	if (client) {
		measure(a, NULL, peer.addr, peer.rkey);
		if (write(fd, &bye, 1) != 1)
			die("exchange (write)", 0);
	} else {
		serve_receives(a, fd);
		if (read(fd, &back, 1) != 1)
			die("exchange (read)", 0);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct opts o;
	if (parse_args(argc, argv, &o))
		return 2;
	const char *devname = o.devname, *client = o.client;
	int server = o.server, port = o.port, port2 = o.port2, gidx = o.gidx;
#ifndef CCS_HAVE_CUDA
	if (g_gpu >= 0) {
		fprintf(stderr, ME ": built without CUDA: --gpu (GPUDirect RDMA) is not available\n");
		return 2;
	}
#endif
	struct ibv_device *dev = pick_device(devname);
	if (!dev)
		return 1;
	struct ctx c;
	memset(&c, 0, sizeof c);
	c.vc = ibv_open_device(dev);
	if (!c.vc)
		die("ibv_open_device", 0);
	struct ibv_port_attr pa;
	if (ibv_query_port(c.vc, (uint8_t)port, &pa))
		die("ibv_query_port", 0);
	if (pa.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, ME ": %s port %d is not active\n", ibv_get_device_name(dev), port);
		return 1;
	}
	g_cls = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "roce" : "ib";
	c.gid_index = gidx >= 0 ? gidx : pa.link_layer == IBV_LINK_LAYER_ETHERNET ? 3 : 0;
	c.pd = ibv_alloc_pd(c.vc);
	if (!c.pd)
		die("ibv_alloc_pd", 0);
	c.buflen = MAX_MSG;
	struct ibv_device_attr da;
	memset(&da, 0, sizeof da);
	ibv_query_device(c.vc, &da);
	gethostname(g_host, sizeof g_host - 1);
	if (port2 && !server && !client)
		snprintf(g_dev, sizeof g_dev, "%s:%d-%d", ibv_get_device_name(dev), port, port2);
	else
		snprintf(g_dev, sizeof g_dev, "%s:%d", ibv_get_device_name(dev), port);
	snprintf(g_ver, sizeof g_ver, "firmware=%s", da.fw_ver[0] ? da.fw_ver : "unknown");
	srand48((long)getpid());
	printf("# ccsim-bench 1\n# host: %s\n# firmware: %s\n# device: %s, %s, port %d, link %s, mtu %d\n", g_host,
	       da.fw_ver, ibv_get_device_name(dev), g_cls, port, g_cls, 128 << pa.active_mtu);
	fflush(stdout);

	struct side a, b;
	side_init(&c, &a, port);
	if (!server && !client) {
		side_init(&c, &b, port2 ? port2 : port);
		struct ends ea = my_ends(&a), eb = my_ends(&b);
		connect_qp(&c, &a, &ea, &eb);
		connect_qp(&c, &b, &eb, &ea);
		measure(&a, &b, eb.addr, eb.rkey);
		return 0;
	}
	run_remote(&c, &a, server, client);
	return 0;
}
