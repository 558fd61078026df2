/*
** model/ytree.h: YAML documents as trees with a position on every node.
**
** ytree.c is the one file that includes <yaml.h>.  A document is read whole
** (at most 64 MiB), parsed into nodes that keep their source, line and
** column (1-based), and checked by the helpers below, which report
** "file:line:col: what" through the document's diag and return CCS_EINPUT:
** unknown keys (with a suggestion), kinds, whole numbers in a range,
** quantities with units, booleans, names from a list.  Absent keys leave
** the output untouched and are not errors (ccs_ytree_need makes one).
** A tree may extend another file ("extends: base.yaml", relative to the
** file that names it; mappings merge key by key, the rest is replaced) and
** take --set overrides ("key.path=value", positioned in their own source).
** Nesting is at most 64 levels deep (aliases included), and aliases expand
** to at most 100,000 nodes in one document (nested anchors, "billion
** laughs", are refused at the anchored node whose copy passes the limit:
** libyaml's documents keep no position for the alias itself).  Nodes and strings
** live in the document's arena (d->a) until it is released.
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

/* A document being read: where its nodes live and where errors go. */
struct ccs_ydoc {
	struct ccs_diag *diag;
	struct ccs_arena *a;        /* nodes and strings: own, or the caller's */
	struct ccs_arena own;       /* ccs_ytree_load's */
	const char **srcs;          /* source names: files, then --set arguments */
	int nsrcs, srcs_cap;
	int cur;                    /* source being parsed */
	const char *kind;           /* what the file is, for messages ("scenario"); NULL: "topology" */
	size_t max_file;            /* the largest file read [B] (0: 64 MiB) */
};

/* Read and parse the file at path into *root (one mapping); d is set up
 * here, its arena its own, and must be released even on failure.  kind
 * names the file in messages ("scenario"; NULL: "topology"). */
int  ccs_ytree_load(struct ccs_ydoc *d, const char *path, const char *kind, struct ccs_diag *diag,
                    struct ccs_ynode **root);
void ccs_ytree_release(struct ccs_ydoc *d);

/* For loaders with their own arena and diag in d (topo_yaml.c): add a
 * source name (diag sees the list at once), read a file (m: where another
 * file named it, or NULL), parse the buffer of source d->cur, parse one with
 * the files it extends (depth: how deep in 'extends' it is), overlay a tree
 * on another, apply one --set argument of source src. */
int ccs_ytree_add_src(struct ccs_ydoc *d, const char *name, int *idx);
int ccs_ytree_read_file(struct ccs_ydoc *d, const char *path, const struct ccs_mark *m, char **out, size_t *outlen);
int ccs_ytree_parse(struct ccs_ydoc *d, const char *buf, size_t len, struct ccs_ynode **root);
int ccs_ytree_load_tree(struct ccs_ydoc *d, const char *name, const char *buf, size_t len, int depth,
                        struct ccs_ynode **root);
int ccs_ytree_merge(struct ccs_ydoc *d, struct ccs_ynode *base, const struct ccs_ynode *over);
int ccs_ytree_set(struct ccs_ydoc *d, struct ccs_ynode *root, const char *arg, int src);
/* A new node, and a key/value appended to a mapping (k NULL: a list). */
struct ccs_ynode *ccs_ytree_node(struct ccs_arena *a, int kind, struct ccs_mark m);
int ccs_ytree_push(struct ccs_arena *a, struct ccs_ynode *y, struct ccs_ynode *k, struct ccs_ynode *v);

/* Values, checked where they stand.  mk (may be NULL) gets the value's
 * position; to[] (may be NULL) maps names[i] to the value stored. */
struct ccs_ynode *ccs_ytree_get(const struct ccs_ynode *m, const char *key);
int ccs_ytree_keys(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *const *keys, int n, const char *where);
int ccs_ytree_need(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *where);
int ccs_ytree_kind(struct ccs_ydoc *d, const struct ccs_ynode *y, int kind, const char *what);
int ccs_ytree_str(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char **out);
int ccs_ytree_long(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, long lo, long hi, long *out,
                   struct ccs_mark *mk);
int ccs_ytree_qty(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, enum ccs_qty q, double *out);
int ccs_ytree_bool(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, int *out, struct ccs_mark *mk);
int ccs_ytree_enum(struct ccs_ydoc *d, const struct ccs_ynode *m, const char *key, const char *const *names,
                   const int *to, int n, int *out);
/* msg at y's position. */
int ccs_ytree_error(struct ccs_ydoc *d, const struct ccs_ynode *y, const char *msg);

#endif
