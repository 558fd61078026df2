/* sim/cli/simrow.c: what `ccsim simulate` runs for predict's rows and for
** --schedule files (simrow.h). */
#include "simrow.h"

#include "../../model/coll.h"
#include "../../model/topo_yaml.h"
#include "../../model/units.h"
#include "../report.h"
#include "../sim.h"
#include "../sched/build.h"
#include "../trace.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* --per-flow: every run simulates each flow (no classes) */
static int classes_mode = CCS_CLASSES_EXACT;

void ccs_simrow_set_classes(int mode) { classes_mode = mode; }

/* --trace-level: how much of a run its trace holds (sim/trace.h) */
static int trace_level = CCS_TRACE_STEP;

void ccs_simrow_set_trace_level(int level) { trace_level = level; }

/* Simulate one row; the flow state of the run is kept in *keep (for
 * --links).  The bound is what the most utilised resource is (bytes over
 * capacity x run time), or latency when none reached half. */
int ccs_simrow_run(const char *me, uint32_t spray_k, const struct ccs_comm *c, struct ccs_fabric **fab, int coll, int algo,
                   int proto, int channels, int copies, int flags, struct ccs_simrow_row *rw, struct ccs_flows **keep,
                   const char *trace_path)
{
	char err[256];
	if (!*fab && ccs_fabric_new(c, fab)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return -1;
	}
	if (spray_k)
		ccs_fabric_set_spray(*fab, spray_k);
	ccs_fabric_set_classes(*fab, classes_mode);
	struct ccs_sched s;
	const char *why = NULL;
	struct ccs_sched part[64];
	int rc = 0, built = 0;
	for (; built < copies && !rc; built++)
		rc = ccs_sched_build_flags(c, coll, algo, proto, channels, rw->bytes ? rw->bytes : 1, flags, &part[built], &why);
	if (!rc && copies == 1)
		s = part[0];
	else if (!rc)
		rc = ccs_sched_concat(part, copies, &s);   /* the copies start together and share the fabric */
	else
		for (int j = 0; j + 1 < built; j++)
			ccs_sched_release(&part[j]);
	if (rc) {
		fprintf(stderr, "%s: %s %s: %s\n", me, ccs_algo_desc[algo].name, ccs_coll_name[coll],
		        why ? why : "out of memory");
		return -1;
	}
	struct ccs_sim_stats st;
	struct ccs_flows *fl = NULL;
	char title[256];
	int in_trace;
	snprintf(title, sizeof title, "%s %s/%s %llu bytes on %d ranks", ccs_coll_name[coll], ccs_algo_desc[algo].name,
	         ccs_proto_name[proto], (unsigned long long)rw->bytes, c->n);
	/* rw->time_s is the closed form's time of the row, what the run expects */
	struct ccs_progress_sim pg;
	char sz[32], what[96];
	ccs_fmt_size((double)rw->bytes, sz, sizeof sz);
	snprintf(what, sizeof what, "%s %s %s/%s", ccs_coll_name[coll], sz, ccs_algo_desc[algo].name, ccs_proto_name[proto]);
	ccs_progress_sim_start(&pg, what, rw->time_s);
	const struct ccs_sim_hooks watch = { .tick_ctx = &pg, .tick = ccs_progress_sim_tick };
	rc = ccs_trace_run(*fab, &s, c->n, trace_path, trace_level, title, &watch, &st, &fl, &in_trace, err, sizeof err);
	ccs_progress_sim_end(&pg);
	ccs_sched_release(&s);
	if (rc) {
		fprintf(stderr, "%s: %s\n", me, err);
		return -1;
	}
	rw->time_s = st.time_s;
	rw->bound = ccs_report_bound(c, *fab, fl, st.time_s);
	rw->events = st.events;
	rw->flows = st.flows;
	rw->class_flows = st.class_flows;
	rw->max_active = st.max_active;
	rw->region_max = st.region_max;
	rw->region_mean = st.region_mean;
	rw->classes = st.classes;
	rw->lumped = st.lumped;
	rw->restarts = st.restarts;
	rw->per_flow_why = st.per_flow_why;
	ccs_flows_free(*keep);
	*keep = fl;
	return 0;
}

