/*
** sim/cli/cmd_jobs.c: `ccsim simulate -t TOPO --job SPEC --job SPEC ...`:
** several jobs, each with its own placement and collective, at once on one
** fabric (issue 8, shared fabrics).
**
**   --job name=A,gpus=0-7+16-23,coll=allreduce,bytes=256M[,algo=ring][,proto=simple]
**   gpus: global GPU indices (topo show --gpus), ranges joined by '+', or
**         nodes=0-3 (every GPU of those nodes), or rails=0-3 (those local
**         GPUs on every node: a rail partition), or size=N, placed by
**         --isolation (after the jobs placed by hand, in the order given):
**           packed   the first N free GPUs in index order (a job may share
**                    a scale-up domain with the next)
**           domains  whole free scale-up domains (the last one's spare GPUs
**                    stay idle): no two jobs share a domain
**           rails    N / nodes free local indices on every node: each job
**                    its own rails across all nodes (its own leaves on a
**                    rail-optimized fabric)
**           planes   packed, and on a multi-plane fabric each job's network
**                    traffic on its own planes (P / jobs of the P planes;
**                    every job placed by hand or by size gets its share):
**                    isolation for a share of every NIC's ports
** Each job is lowered on its own communicator (its ranks on its GPUs), its
** ranks renamed to the world's (one rank per GPU) and all jobs start
** together on one fabric, so they meet only in the flow solver: max-min
** sharing of every link, NIC and port they have in common.  Each is also
** run alone on a fresh fabric; the table gives both times and the
** slowdown, and the closed form of each alone.
*/
#include "cli.h"
#include "../../model/escape.h"

#include "../../model/coll.h"
#include "../../model/cost.h"
#include "../../model/topo_yaml.h"
#include "../sim.h"
#include "../sched/build.h"
#include "../fabric.h"
#include "../sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXJOBS 16

static const char *me = "ccsim simulate";

struct job {
	char name[32];
	uint32_t *gpus;
	uint32_t planes;            /* network planes (bit p), 0: all */
	int n, size, coll, algo, proto;
	uint64_t bytes;
	struct ccs_comm c;
	int built;
	double alone_s, shared_s, model_s;
	char algo_txt[64];
};

/* "0-7+16-23" into GPU indices (append to j->gpus), of at most maxg */
static int parse_list(const char *v, int per_node, int rails, const struct ccs_topo *t, struct job *j, char *err,
                      size_t errn)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		char *dash = strchr(tok, '-'), *end;
		long lo = strtol(tok, &end, 10), hi = lo;
		if (end == tok || (dash ? end != dash : *end)) {
			snprintf(err, errn, "'%s' is not a number or a range like 0-7", tok);
			return -1;
		}
		if (dash) {
			hi = strtol(dash + 1, &end, 10);
			if (end == dash + 1 || *end || hi < lo) {
				snprintf(err, errn, "'%s' is not a range like 0-7", tok);
				return -1;
			}
		}
		for (uint32_t g = 0; g < t->ngpu; g++) {
			long key = per_node ? t->gpu[g].node : rails ? t->gpu[g].local : (long)g;
			if (key < lo || key > hi)
				continue;
			uint32_t *ng = ccs_realloc(j->gpus, (size_t)(j->n + 1) * sizeof *ng);
			if (!ng) {
				snprintf(err, errn, "out of memory");
				return -1;
			}
			j->gpus = ng;
			j->gpus[j->n++] = g;
		}
	}
	if (!j->n) {
		snprintf(err, errn, "the placement '%s' holds no gpu of %s", v, t->name);
		return -1;
	}
	return 0;
}

