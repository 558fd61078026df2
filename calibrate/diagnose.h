/*
** calibrate/diagnose.h: which fault explains measured collective times
** (`ccsim diagnose` prints it; docs/faults.md, "Diagnosis").
**
** Rows.  Each measured row i (a collective, its ranks and size, time m_i)
** carries s_i = log(1 + e_i), e_i the model's own error where it runs
** (calibrate/modelerr.h, at least a floor).  A prediction p (healthy, or
** under a fault hypothesis) scores
**   rms(p)   = sqrt(mean_i (log(p_i / m_i) / s_i)^2)   (1: the model's usual miss)
**   worst(p) = max_i |p_i / m_i - 1|
** Bias: the healthy prediction h times the one factor that fits best in
** these units, log k = sum(r_i / s_i^2) / sum(1 / s_i^2), r_i = log(m_i /
** h_i); b_rms = rms(k h).  The straggler's delay: the median of m_i - h_i.
**
** Hypotheses are typed (calibrate/diag_cand.h: a kind, whether every GPU
** is struck, and the fault string, model/fault.h, or transport:T that
** applies it), tried on one loaded topology in turn (model/topo_state.h
** puts it back).  Evidence: the logs' NCCL INFO lines (calibrate/ntinfo.h,
** CCS_EV_*) state a kind, contradict it or say nothing, by a table of
** rules, one per kind (ccs_diagnose_evidence):
**   gdr        contradicted by a GDRDMA channel unless a line also says
**              GPUDirect is off; stated (gdr:all:off only) by "GPU Direct
**              RDMA Disabled" with no GDRDMA channel
**   transport  socket stated by NET/Socket channels, contradicted by NET/IB
**   p2p        stated by channels through SHM, contradicted by P2P ones
** A contradicted hypothesis is not tried.  A straggler that fits no
** better than the bias (rms >= b_rms) is left out: a share of every row,
** not a late rank.  Hypotheses whose predictions agree within 1e-9 at
** every row are one (a symmetric machine cannot tell rail 3 from rail 5),
** named by the member the evidence states, else the first.
** Ranking: by rms; then the best stated hypothesis goes first when it
** fits better than healthy and within 3 x the best rms or 0.5 behind it;
** else the table's first stays and the two disagree (both are shown).
** Verdict, with H = rms(h), B = b_rms, r = the first's rms, tol the floor:
**   within = H <= 1; biased = B <= 1 and |log k| <= log(1 + tol)
**   found  = (first stated and r < H)
**            or (r < 0.8 H and (not within or (r < H/2 and H - r > 0.5))
**                and (not biased or r < B/2))
**   NONE when not found; NO_SINGLE when found, the first is not stated and
**   r > 3 (it misses by over 3 times the model's error); else FAULT.
*/
#ifndef CCS_DIAGNOSE_H
#define CCS_DIAGNOSE_H

#include "diag_cand.h"

#include "../model/topo.h"

#include <stddef.h>
#include <stdint.h>

struct ccs_diagnose_row {
	int coll, ranks;
	int nodes;                  /* the hosts the log's Rank lines name, 0 unknown */
	uint64_t size;
	double t_s;
	unsigned amask, pmask;      /* the algorithms and protocols NCCL may have chosen from */
	double sig;                 /* log(1 + the model's own error at this row) */
};

enum ccs_diagnose_verdict { CCS_DIAGNOSE_NONE, CCS_DIAGNOSE_FAULT, CCS_DIAGNOSE_NO_SINGLE };

struct ccs_diagnose_hyp {
	char spec[160];
	int kind;                   /* enum ccs_diag_cand_kind (diag_cand.h) */
	double rms, worst;
	double *pred;               /* per row */
	int members;                /* equivalent hypotheses merged into this one */
	char second[160];           /* another member, for the listing */
	char *all;                  /* every member, space separated */
	int stated;                 /* the logs' evidence states it */
};

struct ccs_diagnose {
	const struct ccs_diagnose_row *rw;
	size_t nrw;
	double tol;                 /* the floor of the rows' error */
	double *healthy, h_rms, h_worst;
	double bias, b_rms, excess;
	struct ccs_diagnose_hyp *h; /* best first after ccs_diagnose_rank */
	size_t nh, caph;
	size_t ncontra;             /* hypotheses the evidence rules out */
	size_t nbiased;             /* stragglers the bias fits better than */
	size_t disagree;            /* the best stated hypothesis where the table ranks another first; 0 none */
	int found, within, biased;
	int verdict;                /* enum ccs_diagnose_verdict */
};

/* What evidence ev (CCS_EV_* flags) says of a hypothesis of kind (all: it
 * strikes every GPU): 1 states it, -1 contradicts it, 0 nothing. */
int ccs_diagnose_evidence(int kind, int all, unsigned ev);

/* rms and worst of pred against the rows (the top of this file). */
void ccs_diagnose_score(const struct ccs_diagnose_row *rw, size_t n, const double *pred, double *rms, double *worst);

/* Ranks per node for a job of ranks: ppn, else nodes spread evenly, else
 * the nodes its log names (logged), else 0 (nodes filled in order). */
int ccs_diagnose_ppn(int ppn, int nodes, int logged, int ranks);

/* work(t, ctx) with hypothesis fault applied to t (transport:T sets the
 * transport, anything else is a fault string, ccs_fault_apply; NULL: as
 * t is), then t put back as it was (model/topo_state.h).  work's return;
 * -1 with err when the fault does not apply; -2 out of memory. */
int ccs_diagnose_under(struct ccs_topo *t, const char *fault, int (*work)(const struct ccs_topo *t, void *ctx),
                       void *ctx, char *err, size_t errn);

/* The rows' predictions on t under fault (NULL: as t is), each row's
 * ranks placed ppn a node (0: --nodes spread evenly, else the row's logged
 * nodes, else filling nodes in order); groups (may be NULL) each row's
 * scale-up groups.  t is put back as it was.  0; -1 with err when the
 * fault does not apply or the collective cannot complete under it; -2 out
 * of memory. */
int ccs_diagnose_predict(struct ccs_topo *t, int ppn, int nodes, const char *fault,
                         const struct ccs_diagnose_row *rw, size_t n, double *out, int *groups, char *err,
                         size_t errn);

/* D over rows rw (n) and their healthy predictions (D takes healthy, a
 * ccs_malloc'd array): the healthy score, the bias and the straggler's
 * delay.  -2 out of memory. */
int ccs_diagnose_init(struct ccs_diagnose *D, const struct ccs_diagnose_row *rw, size_t n, double *healthy,
                      double tol);

/* Hypothesis h with predictions pred and evidence ev (ccs_diagnose_evidence,
 * not -1) into D: dropped (a straggler the bias fits better), merged into
 * an equivalent one, or added.  0; -2 out of memory. */
int ccs_diagnose_add(struct ccs_diagnose *D, const struct ccs_diag_cand *h, const double *pred, int ev);

/* Every hypothesis of h (n) tried on t (ccs_diagnose_predict) and added;
 * those the evidence ev contradicts counted, not tried.  0; -2. */
int ccs_diagnose_try(struct ccs_diagnose *D, struct ccs_topo *t, int ppn, int nodes, const struct ccs_diag_cand *h,
                     size_t n, unsigned ev);

/* Rank D's hypotheses and decide its verdict (the top of this file). */
void ccs_diagnose_rank(struct ccs_diagnose *D);

void ccs_diagnose_release(struct ccs_diagnose *D);

#endif
