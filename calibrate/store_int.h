/*
** calibrate/store_int.h: the store's handle, for the files of the store
** module that speak SQL themselves (store.c, merge.c) and their unit test;
** nothing else includes it, and only those include <sqlite3.h>.
*/
#ifndef CCS_STORE_INT_H
#define CCS_STORE_INT_H

#include "store.h"

#include <sqlite3.h>

struct ccs_store {
	sqlite3 *db;
	char path[256];
};

/* d gets "PATH: what: sqlite3_errmsg"; returns CCS_EDB. */
int ccs_store_dberr(struct ccs_store *s, struct ccs_diag *d, const char *what);
/* sqlite3_exec of sql; CCS_EDB with d set ("PATH: what: error") on failure. */
int ccs_store_exec(struct ccs_store *s, const char *sql, struct ccs_diag *d, const char *what);

/* sql run once, its ?1, ?2 ... bound to args (n of them; NULL binds
 * NULL): SQLITE_ROW (the row's first column in *out, when out is not
 * NULL), SQLITE_DONE, or the SQLite code of what failed (prepare, bind or
 * step). */
int ccs_store_once(struct ccs_store *s, const char *sql, const char *const *args, int n, int64_t *out);

#endif