static int parse_job(const char *spec, const struct ccs_topo *t, int idx, struct job *j, char *err, size_t errn)
{
	memset(j, 0, sizeof *j);
	snprintf(j->name, sizeof j->name, "job%d", idx);
	j->algo = j->proto = -1;
	j->coll = -1;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", spec);
	int placed = 0;
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq) {
			snprintf(err, errn, "--job '%s': expected key=value, got '%s'", spec, kv);
			return -1;
		}
		*eq = 0;
		const char *k = kv, *v = eq + 1;
		char e2[200] = "";
		if (!strcmp(k, "name"))
			snprintf(j->name, sizeof j->name, "%s", v);
		else if (!strcmp(k, "gpus") || !strcmp(k, "nodes") || !strcmp(k, "rails")) {
			if (parse_list(v, !strcmp(k, "nodes"), !strcmp(k, "rails"), t, j, e2, sizeof e2)) {
				snprintf(err, errn, "--job '%s': %s: %s", spec, k, e2);
				return -1;
			}
			placed = 1;
		} else if (!strcmp(k, "size")) {
			char *end;
			long v2 = strtol(v, &end, 10);
			if (end == v || *end || v2 < 2 || v2 > (long)t->ngpu) {
				snprintf(err, errn, "--job '%s': size: '%s' is not a gpu count from 2 to %u", spec, v, t->ngpu);
				return -1;
			}
			j->size = (int)v2;
			placed = 1;
		} else if (!strcmp(k, "coll")) {
			if ((j->coll = ccs_coll_parse(v)) < 0) {
				snprintf(err, errn, "--job '%s': unknown collective '%s'", spec, v);
				return -1;
			}
		} else if (!strcmp(k, "bytes")) {
			if (ccs_parse_nccl_size(v, &j->bytes) || !j->bytes) {
				snprintf(err, errn, "--job '%s': bytes: '%s' is not a size such as 64M or 1G", spec, v);
				return -1;
			}
		} else if (!strcmp(k, "algo")) {
			if ((j->algo = ccs_algo_parse(v)) < 0) {
				snprintf(err, errn, "--job '%s': unknown algorithm '%s'", spec, v);
				return -1;
			}
		} else if (!strcmp(k, "proto")) {
			if ((j->proto = ccs_proto_parse(v)) < 0) {
				snprintf(err, errn, "--job '%s': unknown protocol '%s'", spec, v);
				return -1;
			}
		} else {
			snprintf(err, errn, "--job '%s': unknown key '%s' (name, gpus, nodes, rails, size, coll, bytes, algo, proto)", spec,
			         k);
			return -1;
		}
	}
	if (j->size && j->n) {
		snprintf(err, errn, "--job '%s': size= is placed by --isolation; give it or gpus=, nodes=, rails=", spec);
		return -1;
	}
	if (!placed || j->coll < 0 || !j->bytes) {
		snprintf(err, errn, "--job '%s': needs a placement (gpus=, nodes=, rails= or size=), coll= and bytes=", spec);
		return -1;
	}
	return 0;
}

enum { ISO_PACKED, ISO_DOMAINS, ISO_RAILS, ISO_PLANES };

static int add_gpu(struct job *j, uint32_t g, char *used)
{
	uint32_t *ng = ccs_realloc(j->gpus, (size_t)(j->n + 1) * sizeof *ng);
	if (!ng)
		return CCS_ENOMEM;
	j->gpus = ng;
	j->gpus[j->n++] = g;
	used[g] = 1;
	return CCS_OK;
}

/* Place job j's size GPUs by the policy among the free ones (used[g] 0);
 * used gets them (and a domain's idle rest under 'domains'). */
