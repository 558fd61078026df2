/*
** calibrate/calib.h: from a run's measurements to model parameters.
**
** 1. Fits: measurements are grouped by (source, link class, name, variant;
**    nccl-tests by collective, ranks and data type, out-of-place only) and
**    each group with at least three sizes gets ccs_fit_pieces (up to three
**    pieces for collectives, where LL, LL128 and Simple take turns; two for
**    benches and perftest).
** 2. Link efficiencies, when a topology is given: the bandwidth a bench or
**    perftest reaches (1 / beta of the largest piece) over the nominal rate
**    of what it crossed:
**      nvlink / scale-up  p2p_write, p2p_read: over the scale-up max-flow
**                         between two GPUs of one node
**      pcie               h2d, d2h: over the GPU's PCIe link
**      ib / roce          rdma_write_bw, rdma_send_bw, rdma_read_bw: over
**                         the port speed of the first NIC
**    e = bw / nominal, kept in (0, 1].
** 3. NCCL level, from nccl-tests sweeps given a topology: for sizes >= 64
**    MiB the model's busbw (NCCL's choice of algorithm and protocol, our
**    time for it) against the measured one; the median ratio r scales the
**    efficiency of the link type that bounds the prediction (e *= r, twice,
**    as the choice may move).  For sizes < 64 KiB the measured time less
**    the model's time without its step term, over the model's step count
**    K, estimates the step overhead o_q of the protocol NCCL picks there
**    (median over rows; needs two rows).
** 4. Physical bounds (CCS_CALIB_EFF_*): a fitted efficiency below 0.2 or
**    above 1.05, or a negative step overhead, is refused: it lands in
**    'refused' with its reason and ccs_calib_derive fails (CCS_EFIT), so
**    nothing is written.  Efficiencies in (1, 1.05] are written as 1.
** The result is written as a calibration YAML that a topology includes
** with `calibration: FILE`; its `model:` block has the topology's syntax.
*/
#ifndef CCS_CALIB_H
#define CCS_CALIB_H

#include "fit.h"
#include "ingest.h"
#include "../model/topo.h"

#include <stdio.h>

struct ccs_calib {
	struct ccs_fit *fit;
	size_t nfit;
	double eff[CCS_LINK_NTYPES];
	int eff_from[CCS_LINK_NTYPES];  /* 0 not fitted, 1 bench/perftest, 2 nccl-tests */
	double step_s[3];
	int step_set[3];
	char **note;                    /* what was skipped and why */
	size_t nnote;
	char **refused;                 /* fitted values outside physical bounds, with the reason */
	size_t nrefused;
};

/* Physical bounds of fitted values: an efficiency outside [0.2, 1.05] or a
 * negative step overhead says the topology does not describe the machine
 * that ran (a wrong NIC speed or count, a missing switch, other jobs on
 * the fabric), not a property of the hardware; such a fit is refused. */
#define CCS_CALIB_EFF_MIN 0.2
#define CCS_CALIB_EFF_MAX 1.05

/* Fit m[0..n); t (may be NULL) gives the nominal rates for efficiencies
 * (its params are changed while the call runs and restored before it
 * returns).  CCS_EFIT with d set when nothing could be fitted at all, or
 * when a fitted value is out of bounds (out->refused says which). */
int  ccs_calib_derive(struct ccs_topo *t, const struct ccs_meas *m, size_t n, struct ccs_calib *out,
                      struct ccs_diag *d);
void ccs_calib_release(struct ccs_calib *c);

/* The fit name of m's group ("allreduce/8", "allreduce/8 bf16", "h2d") and
 * whether m enters the fits (nccl-tests: out-of-place halves only). */
void ccs_calib_group(const struct ccs_meas *m, char *buf, size_t n);
int  ccs_calib_fitted(const struct ccs_meas *m);

/* Fit the groups of m only (no topology), for check and diff. */
int  ccs_calib_fits(const struct ccs_meas *m, size_t n, struct ccs_fit **out, size_t *nout);

/* Write the calibration YAML; header names its origin.  0 or -1 (I/O). */
int  ccs_calib_write(FILE *f, const struct ccs_calib *c, const char *host, long long run, const char *db,
                     const char *topo);

/* A YAML quantity as the topology loader reads it, full precision and no
 * blank: "2.3102us", "47.312GB/s", "64MiB" (sizes exact). */
void ccs_yq_time(char *buf, size_t n, double s);
void ccs_yq_rate(char *buf, size_t n, double Bps);
void ccs_yq_size(char *buf, size_t n, uint64_t b);

#endif
