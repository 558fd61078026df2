/*
** sim/synth/synth_run.c: a packing lowered and simulated, and the choice
** among the candidate packings by simulation (synth.h).
*/
#include "synth.h"

#include "../../model/ccs.h"
#include "../../model/coll.h"
#include "../sched/build.h"
#include "../sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int ccs_synth_sim(struct ccs_synth *s, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K, int C,
                  struct ccs_synth_plan *p, double *time_s, char *err, size_t errn)
{
	ccs_synth_plan_release(p);
	ccs_synth_chunk(s, ccs_fabric_caps(f), ccs_fabric_nres(f), bytes, K, C);
	if (!isfinite(s->round_s) || ccs_synth_plan_build(s, p)) {
		snprintf(err, errn, "out of memory");
		return CCS_ENOMEM;
	}
	struct ccs_text o;
	memset(&o, 0, sizeof o);
	ccs_synth_yaml(p, "synth", bytes, c->mem_bw > 0, &o);
	if (o.oom) {
		ccs_free(o.s);
		snprintf(err, errn, "out of memory");
		return CCS_ENOMEM;
	}
	struct ccs_sched sc;
	struct ccs_diag d;
	memset(&d, 0, sizeof d);
	int ranks;
	int rc = ccs_sched_text_load("the synthesized schedule", o.s, o.n, c, bytes, &sc, &ranks, &d);
	ccs_free(o.s);
	if (rc) {
		snprintf(err, errn, "%s", d.set ? d.msg : "out of memory");
		return rc;
	}
	struct ccs_sim_stats st;
	ccs_fabric_rewind(f);
	rc = ccs_sim_run(f, &sc, &st, NULL, err, errn);
	ccs_sched_release(&sc);
	*time_s = st.time_s;
	return rc;
}

/* Whether MSCCL's runtime holds plan p (synth.h): 1, 0, or -1 out of
 * memory. */
static int fits(const struct ccs_synth_plan *p)
{
	struct ccs_synth_fit ft;
	char why[160];
	if (ccs_synth_fit_of(p, &ft))
		return -1;
	return !ccs_synth_fit_check(&ft, why, sizeof why);
}

/* Of two lowerings, whether (fit, t) beats (bfit, bt): one MSCCL's
 * runtime holds first, then the faster. */
static int better(int fit, double t, int bfit, double bt)
{
	return fit != bfit ? fit > bfit : t < bt;
}

/* Lowering s with *flag the other way: kept where better than (*bf, *t),
 * else put back. */
static int flip(struct ccs_synth *s, int *flag, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K,
                int C, struct ccs_synth_plan *p, double *t, int *fit, int *bf, char *err, size_t errn)
{
	double tb;
	*flag = !*flag;
	int rc = ccs_synth_sim(s, f, c, bytes, K, C, p, &tb, err, errn);
	int ft = !rc && fit ? fits(p) : 1;
	if (ft < 0) {
		snprintf(err, errn, "out of memory");
		rc = CCS_ENOMEM;
	} else if (!rc && better(ft, tb, *bf, *t)) {
		*t = tb;
		*bf = ft;
		return CCS_OK;
	}
	*flag = !*flag;
	return rc;
}

/* The lowering's channels for packing s, its baseline (C = K, no
 * spread) simulated at *t (*fit: whether MSCCL's runtime holds it): inside
 * groups fewer at once, or less latency; across groups a pair's chunks
 * over one NIC in one block, or spread over that NIC's channels (more at
 * once, latency overlapped).  s keeps the best and *t its time: with fit
 * one the runtime holds first (*fit: whether it does), then the fastest;
 * with fit NULL the fastest. */
static int lower_trial(struct ccs_synth *s, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K, int C,
                       struct ccs_synth_plan *p, double *t, int *fit, char *err, size_t errn)
{
	int any = 1, *bf = fit ? fit : &any;   /* by time alone: every lowering counts as held */
	static const int try_c[3] = { 0, 4, 1 };
	int cin = 0, spread = 0, rc = CCS_OK;
	for (int i = 1; i < 6 && !C && !rc; i++) {
		double tc;
		if (i % 2 && c->G < 2)
			continue;
		s->cin = try_c[i / 2];
		s->spread = i % 2;
		if ((rc = ccs_synth_sim(s, f, c, bytes, K, C, p, &tc, err, errn)))
			break;
		int ft = fit ? fits(p) : 1;
		if (ft < 0) {
			snprintf(err, errn, "out of memory");
			rc = CCS_ENOMEM;
		} else if (better(ft, tc, *bf, *t)) {
			*t = tc;
			*bf = ft;
			cin = s->cin;
			spread = s->spread;
		}
	}
	s->cin = cin;
	s->spread = spread;
	/* then, the channels kept, each choice below the other way where it
	 * applies: in-trees keyed by the bare hop (where the network is not
	 * the one bottleneck, deferring the partials that stay in their group
	 * can cost more than it gives), every NIC of a rank rather than its
	 * own (more blocks at once feed a ReduceScatter's reductions; 8 HGX
	 * H100 nodes' 2,669 us against 2,744 on its own NIC), a shard's ends
	 * graded (ccs_synth_chunk: the last wave forwarded after the network
	 * smaller) */
	int intree = s->coll != CCS_COLL_ALLGATHER && s->coll != CCS_COLL_ALLTOALL, shared = 0;
	for (int r = 0; r < c->n; r++)
		shared |= s->nic_own[r] != (1u << (s->nics[r] > 8 ? 8 : s->nics[r])) - 1;
	/* graded ends need two chunks a shard within the ops limit */
	int grades = ccs_synth_ops(s->coll, c->n, 2 + 2 * CCS_SYNTH_GRADE) <= CCS_SYNTH_MAX_OPS;
	int *flag[3] = { &s->bare_hop, &s->all_nics, &s->grade }, use[3] = { intree, shared, grades };
	for (int i = 0; i < 3 && !rc; i++)
		if (use[i] && c->G > 1)
			rc = flip(s, flag[i], f, c, bytes, K, C, p, t, fit, bf, err, errn);
	return rc;
}