static int place(const struct ccs_topo *t, int policy, struct job *j, char *used, char *err, size_t errn)
{
	int N = j->size;
	if (policy == ISO_PACKED || policy == ISO_PLANES) {
		for (uint32_t g = 0; g < t->ngpu && j->n < N; g++)
			if (!used[g])
				CCS_TRY(add_gpu(j, g, used));
	} else if (policy == ISO_DOMAINS) {
		/* whole domains, in order, none of whose GPUs is taken */
		for (int32_t d = 0; d < t->ndomains && j->n < N; d++) {
			int busy = 0, size = 0;
			for (uint32_t g = 0; g < t->ngpu; g++)
				if (t->gpu[g].domain == d) {
					size++;
					busy |= used[g];
				}
			if (busy || !size)
				continue;
			for (uint32_t g = 0; g < t->ngpu; g++)
				if (t->gpu[g].domain == d) {
					if (j->n < N)
						CCS_TRY(add_gpu(j, g, used));
					else
						used[g] = 1;   /* the domain's rest stays idle */
				}
		}
	} else {
		int nodes = t->nnodes > 0 ? t->nnodes : 1;
		if (N % nodes) {
			snprintf(err, errn, "job '%.31s': size %d is not a whole number of rails on %d nodes", j->name, N, nodes);
			ccs_escape_utf8_fix(err);   /* a name cut to fit keeps whole characters */
			return CCS_EINPUT;
		}
		int want = N / nodes;
		int32_t L = 0;
		for (uint32_t g = 0; g < t->ngpu; g++)
			if (t->gpu[g].local + 1 > L)
				L = t->gpu[g].local + 1;
		/* the first local indices free on every node */
		for (int32_t r = 0; r < L && j->n < N; r++) {
			int ok = 1, seen = 0;
			for (uint32_t g = 0; g < t->ngpu; g++)
				if (t->gpu[g].local == r) {
					seen++;
					ok &= !used[g];
				}
			if (!ok || seen != nodes)
				continue;
			for (uint32_t g = 0; g < t->ngpu; g++)
				if (t->gpu[g].local == r)
					CCS_TRY(add_gpu(j, g, used));
			want--;
			if (!want)
				break;
		}
	}
	if (j->n < N) {
		snprintf(err, errn, "job '%.31s': %d gpus placed by '%s' do not fit in what the other jobs left (%d placed)",
		         j->name, N, policy == ISO_PACKED ? "packed" : policy == ISO_DOMAINS ? "domains"
		                   : policy == ISO_RAILS ? "rails" : "planes", j->n);
		ccs_escape_utf8_fix(err);   /* a name cut to fit keeps whole characters */
		return CCS_EINPUT;
	}
	/* ranks in GPU order */
	for (int a = 1; a < j->n; a++)
		for (int b = a; b > 0 && j->gpus[b - 1] > j->gpus[b]; b--) {
			uint32_t x = j->gpus[b];
			j->gpus[b] = j->gpus[b - 1];
			j->gpus[b - 1] = x;
		}
	return CCS_OK;
}

/* "0-7+16-23": a job's GPUs as ranges (sorted). */
static void ranges(const struct job *j, char *buf, size_t n)
{
	buf[0] = 0;
	for (int i = 0; i < j->n;) {
		int k = i;
		while (k + 1 < j->n && j->gpus[k + 1] == j->gpus[k] + 1)
			k++;
		size_t l = strlen(buf);
		if (l + 24 >= n) {
			snprintf(buf + l, n - l, "...");
			return;
		}
		if (k > i)
			snprintf(buf + l, n - l, "%s%u-%u", i ? "+" : "", j->gpus[i], j->gpus[k]);
		else
			snprintf(buf + l, n - l, "%s%u", i ? "+" : "", j->gpus[i]);
		i = k + 1;
	}
}

/* Build job j's schedule renamed to world ranks (one per GPU: rank = GPU). */
static int job_sched(struct job *j, struct ccs_sched *out, char *err, size_t errn)
{
	int a, q;
	unsigned am = j->algo >= 0 ? 1u << j->algo : ~0u, pm = j->proto >= 0 ? 1u << j->proto : ~0u;
	struct ccs_cost cc;
	if (ccs_select(&j->c, j->coll, j->bytes, am, pm, j->algo < 0, &a, &q) ||
	    ccs_cost_eval(&j->c, j->coll, a, q, 0, j->bytes, &cc, NULL)) {
		snprintf(err, errn, "job '%s': no algorithm applies", j->name);
		return CCS_EINPUT;
	}
	j->model_s = cc.time_s;
	struct ccs_sched in;
	const char *why = NULL;
	/* NCCL's pick, or (given no algorithm) its next choice with a schedule */
	int sa = a, sq = q;
	int rc = j->algo >= 0 ? ccs_sched_build(&j->c, j->coll, a, q, 0, j->bytes, &in, &why)
	                      : ccs_sched_build_next(&j->c, j->coll, j->bytes, am, pm, &sa, &sq, &in, &why);
	if (rc) {
		snprintf(err, errn, "job '%s': %s", j->name, why ? why : "out of memory");
		return rc == CCS_ENOMEM ? CCS_ENOMEM : CCS_EINPUT;
	}
	if (sa != a || sq != q)
		snprintf(j->algo_txt, sizeof j->algo_txt, "%s/%s (sim %s/%s)", ccs_algo_desc[a].name, ccs_proto_name[q],
		         ccs_algo_desc[sa].name, ccs_proto_name[sq]);
	else
		snprintf(j->algo_txt, sizeof j->algo_txt, "%s/%s", ccs_algo_desc[a].name, ccs_proto_name[q]);
	return ccs_sched_remap(&in, j->c.rank_gpu, out);
}