/* Load every schedule file for comm; *maxr gets the most ranks any
 * declares.  The parts are released on failure. */
static int load_parts(const char *const *paths, int npaths, const struct ccs_comm *comm, double bytes, struct ccs_sched *parts,
                      int *maxr)
{
	struct ccs_diag diag;
	*maxr = 0;
	for (int j = 0; j < npaths; j++) {
		int r = 0;
		memset(&diag, 0, sizeof diag);
		if (ccs_sched_file_load(paths[j], comm, bytes, &parts[j], &r, &diag)) {
			fprintf(stderr, "%s\n", diag.set ? diag.msg : "ccsim: failed to load the schedule");
			for (int k = 0; k < j; k++)
				ccs_sched_release(&parts[k]);
			return -1;
		}
		if (r > *maxr)
			*maxr = r;
	}
	return 0;
}

/* `simulate --schedule`: the ops YAML files list, all starting together, on
 * the first R ranks of the topology (R: the most ranks a file declares, or
 * -n). */
/* The schedule files loaded on the first R ranks of t (R: the most ranks a
 * file declares, or -n), with that communicator's hop latencies: 0, or -1
 * after a message with nothing left loaded (comm may be built). */
static int load_on_comm(const char *me, const struct ccs_topo *t, int nranks, int ppn, const char *const *paths,
                        int npaths, double bytes, struct ccs_comm *comm, struct ccs_sched *parts)
{
	int ranks = 0, loaded = 0;
	const char *what = npaths == 1 ? paths[0] : "the schedules";
	const char *has = npaths == 1 ? "the schedule has" : "they use up to";
	if (ccs_args_comm(me, t, nranks, ppn, comm))
		goto fail;
	if (load_parts(paths, npaths, comm, bytes, parts, &ranks))
		return -1;
	loaded = 1;
	if (ranks > comm->n) {
		fprintf(stderr, "%s: %s: %s %d ranks; %s gives %d%s\n", me, what, has, ranks, t->name, comm->n,
		        nranks ? " (-n)" : "");
		goto fail;
	}
	if (ranks < comm->n) {
		if (nranks) {
			fprintf(stderr, "%s: %s: %s %d ranks, not the %d of -n\n", me, what, has, ranks, nranks);
			goto fail;
		}
		/* the first `ranks` ranks, with hop latencies of that communicator */
		for (int j = 0; j < npaths; j++)
			ccs_sched_release(&parts[j]);
		loaded = 0;
		ccs_comm_release(comm);
		memset(comm, 0, sizeof *comm);
		if (ccs_args_comm(me, t, ranks, ppn, comm))
			goto fail;
		if (load_parts(paths, npaths, comm, bytes, parts, &ranks))
			return -1;
		loaded = 1;
	}
	return 0;
fail:
	for (int j = 0; loaded && j < npaths; j++)
		ccs_sched_release(&parts[j]);
	return -1;
}

