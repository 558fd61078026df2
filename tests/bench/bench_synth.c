/*
** tests/bench/bench_synth.c: how long synthesis takes (`make bench`,
** issue 45): the LP packing (ccs_synth_pack: routes, column generation,
** the second program), the lowering into thread blocks at 1 GiB
** (ccs_synth_chunk + ccs_synth_plan_build) and, up to 64 GPUs, the whole
** of ccsim synth's choice (ccs_synth_make: three candidates simulated and
** the channels tried), for AllGather on 8, 64 and 512 GPUs of HGX H100
** nodes on their rail-optimized InfiniBand fabric.  The baseline, in the
** same run: simulating NCCL's ring AllGather of 1 GiB on the same fabric.
** Peak RSS from getrusage (the whole program's so far).
*/
#define _DEFAULT_SOURCE 1
#include "../../model/coll.h"
#include "../../model/topo_yaml.h"
#include "../../sim/sched/build.h"
#include "../../sim/sim.h"
#include "../../sim/synth/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double rss_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

struct bcase {
	const char *label, *file, *set;
	int make;                   /* also time ccs_synth_make */
};

static const struct bcase cases[] = {
	{ "8 GPUs (1 node)", "topologies/hgx-h100.yaml", NULL, 1 },
	{ "64 GPUs (8 nodes)", "topologies/hgx-h100-cluster.yaml", "nodes=8", 1 },
	{ "512 GPUs (64 nodes)", "topologies/hgx-h100-cluster.yaml", "nodes=64", 0 },
};

int main(void)
{
	double N = 1024.0 * 1024 * 1024;
	int bad = 0;
	printf("synthesis (AllGather, 1 GiB, one core): LP packing, lowering, ccsim synth's whole choice;\n"
	       "ratios against simulating NCCL's ring AllGather on the same fabric (same run)\n");
	printf("%-20s %6s %6s %9s %10s %10s %10s %9s %9s %8s\n", "case", "rounds", "trees", "ring(s)", "pack(s)", "lower(s)",
	       "make(s)", "pack:ring", "make:ring", "RSS(MiB)");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bcase *b = &cases[i];
		struct ccs_diag d;
		memset(&d, 0, sizeof d);
		struct ccs_topo *t = NULL;
		const char *sets[1] = { b->set };
		struct ccs_comm c;
		struct ccs_fabric *f = NULL;
		char err[256];
		if (ccs_topo_yaml_load(b->file, sets, b->set ? 1 : 0, &t, &d) || ccs_comm_build(t, 0, 0, &c, err, sizeof err) ||
		    ccs_fabric_new(&c, &f)) {
			fprintf(stderr, "bench_synth: %s: cannot set up\n", b->label);
			return 1;
		}
		struct ccs_sched s;
		const char *why;
		struct ccs_sim_stats st;
		double t0 = now(), ring = -1;
		if (!ccs_sched_build(&c, CCS_COLL_ALLGATHER, CCS_ALGO_RING, CCS_PROTO_SIMPLE, 0, (uint64_t)N, &s, &why)) {
			if (!ccs_sim_run(f, &s, &st, NULL, err, sizeof err))
				ring = now() - t0;
			ccs_sched_release(&s);
		}
		struct ccs_synth sy;
		struct ccs_synth_cfg cfg = { CCS_COLL_ALLGATHER, N, 0, 0, 0, 0 };
		t0 = now();
		int rc = ccs_synth_pack(f, &c, &cfg, &sy, err, sizeof err);
		double pack = now() - t0, lower = -1, make = -1;
		int rounds = sy.iters, trees = sy.ntree;
		if (!rc) {
			struct ccs_synth_plan p;
			t0 = now();
			ccs_synth_chunk(&sy, ccs_fabric_caps(f), ccs_fabric_nres(f), N, 0, 0);
			if (!ccs_synth_plan_build(&sy, &p)) {
				lower = now() - t0;
				ccs_synth_plan_release(&p);
			}
			ccs_synth_release(&sy);
		}
		if (!rc && b->make) {
			t0 = now();
			if (!(rc = ccs_synth_make(f, &c, &cfg, 0, 0, -1, &sy, err, sizeof err))) {
				make = now() - t0;
				ccs_synth_release(&sy);
			}
		}
		if (rc) {
			fprintf(stderr, "bench_synth: %s: %s\n", b->label, err);
			bad = 1;
		}
		char mk[16] = "-", mr[16] = "-";
		if (make >= 0) {
			snprintf(mk, sizeof mk, "%.3f", make);
			snprintf(mr, sizeof mr, "%.1fx", make / ring);
		}
		printf("%-20s %6d %6d %9.3f %10.3f %10.3f %10s %8.1fx %9s %8.0f\n", b->label, rounds, trees, ring, pack, lower, mk,
		       pack / ring, mr, rss_mib());
		fflush(stdout);
		ccs_fabric_free(f);
		ccs_comm_release(&c);
		ccs_topo_free(t);
	}
	return bad;
}