/* Confine each job's GPUs to its planes on fab (nothing without planes). */
static int set_planes(struct ccs_fabric *fab, const struct job *jobs, int n, uint32_t spray)
{
	if (spray)
		ccs_fabric_set_spray(fab, spray);
	for (int k = 0; k < n; k++)
		for (int i = 0; i < jobs[k].n && jobs[k].planes; i++)
			CCS_TRY(ccs_fabric_set_planes(fab, jobs[k].gpus[i], jobs[k].planes));
	return CCS_OK;
}

/* Several jobs on one fabric: the options, each job's placement and
 * communicator, and the world communicator they share. */
struct jobs_run {
	const char *topo, *specs[MAXJOBS];
	int nspec, iso, world_built;
	uint32_t spray;             /* 0: the topology's */
	struct ccs_args_sets sets;
	struct ccs_topo *t;
	struct job jobs[MAXJOBS];
	struct ccs_comm world;
	struct ccs_fabric *fab;
	char err[512];
};

/* Anything but the four options below, or one of them without its value. */
static int jb_misuse(const char *flag)
{
	fprintf(stderr, "%s: with --job, the options are -t TOPO, --job SPEC (any number), --isolation POLICY, --spray K, "
	        "--set and --fault; got '%s'\n",
	        me, flag);
	return -1;
}

static int take_topo(const char *m, const struct ccs_args_opt *o, const char *v)
{
	(void)m;
	if (!v)
		return jb_misuse(o->flag);
	*(const char **)o->dest = v;
	return 0;
}

static int take_spray(const char *m, const struct ccs_args_opt *o, const char *v)
{
	(void)m;
	if (!v)
		return jb_misuse(o->flag);
	char *e;
	long x = strtol(v, &e, 10);
	if (*e || x < 1 || x > 64) {
		fprintf(stderr, "%s: '--spray' takes the parts per transfer between groups, 1 to 64\n", me);
		return -1;
	}
	*(uint32_t *)o->dest = (uint32_t)x;
	return 0;
}

static int take_isolation(const char *m, const struct ccs_args_opt *o, const char *v)
{
	(void)m;
	static const char *const names[] = { [ISO_PACKED] = "packed", [ISO_DOMAINS] = "domains", [ISO_RAILS] = "rails",
		                              [ISO_PLANES] = "planes" };
	if (!v)
		return jb_misuse(o->flag);
	for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
		if (!strcmp(v, names[k])) {
			*(int *)o->dest = k;
			return 0;
		}
	fprintf(stderr, "%s: --isolation '%s': packed, domains, rails or planes\n", me, v);
	return -1;
}

static int take_job(const char *m, const struct ccs_args_opt *o, const char *v)
{
	(void)m;
	struct jobs_run *J = o->dest;
	if (!v)
		return jb_misuse(o->flag);
	if (J->nspec == MAXJOBS) {
		fprintf(stderr, "%s: at most %d jobs\n", me, MAXJOBS);
		return -1;
	}
	J->specs[J->nspec++] = v;
	return 0;
}

/* The options: 0, or -1 after a message. */
static int jb_parse(struct jobs_run *J, int argc, char **argv)
{
	const struct ccs_args_opt opts[] = {
		{ "-t", CCS_ARGS_FN, &J->topo, 0, 0, NULL, 0, "own", take_topo },
		{ "--job", CCS_ARGS_FN, J, 0, 0, NULL, 0, "own", take_job },
		{ "--isolation", CCS_ARGS_FN, &J->iso, 0, 0, NULL, 0, "own", take_isolation },
		{ "--spray", CCS_ARGS_FN, &J->spray, 0, 0, NULL, 0, "own", take_spray },
	};
	for (int i = 1; i < argc; i++) {
		int r = ccs_args_set(&J->sets, argc, argv, &i);
		if (r < 0)
			return -1;
		if (r)
			continue;
		const struct ccs_args_opt *o = ccs_args_find(opts, sizeof opts / sizeof opts[0], argv[i]);
		if (!o)
			return jb_misuse(argv[i]);
		if (ccs_args_store(me, o, argc, argv, &i))
			return -1;
	}
	if (!J->topo || J->nspec < 1) {
		fprintf(stderr, "usage: %s -t TOPO --job name=A,gpus=0-7,coll=allreduce,bytes=256M[,algo=ring] --job ...\n", me);
		return -1;
	}
	return 0;
}

