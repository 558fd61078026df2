/* sim/cli/run/shard.c: a scenario's points split into shards, and which shards a database holds whole (run.h). */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* FNV-1a, 64 bits (Fowler, Noll, Vo; the IETF draft-eastlake-fnv), of the
 * point's key, then MurmurHash3's 64-bit finaliser (fmix64, Appleby), since
 * FNV's low bits depend only on the keys' low bits and a shard is the hash
 * modulo N: a point's shard depends on its text alone, so reordering the
 * scenario's lists moves no point to another shard. */
size_t ccs_shard_of(const char *key, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return n ? (size_t)(h % n) : 0;
}

void ccs_shard_keep(struct scen *S, size_t k, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < S->npt; i++)
		if (ccs_shard_of(S->pt[i].key, n) == k)
			S->pt[m++] = S->pt[i];
	S->npt = m;
	for (size_t i = 0; i < S->ninst * S->nwi; i++)
		S->at[i] = -1;
	for (size_t i = 0; i < S->npt; i++)
		S->at[(size_t)S->pt[i].inst * S->nwi + (size_t)S->pt[i].wi] = (int32_t)i;
}

/* The stored results of the scenario (hash, this version) in db, sorted by
 * key; none when the file or the scenario is not there. */
static int stored(const char *db, const char *hash, struct ccs_result **rows, size_t *n, struct ccs_diag *d)
{
	*rows = NULL;
	*n = 0;
	struct stat sb;
	if (stat(db, &sb))
		return CCS_OK;
	struct ccs_store *s;
	CCS_TRY(ccs_store_open(db, &s, d));
	struct ccs_scenario_info *sc = NULL;
	size_t nsc = 0;
	int rc = ccs_store_scenarios(s, &sc, &nsc, d);
	for (size_t i = 0; !rc && i < nsc; i++)
		if (!strcmp(sc[i].hash, hash) && !strcmp(sc[i].ccsim_version, CCS_VERSION))
			rc = ccs_store_results(s, sc[i].id, rows, n, d);
	ccs_free(sc);
	ccs_store_close(s);
	if (!rc && *n > 1)
		qsort(*rows, *n, sizeof **rows, ccs_output_by_key);
	return rc;
}

int ccs_shard_missing(const struct scen *S, const char *hash, const size_t *pts, size_t npts, const char *db,
                      size_t *missing, struct ccs_diag *d)
{
	struct ccs_result *rows;
	size_t nrows;
	CCS_TRY(stored(db, hash, &rows, &nrows, d));
	*missing = 0;
	for (size_t i = 0; i < npts; i++)
		*missing += !ccs_output_find_result(rows, nrows, S->pt[pts[i]].key, S->inst[S->pt[pts[i]].inst].hash);
	ccs_free(rows);
	return CCS_OK;
}
