/*
** model/ytree.h: YAML documents as trees with a position on every node, for
** the other file formats (schedules) that topo_yaml.c, the one user of
** libyaml, reads for them.  Scalars keep their text; the helpers check keys
** ("unknown key 'x' in ... (did you mean 'y'?)"), kinds, whole numbers and
** quantities with units, and report "file:line:col: what" through the diag.
** Everything lives in the document's arena until ccs_ydoc_release.
*/
#ifndef CCS_YTREE_H
#define CCS_YTREE_H

#include "ccs.h"
#include "units.h"

enum { CCS_Y_SCALAR, CCS_Y_MAP, CCS_Y_SEQ };

struct ccs_ynode {
	int kind;
	struct ccs_mark mark;
	const char *str;            /* scalar text */
	uint32_t n, cap;
	struct ccs_ynode **k, **v;  /* map: keys and values; seq: v */
};

struct ccs_ydoc {
	struct ccs_arena arena;
	void *priv;
};

/* Read and parse the file at path (one document, a mapping at the top). */
int  ccs_ydoc_load(struct ccs_ydoc *d, const char *path, struct ccs_diag *diag, struct ccs_ynode **root);
void ccs_ydoc_release(struct ccs_ydoc *d);

const struct ccs_ynode *ccs_y_get(const struct ccs_ynode *m, const char *key);
int ccs_y_keys(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *const *keys, int n, const char *where);
int ccs_y_need(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *where);
int ccs_y_kind(struct ccs_ydoc *d, const struct ccs_ynode *y, int kind, const char *what);
/* Optional values: left as they are when the key is absent. */
int ccs_y_long(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, long lo, long hi, long *out);
int ccs_y_qty(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, enum ccs_qty q, double *out);
int ccs_y_str(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char **out);
/* A positioned error about node y (CCS_EINPUT). */
int ccs_y_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *msg);

#endif