/* The topology and each job on its GPUs: placed by hand first, then the
 * sized ones by the isolation policy; planes split among the jobs. */
static int jb_place(struct jobs_run *J)
{

	if (ccs_args_topo(NULL, J->topo, &J->sets, &J->t))
		return -1;
	char *used = ccs_calloc(J->t->ngpu + 1, 1);
	if (!used)
		return -1;
	for (int k = 0; k < J->nspec; k++)
		if (parse_job(J->specs[k], J->t, k, &J->jobs[k], J->err, sizeof J->err)) {
			fprintf(stderr, "%s: %s\n", me, J->err);
			ccs_free(used);
			return -1;
		}
	/* jobs placed by hand first, then the sized ones by the policy */
	for (int pass = 0; pass < 2; pass++)
	for (int k = 0; k < J->nspec; k++) {
		if (pass != (J->jobs[k].size > 0))
			continue;
		if (pass) {
			int r = place(J->t, J->iso, &J->jobs[k], used, J->err, sizeof J->err);
			if (r) {
				fprintf(stderr, "%s: %s\n", me, r == CCS_ENOMEM ? "out of memory" : J->err);
				ccs_free(used);
				return -1;
			}
		}
		for (int i = 0; i < J->jobs[k].n && !pass; i++) {
			if (used[J->jobs[k].gpus[i]]) {
				fprintf(stderr, "%s: job '%s': gpu %u is already placed in another job\n", me, J->jobs[k].name,
				        J->jobs[k].gpus[i]);
				ccs_free(used);
				return -1;
			}
			used[J->jobs[k].gpus[i]] = 1;
		}
		if (ccs_comm_build_gpus(J->t, J->jobs[k].gpus, J->jobs[k].n, &J->jobs[k].c, J->err, sizeof J->err)) {
			fprintf(stderr, "%s: job '%s': %s\n", me, J->jobs[k].name, J->err);
			ccs_free(used);
			return -1;
		}
		J->jobs[k].built = 1;
	}
	ccs_free(used);
	/* planes: job k gets planes [k P / J, (k + 1) P / J) */
	if (J->iso == ISO_PLANES) {
		int P = J->t->fab.planes;
		if (P < J->nspec || P > 32 || P % J->nspec) {
			fprintf(stderr, "%s: --isolation planes: %d jobs on %d plane%s (give scaleout.planes a multiple of the jobs, "
			        "at most 32)\n", me, J->nspec, P, P == 1 ? "" : "s");
			return -1;
		}
		for (int k = 0; k < J->nspec; k++)
			for (int p = k * P / J->nspec; p < (k + 1) * P / J->nspec; p++)
				J->jobs[k].planes |= 1u << p;
	}
	return 0;
}

/* The world communicator, and each job simulated alone on it. */
static int jb_alone(struct jobs_run *J)
{
	int rc;
	if (ccs_args_comm(me, J->t, 0, 0, &J->world))
		return -1;
	J->world_built = 1;
	/* each job alone */
	for (int k = 0; k < J->nspec; k++) {
		struct ccs_sched s;
		struct ccs_sim_stats st;
		if ((rc = job_sched(&J->jobs[k], &s, J->err, sizeof J->err)) || (rc = ccs_fabric_new(&J->world, &J->fab)) ||
		    (rc = set_planes(J->fab, &J->jobs[k], 1, J->spray))) {
			fprintf(stderr, "%s: %s\n", me, rc == CCS_ENOMEM ? "out of memory" : J->err);
			return -1;
		}
		rc = ccs_sim_run(J->fab, &s, &st, NULL, J->err, sizeof J->err);
		ccs_sched_release(&s);
		ccs_fabric_free(J->fab);
		J->fab = NULL;
		if (rc) {
			fprintf(stderr, "%s: job '%s' alone: %s\n", me, J->jobs[k].name, J->err);
			return -1;
		}
		J->jobs[k].alone_s = st.time_s;
	}
	return 0;
}