int ccs_simrow_schedules(const char *me, uint32_t spray_k, const char *topo, const struct ccs_args_sets *sets, int nranks,
                         int ppn, const char *const *paths, int npaths, double bytes, int links, const char *trace_path)
{
	struct ccs_topo *t = NULL;
	struct ccs_comm comm;
	memset(&comm, 0, sizeof comm);
	struct ccs_sched s, parts[8];
	memset(&s, 0, sizeof s);
	struct ccs_fabric *fab = NULL;
	struct ccs_flows *fl = NULL;
	char err[256];
	int rc = 1;
	const char *what = npaths == 1 ? paths[0] : "the schedules";
	if (ccs_args_topo(NULL, topo, sets, &t))
		goto out;
	if (load_on_comm(me, t, nranks, ppn, paths, npaths, bytes, &comm, parts))
		goto out;
	if (npaths == 1)
		s = parts[0];
	else if (ccs_sched_concat(parts, npaths, &s)) {
		fprintf(stderr, "%s: out of memory\n", me);
		goto out;
	}
	if (ccs_fabric_new(&comm, &fab)) {
		fprintf(stderr, "%s: out of memory\n", me);
		goto out;
	}
	if (spray_k)
		ccs_fabric_set_spray(fab, spray_k);
	ccs_fabric_set_classes(fab, classes_mode);
	char title[256];
	snprintf(title, sizeof title, "%s on %d ranks of %s", what, comm.n, t->name);
	struct ccs_sim_stats st;
	int in_trace;
	struct ccs_progress_sim pg;
	ccs_progress_sim_start(&pg, what, 0);
	const struct ccs_sim_hooks watch = { .tick_ctx = &pg, .tick = ccs_progress_sim_tick };
	int trc = ccs_trace_run(fab, &s, comm.n, trace_path, trace_level, title, &watch, &st, &fl, &in_trace, err, sizeof err);
	ccs_progress_sim_end(&pg);
	if (trc) {
		if (in_trace)
			fprintf(stderr, "%s: %s\n", me, err);
		else
			fprintf(stderr, "%s: %s: %s\n", me, what, err);
		goto out;
	}
	printf("# %s: schedule", me);
	for (int j = 0; j < npaths; j++)
		printf("%s %s", j ? " +" : "", paths[j]);
	printf(" on %s: %d ranks in %d group%s of %d\n", t->name, comm.n, comm.G, comm.G == 1 ? "" : "s", comm.p);
	printf("# %8s %10s %8s %16s %16s", "time(us)", "ops", "flows", "bytes sent", "events");
	/* a file that says which collective it is, and its size, gets
	 * nccl-tests' algbw and busbw beside */
	int bw = npaths == 1 && s.coll_bytes > 0 && st.time_s > 0;
	if (bw)
		printf(" %14s %8s %8s", "collective", "algbw", "busbw");
	printf("\n  %8.3f %10llu %8llu %16.0f %16llu", st.time_s * 1e6, (unsigned long long)st.ops,
	       (unsigned long long)st.flows, st.bytes_sent, (unsigned long long)st.events);
	if (bw) {
		double algbw = s.coll_bytes / st.time_s / 1e9;
		printf(" %14s %8.2f %8.2f", ccs_coll_name[s.coll], algbw, algbw * ccs_busbw_factor(s.coll, comm.n));
	}
	printf("\n");
	if (links)
		ccs_report_links(fab, fl, st.time_s);
	rc = ccs_args_flush() ? 1 : 0;
out:
	ccs_sched_release(&s);
	ccs_flows_free(fl);
	ccs_fabric_free(fab);
	ccs_comm_release(&comm);
	ccs_topo_free(t);
	return rc;
}

int ccs_simrow_faults_idle(const struct ccs_topo *t, const char *topo, const struct ccs_args_sets *sets,
                           const struct ccs_comm *fc, int ppn, int coll, const struct ccs_simrow_row *rows, size_t n)
{
	if (!t->nfault || t->ntimed || !n)
		return 0;
	const char **v = ccs_malloc(((size_t)sets->n + 1) * sizeof *v);
	if (!v)
		return 0;
	int k = 0;
	for (int i = 0; i < sets->n; i++)
		if (strncmp(sets->v[i], "faults+=", 8) && strncmp(sets->v[i], "faults=", 7))
			v[k++] = sets->v[i];
	struct ccs_topo *h = NULL;
	struct ccs_comm hc;
	struct ccs_diag d;
	char err[256];
	memset(&d, 0, sizeof d);
	int idle = 0, built = 0;
	if (!ccs_topo_yaml_load(topo, v, k, &h, &d) && !ccs_comm_build(h, fc->n, ppn, &hc, err, sizeof err)) {
		built = 1;
		idle = 1;
		for (size_t i = 0; i < n && idle; i++) {
			struct ccs_cost a, b;
			const struct ccs_simrow_row *rw = &rows[i];
			if (ccs_cost_eval(fc, coll, rw->algo, rw->proto, rw->channels, rw->bytes, &a, NULL) ||
			    ccs_cost_eval(&hc, coll, rw->algo, rw->proto, rw->channels, rw->bytes, &b, NULL) ||
			    fabs(a.time_s - b.time_s) > 1e-9 * b.time_s)
				idle = 0;
		}
	}
	if (built)
		ccs_comm_release(&hc);
	ccs_topo_free(h);
	ccs_free(v);
	return idle;
}