int ccs_synth_make(struct ccs_fabric *f, const struct ccs_comm *c, const struct ccs_synth_cfg *cfg, int K, int C, int force,
                   struct ccs_synth *out, char *err, size_t errn)
{
	enum { N = CCS_SYNTH_NCAND };
	struct ccs_synth cand[N];
	struct ccs_synth_plan p;
	memset(&p, 0, sizeof p);
	memset(cand, 0, sizeof cand);
	double t[N];
	int rc = CCS_OK, tried[N];
	double ops = ccs_synth_ops(cfg->coll, c->n, K > 0 ? K : 1);
	if (ops > CCS_SYNTH_MAX_OPS) {
		snprintf(err, errn,
		         "a schedule for %d ranks would have about %.0f ops at %d chunk%s a shard, more than the %d "
		         "ccsim's schedule reader holds: synthesize for fewer ranks (-n, --set nodes=N)",
		         c->n, ops, K > 0 ? K : 1, K > 1 ? "s" : "", CCS_SYNTH_MAX_OPS);
		return CCS_EINPUT;
	}
	for (int i = 0; i < N && !rc; i++) {
		t[i] = HUGE_VAL;
		/* AllToAll's paths have no rails or chains to try */
		int applies = cfg->coll == CCS_COLL_ALLTOALL ? i == CCS_SYNTH_OPT || i == CCS_SYNTH_FIRST
		                                             : i != CCS_SYNTH_RAILS || c->G > 1;
		tried[i] = applies && (force < 0 || force == i);
		if (!tried[i])
			continue;
		struct ccs_synth_cfg one = *cfg;
		one.rails = i == CCS_SYNTH_RAILS;
		one.chains = i == CCS_SYNTH_CHAINS;
		one.max_iter = i >= CCS_SYNTH_FIRST ? -1 : cfg->max_iter;
		rc = ccs_synth_pack(f, c, &one, &cand[i], err, errn);
		if (!rc)
			rc = ccs_synth_sim(&cand[i], f, c, cfg->bytes, K, C, &p, &t[i], err, errn);
	}
	/* each candidate within 2x of the fastest with its best channels */
	double first = HUGE_VAL;
	for (int i = 0; i < N; i++)
		first = tried[i] && t[i] < first ? t[i] : first;
	for (int i = 0; i < N && !rc; i++)
		if (tried[i] && t[i] <= 2 * first)
			rc = lower_trial(&cand[i], f, c, cfg->bytes, K, C, &p, &t[i], NULL, err, errn);
	ccs_synth_plan_release(&p);
	int best = -1;
	for (int i = 0; i < N && !rc; i++)
		if (tried[i] && (best < 0 || t[i] < t[best]))
			best = i;
	if (rc || best < 0) {
		for (int i = 0; i < N; i++)
			ccs_synth_release(&cand[i]);
		if (!rc)
			snprintf(err, errn, "no candidate packing");
		return rc ? rc : CCS_EINPUT;
	}
	for (int i = 0; i < N; i++) {
		cand[best].cand_lp_s[i] = tried[i] ? cand[i].lp_s : HUGE_VAL;
		cand[best].cand_sim_s[i] = t[i];
	}
	cand[best].opt_lp_s = tried[CCS_SYNTH_OPT] ? cand[CCS_SYNTH_OPT].lp_s : HUGE_VAL;
	cand[best].kept = best;
	*out = cand[best];
	for (int i = 0; i < N; i++)
		if (i != best)
			ccs_synth_release(&cand[i]);
	return CCS_OK;
}

int ccs_synth_lower_fit(struct ccs_synth *s, struct ccs_fabric *f, const struct ccs_comm *c, double bytes, int K, int C,
                        double *time_s, int *fit, char *err, size_t errn)
{
	struct ccs_synth_plan p;
	memset(&p, 0, sizeof p);
	s->cin = 0;
	s->spread = 0;
	s->bare_hop = s->all_nics = s->grade = 0;
	int rc = ccs_synth_sim(s, f, c, bytes, K, C, &p, time_s, err, errn);
	if (!rc && (*fit = fits(&p)) < 0) {
		snprintf(err, errn, "out of memory");
		rc = CCS_ENOMEM;
	}
	if (!rc)
		rc = lower_trial(s, f, c, bytes, K, C, &p, time_s, fit, err, errn);
	ccs_synth_plan_release(&p);
	return rc;
}