/* All the jobs simulated together: each one's own end. */
static int jb_together(struct jobs_run *J)
{
	int rc;
	/* all together */
	struct ccs_sched parts[MAXJOBS], all;
	int built = 0;
	for (; built < J->nspec; built++)
		if (job_sched(&J->jobs[built], &parts[built], J->err, sizeof J->err))
			break;
	if (built < J->nspec || ccs_sched_concat(parts, J->nspec, &all)) {
		for (int k = 0; k < built && built < J->nspec; k++)
			ccs_sched_release(&parts[k]);
		fprintf(stderr, "%s: %s\n", me, built < J->nspec ? J->err : "out of memory");
		return -1;
	}
	double end_s[MAXJOBS] = { 0 };
	struct ccs_part_ends e = { &all, end_s };
	struct ccs_sim_hooks h;
	memset(&h, 0, sizeof h);
	h.ctx = &e;
	h.op_end = ccs_part_ends_op_end;
	struct ccs_sim_stats st;
	rc = ccs_fabric_new(&J->world, &J->fab);
	if (!rc)
		rc = set_planes(J->fab, J->jobs, J->nspec, J->spray);
	if (!rc)
		rc = ccs_sim_run_hooked(J->fab, &all, &st, NULL, &h, J->err, sizeof J->err);
	ccs_sched_release(&all);
	if (rc) {
		fprintf(stderr, "%s: the jobs together: %s\n", me, rc == CCS_ENOMEM ? "out of memory" : J->err);
		return -1;
	}
	for (int k = 0; k < J->nspec; k++)
		J->jobs[k].shared_s = end_s[k];
	return 0;
}

/* Each job alone and shared, its slowdown, placement and planes. */
static int jb_print(struct jobs_run *J)
{

	printf("# %s: %d job%s at once on %s (%u gpus)\n", me, J->nspec, J->nspec == 1 ? "" : "s", J->t->name, J->t->ngpu);
	printf("# %-12s %6s %-11s %-14s %12s %14s %14s %9s %16s\n", "job", "ranks", "collective", "algo", "bytes",
	       "alone (us)", "shared (us)", "slowdown", "closed form (us)");
	for (int k = 0; k < J->nspec; k++) {
		char cf[32] = "-";
		if (!J->jobs[k].planes)
			snprintf(cf, sizeof cf, "%.2f", J->jobs[k].model_s * 1e6);
		printf("  %-12s %6d %-11s %-14s %12llu %14.2f %14.2f %9.3f %16s\n", J->jobs[k].name, J->jobs[k].n,
		       ccs_coll_cli[J->jobs[k].coll], J->jobs[k].algo_txt, (unsigned long long)J->jobs[k].bytes, J->jobs[k].alone_s * 1e6,
		       J->jobs[k].shared_s * 1e6, J->jobs[k].shared_s / J->jobs[k].alone_s, cf);
	}
	printf("# slowdown: shared / alone, both simulated; the jobs meet only where their flows share a resource\n");
	for (int k = 0; k < J->nspec; k++) {
		char rg[160];
		ranges(&J->jobs[k], rg, sizeof rg);
		printf("# %s on gpus %s%s%s", J->jobs[k].name, rg, J->jobs[k].size ? " placed " : "",
		       !J->jobs[k].size ? "" : J->iso == ISO_PACKED || J->iso == ISO_PLANES ? "packed" : J->iso == ISO_DOMAINS ? "by domains"
		       : "by rails");
		if (J->jobs[k].planes) {
			printf(", network planes");
			for (int p = 0; p < 32; p++)
				if (J->jobs[k].planes >> p & 1)
					printf(" %d", p);
			printf(" (the closed form, '-', sees every plane)");
		}
		printf("\n");
	}
	return 0;
}

int ccs_cmd_jobs(int argc, char **argv)
{
	struct jobs_run *J = ccs_calloc(1, sizeof *J);
	if (!J) {
		fprintf(stderr, "%s: out of memory\n", me);
		return 1;
	}
	J->iso = ISO_PACKED;
	ccs_args_sets_init(&J->sets);
	int rc = jb_parse(J, argc, argv) ? 2 : 0;
	if (!rc)
		rc = jb_place(J) || jb_alone(J) || jb_together(J) || jb_print(J) ? 1 : ccs_args_flush() ? 1 : 0;
	ccs_fabric_free(J->fab);
	for (int k = 0; k < J->nspec; k++) {
		if (J->jobs[k].built)
			ccs_comm_release(&J->jobs[k].c);
		ccs_free(J->jobs[k].gpus);
	}
	if (J->world_built)
		ccs_comm_release(&J->world);
	ccs_topo_free(J->t);
	ccs_args_sets_release(&J->sets);
	ccs_free(J);
	return rc;
}
