/*
** calibrate/merge.h: one ccsim database merged into another (`ccsim merge`,
** the shards of a sweep run apart: `ccsim run --shard K/N`, Slurm, MPI).
**
** A shard is attached (SQLite ATTACH) and copied in one transaction:
**   scenarios  by (hash, ccsim_version): the same scenario file and release
**              is one scenario, wherever it ran
**   results    by (scenario, point, topo_hash), the key a run resumes by:
**              a key not in the target is appended; one there with the same
**              content (every column but id, created and ord, NULL = NULL,
**              numbers bit for bit) is a duplicate and skipped; one with
**              other content is a conflict: the shard is not merged at all
**              and each conflicting point is reported with its first column
**              that differs (a point computed differently must not be
**              chosen silently)
**   runs       calibration runs (with their measurements and fits) by host,
**              created, kind, topology, sources, versions, ccsim version
**              and measurement count; a run already there is skipped
** History stays append-only: nothing in the target is changed or deleted.
** A merge killed part way leaves the target as it was before that shard
** (the transaction is rolled back by SQLite's journal); merging again is
** idempotent.
*/
#ifndef CCS_MERGE_H
#define CCS_MERGE_H

#include "store.h"

#include <stddef.h>

struct ccs_merge_stats {
	size_t scenarios;           /* new scenarios */
	size_t results, dup_results;
	size_t runs, dup_runs;
	size_t conflicts;
};

/* Called once per conflicting point: its key, and "COLUMN: TARGET vs SHARD". */
typedef void ccs_merge_conflict_fn(void *ctx, const char *point, const char *diff);

/* Merge the ccsim database at path shard into s (counts added to *st).
 * CCS_OK; CCS_EINPUT with d set when the shard is missing, is s's own
 * file, or holds conflicts (each given to conflict first; nothing of the
 * shard merged); CCS_EDB with d set on a database error (nothing of the
 * shard merged). */
int ccs_merge_shard(struct ccs_store *s, const char *shard, struct ccs_merge_stats *st, ccs_merge_conflict_fn *conflict,
                    void *ctx, struct ccs_diag *d);

#endif
